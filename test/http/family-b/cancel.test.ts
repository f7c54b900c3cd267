// Family B POST /order/{orderId}/cancel: a refund token or an EIP-712 CancelOrder signed by the order's
// refundAuthorizer, idempotent through the core; black-box against the served document (fake bus world).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { CANCEL_DOMAIN, CANCEL_TYPES } from '../../../http/index.js';
import { ORDER_TERMS_A } from '../../../src/orders/types.js';
import { EVM, GATEWAY_ID, quoted, startB, type HarnessB } from './support.js';

const signer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

let h: HarnessB;
beforeAll(async () => {
  h = await startB();
});
afterAll(() => h.close());

const nowS = () => Math.floor(h.world.clock.now() / 1000);

async function order(mode: 'token' | 'evmSignature'): Promise<{ orderId: string; refundToken?: string }> {
  const q = await quoted(h);
  const body = mode === 'token'
    ? { quoteId: q.quoteId, fromAddress: EVM, toAddress: EVM, refundMode: 'token' }
    : { quoteId: q.quoteId, fromAddress: EVM, toAddress: EVM, refundAuthorizer: signer.address };
  const r = await h.order(body);
  expect(r.status).toBe(201);
  return r.body;
}

function sign(orderId: string, deadline: number, by = signer, gateway = GATEWAY_ID) {
  return by.signTypedData({ domain: CANCEL_DOMAIN, types: CANCEL_TYPES, primaryType: 'CancelOrder', message: { orderId, gateway, deadline: BigInt(deadline) } });
}

describe('Exactly one of a token or a signature with its deadline', () => {
  it('neither, both, or a signature without deadline → 400', async () => {
    const o = await order('token');
    expect((await h.cancel(o.orderId, {})).status).toBe(400);
    expect((await h.cancel(o.orderId, { refundToken: o.refundToken, refundSignature: '0x00', refundSignatureDeadline: nowS() })).status).toBe(400);
    expect((await h.cancel(o.orderId, { refundSignature: '0x00' })).status).toBe(400);
    expect((await h.cancel(o.orderId, { refundSignature: 'zz', refundSignatureDeadline: 1 })).status).toBe(400);
    for (const refundSignatureDeadline of [1.5, '60', -1]) {
      const r = await h.cancel(o.orderId, { refundSignature: '0x00', refundSignatureDeadline });
      expect(r.status).toBe(400);
      expect(r.body.error.details.issues[0].path).toBe('refundSignatureDeadline');
    }
  });
  it('unknown order → 404', async () => {
    expect((await h.cancel('6f9619ff-8b86-4011-b42d-00c04fc964ff', { refundToken: 'rgt_x' })).status).toBe(404);
  });
});

describe('Token: the HMAC of the order id, compared in constant time; then order.unwind with its hash', () => {
  it('cancels an order awaiting its deposit: status cancelled; the same cancel again (a retry) → 200, cancelled', async () => {
    const o = await order('token');
    const r = await h.cancel(o.orderId, { refundToken: o.refundToken });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    expect(h.bus.calls.at(-2)!.message).toMatchObject({ type: 'order.unwind' });
    expect(JSON.stringify(h.bus.calls, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain(o.refundToken);
    const again = await h.cancel(o.orderId, { refundToken: o.refundToken });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
  });
  it('amountFormat is optional: raw answers the order\'s amounts in base units, as GET /order/{orderId} does', async () => {
    const o = await order('token');
    const r = await h.cancel(o.orderId, { refundToken: o.refundToken, amountFormat: 'raw' });
    expect(r.status).toBe(200);
    const read = await h.call(`/order/${o.orderId}?amountFormat=raw`);
    expect(r.body.amountToSend).toBe(read.body.amountToSend);
    expect(r.body.amountToSend).toMatch(/^\d+$/);
    const readable = await h.call(`/order/${o.orderId}`);
    expect(readable.body.amountToSend).not.toBe(r.body.amountToSend);
  });
  it('an underfunded order: refund_pending', async () => {
    const o = await order('token');
    h.world.update(o.orderId, { stage: 'underfunded' });
    expect((await h.cancel(o.orderId, { refundToken: o.refundToken })).body.status).toBe('refund_pending');
  });
  it('another order\'s token, a made-up token, or a token for a signature order → 401', async () => {
    const a = await order('token');
    const b = await order('token');
    expect((await h.cancel(a.orderId, { refundToken: b.refundToken })).status).toBe(401);
    expect((await h.cancel(a.orderId, { refundToken: 'rgt_AAAA' })).status).toBe(401);
    const s = await order('evmSignature');
    expect((await h.cancel(s.orderId, { refundToken: a.refundToken })).status).toBe(401);
  });
  it('an executing order → 409 conflict with its status; the token still cancels once the order may be', async () => {
    const o = await order('token');
    h.world.update(o.orderId, { stage: 'executing.step' });
    const r = await h.cancel(o.orderId, { refundToken: o.refundToken });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'conflict', details: { status: 'executing' } });
    h.world.update(o.orderId, { stage: 'funded' });
    const later = await h.cancel(o.orderId, { refundToken: o.refundToken });
    expect(later.status).toBe(200);
    expect(later.body.status).toBe('refund_pending');
  });
});

describe('Signature: EIP-712 CancelOrder{orderId, gateway, deadline} by refundAuthorizer, deadline not past and at most 10 minutes ahead', () => {
  it('a wallet signing the documented typed data (domain {name: "Swap Router Gateway", version: "1"}, no chain id) cancels', async () => {
    const o = await order('evmSignature');
    const deadline = nowS() + 300;
    // Written out as a client would from the README, not from the code's constants.
    const sig = await signer.signTypedData({
      domain: { name: 'Swap Router Gateway', version: '1' },
      types: { CancelOrder: [{ name: 'orderId', type: 'string' }, { name: 'gateway', type: 'string' }, { name: 'deadline', type: 'uint256' }] },
      primaryType: 'CancelOrder',
      message: { orderId: o.orderId, gateway: GATEWAY_ID, deadline: BigInt(deadline) },
    });
    const r = await h.cancel(o.orderId, { refundSignature: sig, refundSignatureDeadline: deadline });
    expect([r.status, r.body.status]).toEqual([200, 'cancelled']);
  });
  it('a valid signature cancels; the same one again (a retry, in any spelling) → 200', async () => {
    const o = await order('evmSignature');
    const deadline = nowS() + 300;
    const sig = await sign(o.orderId, deadline);
    const r = await h.cancel(o.orderId, { refundSignature: sig, refundSignatureDeadline: deadline });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    const again = await h.cancel(o.orderId, { refundSignature: sig, refundSignatureDeadline: deadline });
    expect([again.status, again.body.status]).toEqual([200, 'cancelled']);
    const upper = await h.cancel(o.orderId, { refundSignature: sig.toUpperCase().replace('0X', '0x'), refundSignatureDeadline: deadline });
    expect([upper.status, upper.body.status]).toEqual([200, 'cancelled']);
  });
  it('wrong signer, other order, other gateway, past or far deadline → 401', async () => {
    const o = await order('evmSignature');
    const other = await order('evmSignature');
    const d = nowS() + 60;
    const tries: Array<[string, number]> = [
      [await sign(o.orderId, d, stranger), d],
      [await sign(other.orderId, d), d],
      [await sign(o.orderId, d, signer, 'other-gateway'), d],
      [await sign(o.orderId, nowS() - 1), nowS() - 1],
      [await sign(o.orderId, nowS() + 601), nowS() + 601],
      [await sign(o.orderId, d), d + 1],
    ];
    for (const [sig, deadline] of tries) {
      const r = await h.cancel(o.orderId, { refundSignature: sig, refundSignatureDeadline: deadline });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    expect(h.world.orders.get(o.orderId)!.stage).toBe('awaiting_deposit');
  });
});

describe('An order made through Family A has no cancel authorization in B', () => {
  it('read through B its refundMode and refundAuthorizer are null; a token or a signature is refused with 401', async () => {
    const o = await order('token');
    h.world.update(o.orderId, { terms: ORDER_TERMS_A });
    const read = await h.call(`/order/${o.orderId}`);
    expect([read.body.refundMode, read.body.refundAuthorizer]).toEqual([null, null]);
    const byToken = await h.cancel(o.orderId, { refundToken: o.refundToken });
    expect([byToken.status, byToken.body.error.code]).toEqual([401, 'unauthorized']);
    const deadline = nowS() + 60;
    const bySignature = await h.cancel(o.orderId, { refundSignature: await sign(o.orderId, deadline), refundSignatureDeadline: deadline });
    expect([bySignature.status, bySignature.body.error.code]).toEqual([401, 'unauthorized']);
    expect(h.world.orders.get(o.orderId)!.stage).toBe('awaiting_deposit');
  });
});
