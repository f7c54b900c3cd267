// Family B POST /order/market and GET /order/{orderId}, black-box against the served document (fake bus world).
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTE_VALIDITY_MS } from '../../../src/quotes/types.js';
import type { OrderCreate } from '../../../src/protocol/index.js';
import { EVM, EVM_OTHER, quoted, startB, type HarnessB } from './support.js';

let h: HarnessB;
beforeAll(async () => {
  h = await startB();
});
afterAll(() => h.close());

const tokenOf = (orderId: string) => `rgt_${createHmac('sha256', '0123456789abcdef0123456789abcdef').update(orderId).digest('base64url')}`;

async function orderBody(over: Record<string, unknown> = {}, quoteOver: Record<string, unknown> = {}) {
  const q = await quoted(h, quoteOver);
  return { quoteId: q.quoteId as string, fromAddress: EVM, toAddress: EVM, refundAuthorizer: EVM_OTHER, ...over };
}

function lastCreate(): OrderCreate {
  const c = [...h.bus.calls].reverse().find((x) => x.message.type === 'order.create');
  return c!.message as OrderCreate;
}

describe('POST /order/market runs the Family A order path with Family B terms', () => {
  it('201, status quoted, the deposit address, amountToSend = the quoted input; terms carry minOut rounded down', async () => {
    const body = await orderBody({ integrator: 'acme' });
    const r = await h.order(body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'quoted', orderType: 'market_order', quoteId: body.quoteId, amountToSend: '1000', refundMode: 'evmSignature', refundAuthorizer: EVM_OTHER });
    expect(r.body).not.toHaveProperty('refundToken');
    expect(r.headers.get('location')).toBe(`/order/${r.body.orderId}`);
    // The first fields of the first shape, then the quote's assets, expiry and estimate, and the refund mode echoed.
    expect(Object.keys(r.body).slice(0, 3)).toEqual(['orderId', 'orderAddress', 'amountToSend']);
    expect(r.body).toMatchObject({ from: 'base.USDC', to: 'arbitrum.USDC', amountFormat: 'readable', route: expect.any(Array), expectedSwapTimeMs: expect.any(Number) });
    expect(r.body.estimatedOut).toBe(r.body.route.at(-1).amountOut);
    expect(new Date(r.body.expiry).toISOString()).toBe(r.body.expiry);
    const { terms, quote, refundAddress } = lastCreate();
    expect(terms).toMatchObject({ family: 'b', maxSlippageBps: 100, cancelAfter: null, fromAddress: EVM, integrator: 'acme', refundAuthorization: { mode: 'evmSignature', authorizer: EVM_OTHER } });
    expect(terms!.minOut).toBe((quote.route.estimatedAmountOut * 9900n) / 10000n);
    expect(refundAddress).toBe(EVM);
  });
  it('addresses are validated for their chains (toAddress on the destination, fromAddress and refundAddress on the source)', async () => {
    for (const [field, value] of <Array<[string, string]>>[['toAddress', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'], ['fromAddress', 'nope'], ['refundAddress', '0x123']]) {
      const r = await h.order(await orderBody({ [field]: value }));
      expect(r.status).toBe(400);
      expect(r.body.error.details.issues[0].path).toBe(field);
    }
  });
  it('unknown quote → 404 not_found; expired → 410 quote_expired', async () => {
    const r = await h.order({ quoteId: '6f9619ff-8b86-4011-b42d-00c04fc964ff', fromAddress: EVM, toAddress: EVM, refundAuthorizer: EVM });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    const body = await orderBody();
    h.world.clock.advance(QUOTE_VALIDITY_MS + 1);
    const e = await h.order(body);
    h.world.clock.advance(-(QUOTE_VALIDITY_MS + 1));
    expect(e.status).toBe(410);
    expect(e.body.error.code).toBe('quote_expired');
  });
  it('the same quote with other addresses → 409 conflict', async () => {
    const body = await orderBody();
    expect((await h.order(body)).status).toBe(201);
    const r = await h.order({ ...body, toAddress: EVM_OTHER });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
  });
});

describe('A refund that could not be paid is refused at creation: 400 invalid_request, before the quote is bound', () => {
  it('a quote whose amount does not exceed what one refund costs on the source chain; one base unit above is accepted', async () => {
    // A quote another edge issued (this one asks its actor), whose refund would cost all it sells.
    const issued = h.world.quotes.get((await orderBody()).quoteId)!.quote;
    const quote = { ...issued, id: randomUUID(), refundCost: issued.route.amountIn };
    h.world.quotes.set(quote.id, { quote, binding: null });
    const body = await orderBody({ quoteId: quote.id });
    const callsBefore = h.bus.calls.length;
    const r = await h.order(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: `\`quoteId\` ${quote.id} is for an amount that would not cover what a refund costs on the source chain; quote a larger amount.` });
    expect(h.bus.calls.slice(callsBefore).map((c) => c.message.type)).toEqual(['quote.get']);
    expect(h.world.quotes.get(quote.id)!.binding).toBeNull();

    quote.refundCost = issued.route.amountIn - 1n;
    expect((await h.order(body)).status).toBe(201);
  });
});

describe('refundMode evmSignature (default) needs an EVM refundAuthorizer; token refuses one and answers refundToken', () => {
  it('evmSignature without authorizer → 400', async () => {
    const r = await h.order(await orderBody({ refundAuthorizer: undefined }));
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('refundAuthorizer');
    const bad = await h.order(await orderBody({ refundAuthorizer: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' }));
    expect(bad.status).toBe(400);
  });
  it('token with an authorizer → 400; without → refundToken = rgt_ + HMAC(secret, orderId), the same on a replay with the idempotency key', async () => {
    expect((await h.order(await orderBody({ refundMode: 'token' }))).status).toBe(400);
    const body = await orderBody({ refundMode: 'token', refundAuthorizer: null, idempotencyKey: 'token-key-0000000001' });
    const r = await h.order(body);
    expect(r.status).toBe(201);
    expect(r.body.refundToken).toBe(tokenOf(r.body.orderId));
    expect(r.body.refundMode).toBe('token');
    expect(r.body.refundAuthorizer).toBeNull();
    const again = await h.order(body);
    expect(again.status).toBe(200);
    expect(again.body.refundToken).toBe(r.body.refundToken);
    // Only creation answers carry it.
    expect((await h.get(r.body.orderId)).body).not.toHaveProperty('refundToken');
    expect(JSON.stringify(h.logs)).not.toContain(r.body.refundToken);
  });

  it('a repeat without an idempotency key, its body rebuilt from the order\'s public GET, answers the order without its refundToken', async () => {
    const body = await orderBody({ refundMode: 'token', refundAuthorizer: null });
    const r = await h.order(body);
    expect(r.status).toBe(201);
    expect(r.body.refundToken).toBe(tokenOf(r.body.orderId));
    const seen = (await h.get(r.body.orderId)).body;
    const rebuilt = {
      quoteId: seen.quoteId,
      fromAddress: seen.fromAddress,
      toAddress: seen.toAddress,
      refundAddress: seen.refundAddress,
      refundMode: seen.refundMode,
      refundAuthorizer: null,
    };
    const again = await h.order(rebuilt);
    expect(again.status).toBe(200);
    expect(again.body.orderId).toBe(r.body.orderId);
    expect(again.body).not.toHaveProperty('refundToken');
    expect(JSON.stringify(again.body)).not.toContain(r.body.refundToken);
  });
});

describe('idempotencyKey: same key and body → the same order (201, then 200); same key, other body → 409', () => {
  it('replays and conflicts', async () => {
    const body = await orderBody({ idempotencyKey: 'key-0000000000000001' });
    const first = await h.order(body);
    expect(first.status).toBe(201);
    const again = await h.order(body);
    expect(again.status).toBe(200);
    expect(again.body.orderId).toBe(first.body.orderId);
    const other = await h.order({ ...body, integrator: 'someone-else' });
    expect(other.status).toBe(409);
    const otherQuote = await h.order(await orderBody({ idempotencyKey: 'key-0000000000000001' }));
    expect(otherQuote.status).toBe(409);
  });
  it('16 to 128 characters of [A-Za-z0-9._:-]: 15 or 129 characters, or another character → 400 naming it; 16 and 128 are taken', async () => {
    for (const idempotencyKey of ['short', 'k'.repeat(15), 'k'.repeat(129), 'key with spaces 0001', 'key/0000000000000001']) {
      const r = await h.order(await orderBody({ idempotencyKey }));
      expect(r.status, idempotencyKey).toBe(400);
      expect(r.body.error.details.issues[0].path).toBe('idempotencyKey');
    }
    for (const idempotencyKey of ['k'.repeat(16), `${'k'.repeat(120)}.:_-0001`]) {
      expect(idempotencyKey.length === 16 || idempotencyKey.length === 128).toBe(true);
      expect((await h.order(await orderBody({ idempotencyKey }))).status, idempotencyKey).toBe(201);
    }
  });
});

describe('Order request limits: quoteId a uuid; addresses, refundAuthorizer and integrator 1 to 128 characters; quoteId, fromAddress and toAddress required', () => {
  it('a field missing, empty or of 129 characters → 400 naming it; an integrator of 128 characters is taken', async () => {
    for (const field of ['quoteId', 'fromAddress', 'toAddress'] as const) {
      const { [field]: _f, ...without } = await orderBody();
      const r = await h.order(without);
      expect(r.status, field).toBe(400);
      expect(r.body.error.details.issues[0].path).toBe(field);
    }
    const cases: Array<[string, unknown]> = [
      ['quoteId', 'not-a-uuid'],
      ...['fromAddress', 'toAddress', 'refundAuthorizer', 'refundAddress', 'integrator'].flatMap((f): Array<[string, unknown]> => [[f, ''], [f, 'x'.repeat(129)]]),
    ];
    for (const [field, value] of cases) {
      const r = await h.order(await orderBody({ [field]: value }));
      expect(r.status, `${field}=${String(value).slice(0, 12)}`).toBe(400);
      expect(r.body.error.details.issues[0].path).toBe(field);
    }
    expect((await h.order(await orderBody({ integrator: 'i'.repeat(128) }))).status).toBe(201);
  });

  it('amountFormat raw answers the order\'s amounts in base units', async () => {
    const r = await h.order(await orderBody({ amountFormat: 'raw' }));
    expect(r.status).toBe(201);
    expect(r.body.amountFormat).toBe('raw');
    expect(r.body.amountToSend).toBe('1000000000');
    expect(r.body.from).toBe('evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
  });
});

describe('cancelAfter: only for market quotes, in the future, before the deposit deadline', () => {
  it('market_order quote → 400; past → 400; beyond 7 days → 400; ok → in terms and the answer', async () => {
    const now = h.world.clock.now();
    const soon = new Date(now + 3_600_000).toISOString();
    expect((await h.order(await orderBody({ cancelAfter: soon }))).status).toBe(400);
    expect((await h.order(await orderBody({ cancelAfter: new Date(now - 1000).toISOString() }, { orderType: 'market' }))).status).toBe(400);
    expect((await h.order(await orderBody({ cancelAfter: new Date(now + 8 * 86_400_000).toISOString() }, { orderType: 'market' }))).status).toBe(400);
    const r = await h.order(await orderBody({ cancelAfter: soon }, { orderType: 'market' }));
    expect(r.status).toBe(201);
    expect(lastCreate().terms!.cancelAfter).toBe(now + 3_600_000);
    expect(r.body).toMatchObject({ orderType: 'market', cancelAfter: soon, maxSlippage: '0.01', expectedSlippage: '0', maxIn: '1000' });
    expect(Number(r.body.minOut)).toBeLessThan(Number(r.body.expectedOut));
  });

  it('a retry with the idempotency key after cancelAfter has passed answers the order it made (200), not 400', async () => {
    const now = h.world.clock.now();
    const body = await orderBody({ cancelAfter: new Date(now + 60_000).toISOString(), idempotencyKey: 'cancel-after-retry-0001' }, { orderType: 'market' });
    const first = await h.order(body);
    expect(first.status).toBe(201);
    h.world.clock.advance(120_000);
    try {
      const again = await h.order(body);
      expect(again.status).toBe(200);
      expect(again.body.orderId).toBe(first.body.orderId);
      // A new key with the same past instant is a new order, and is refused.
      const fresh = await h.order({ ...body, idempotencyKey: 'cancel-after-retry-0002' });
      expect(fresh.status).toBe(400);
      expect(fresh.body.error.message).toMatch(/cancelAfter.*future/);
    } finally {
      h.world.clock.advance(-120_000);
    }
  });
});

describe('GET /order/{orderId}: B statuses from the core\'s stage, close reason and refunds', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['awaiting_deposit', {}, 'quoted'],
    ['underfunded', {}, 'quoted'],
    ['funded', {}, 'funded'],
    ['executing.step', {}, 'executing'],
    ['executing.delivering', {}, 'executing'],
    ['delivered', { amountOut: 5n }, 'completed'],
    ['expired', {}, 'expired'],
    ['refunding.cancelled', { refundPending: true, closeReason: 'cancelled' }, 'refund_pending'],
    ['unwinding.quoting', {}, 'refund_pending'],
    ['refunded', { closeReason: 'cancelled' }, 'cancelled'],
    ['refunded', { closeReason: 'underfunded', refunds: [{ reason: 'underfunded', asset: 'x', amount: 1n, cost: 0n, to: EVM, txId: 't', at: 0 }] }, 'refunded'],
    ['stalled', {}, 'failed'],
    ['frozen', {}, 'failed'],
  ];
  it.each(cases)('stage %s (%o) → %s', async (stage, patch, status) => {
    const created = await h.order(await orderBody());
    const o = created.body.orderId as string;
    const order = h.world.orders.get(o)!;
    const fixed = { ...patch } as Record<string, unknown>;
    if (Array.isArray(fixed.refunds)) fixed.refunds = (fixed.refunds as Array<Record<string, unknown>>).map((r) => ({ ...r, asset: order.from }));
    h.world.update(o, { stage, ...fixed });
    const r = await h.get(o);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe(status);
  });
  it('raw amounts with ?amountFormat=raw; a malformed id → 400; unknown → 404', async () => {
    const created = await h.order(await orderBody());
    const r = await h.get(created.body.orderId, '?amountFormat=raw');
    expect(r.body.amountToSend).toBe('1000000000');
    expect((await h.get('nope')).status).toBe(400);
    expect((await h.get('6f9619ff-8b86-4011-b42d-00c04fc964ff')).body.error.code).toBe('not_found');
  });
});
