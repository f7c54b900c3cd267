// Family B through the real embedded service (actors, store, simulated chains): quote → order (token mode) → deposit
// via the dev listener → `completed`, read through B and through Family A; cancels by token and by a viem-signed
// EIP-712 CancelOrder; the same cancel again (a client's retry) answers the order.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { CANCEL_DOMAIN, CANCEL_TYPES } from '../../../http/index.js';
import { startService, type RunningService } from '../../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const authorizer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50' });
});
afterAll(async () => svc.stop());

const postB = (path: string, body: unknown) => svc.post(`${svc.urlB}${path}`, body);
const getB = async (id: string) => (await (await fetch(`${svc.urlB}/order/${id}`)).json()) as Record<string, any>;
const getA = async (id: string) => (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>;
const deposit = (to: string, amount: string) => svc.post(`${svc.devUrl}/deposits`, { to, asset: 'base.usdc', amount, from: SENDER });

async function untilB(id: string, statuses: string[], ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const o = await getB(id);
    if (statuses.includes(o.status) || Date.now() > end) return o;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function orderB(extra: Record<string, unknown>, amount = '2500') {
  const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: amount });
  expect(q.status).toBe(200);
  const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, ...extra });
  expect(o.status).toBe(201);
  return { quote: q.body, order: o.body };
}

describe('Family B over the embedded service: quote → order (token mode) → deposit → completed, readable through A', () => {
  it('delivers, and both families show the order', async () => {
    const { quote, order } = await orderB({ refundMode: 'token' });
    expect(order.status).toBe('quoted');
    expect(order.refundToken).toMatch(/^rgt_/);
    expect(order.amountToSend).toBe('2500');
    expect((await deposit(order.orderAddress, '2500')).status).toBe(201);
    const done = await untilB(order.orderId, ['completed']);
    expect(done.status).toBe('completed');
    expect(Number(done.amountOut)).toBeGreaterThanOrEqual(Number(quote.estimatedOut) * 0.99);
    const a = await getA(order.orderId);
    expect(a).toMatchObject({ id: order.orderId, status: 'delivered', deposit_address: order.orderAddress, amount_out: done.amountOut });
  });
  it('the generated gateway secret is private (0600) in the data dir', () => {
    expect(statSync(join(svc.dataDir, 'gateway-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('Cancel by token of an underfunded order: what arrived is refunded', () => {
  it('refund_pending, then refunded', async () => {
    const { order } = await orderB({ refundMode: 'token' });
    await deposit(order.orderAddress, '1000');
    const part = await untilB(order.orderId, ['quoted']);
    expect(part.status).toBe('quoted');
    // Wait until the core has seen the partial deposit (underfunded), then cancel.
    for (let i = 0; i < 200 && (await getA(order.orderId)).status !== 'underfunded'; i++) await new Promise((r) => setTimeout(r, 20));
    const r = await postB(`/order/${order.orderId}/cancel`, { refundToken: order.refundToken });
    expect(r.status).toBe(200);
    expect(['refund_pending', 'refunded']).toContain(r.body.status);
    const end = await untilB(order.orderId, ['refunded']);
    expect(end.status).toBe('refunded');
    expect((await getA(order.orderId)).refunds[0]).toMatchObject({ reason: 'cancelled', to_address: SENDER });
  });
});

describe('Cancel by a viem-signed EIP-712 CancelOrder before the deposit; the same cancel again answers the order', () => {
  it('cancelled, then 200 cancelled again', async () => {
    const { order } = await orderB({ refundAuthorizer: authorizer.address });
    const deadline = Math.floor(svc.service.clock.now() / 1000) + 300;
    const refundSignature = await authorizer.signTypedData({
      domain: CANCEL_DOMAIN, types: CANCEL_TYPES, primaryType: 'CancelOrder', message: { orderId: order.orderId, gateway: 'swap-router', deadline: BigInt(deadline) },
    });
    const r = await postB(`/order/${order.orderId}/cancel`, { refundSignature, refundSignatureDeadline: deadline });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    const again = await postB(`/order/${order.orderId}/cancel`, { refundSignature, refundSignatureDeadline: deadline });
    expect([again.status, again.body.status]).toEqual([200, 'cancelled']);
    expect((await getA(order.orderId)).status).toBe('expired');
  });
  it('a delivered order → 409 conflict with status completed', async () => {
    const { order } = await orderB({ refundMode: 'token' });
    await deposit(order.orderAddress, '2500');
    expect((await untilB(order.orderId, ['completed'])).status).toBe('completed');
    const r = await postB(`/order/${order.orderId}/cancel`, { refundToken: order.refundToken });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'conflict', details: { status: 'completed' } });
  });
});

describe('cancelAfter (market quotes) is a durable timer of the core: an order not funded by then is cancelled', () => {
  it('cancelled once the clock passes cancelAfter', async () => {
    const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '2500', orderType: 'market' });
    expect(q.body).toMatchObject({ orderType: 'market', fees: expect.any(Array), venues: expect.any(Array) });
    const cancelAfter = new Date(svc.service.clock.now() + 60_000).toISOString();
    const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, refundMode: 'token', cancelAfter });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ orderType: 'market', cancelAfter, maxSlippage: '0.01', expectedOut: q.body.estimatedOut });
    expect((await svc.post(`${svc.devUrl}/clock/advance`, { ms: 61_000 })).status).toBe(200);
    expect((await untilB(o.body.orderId, ['cancelled'])).status).toBe('cancelled');
  });
});

describe('Idempotency and Family A orders through the service', () => {
  it('the same key and body → the same order (201, then 200, the same token); another body → 409', async () => {
    const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '2500' });
    const body = { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, refundMode: 'token', idempotencyKey: 'service-key-000000001' };
    const first = await postB('/order/market', body);
    const again = await postB('/order/market', body);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.orderId).toBe(first.body.orderId);
    expect(again.body.refundToken).toBe(first.body.refundToken);
    expect((await postB('/order/market', { ...body, integrator: 'other' })).status).toBe(409);
  });
  it('an order made through Family A reads through B (refundMode null, status quoted)', async () => {
    const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
    const a = await svc.post('/order', { quote_id: q.body.id, to_address: TO });
    const b = await getB(a.body.id);
    expect(b).toMatchObject({ orderId: a.body.id, orderType: 'market_order', status: 'quoted', refundMode: null, orderAddress: a.body.deposit_address });
    // Family A orders have no slippage guard, and B says so instead of showing one at the estimate.
    expect(b).toMatchObject({ maxSlippage: '1', minOut: '0' });
  });
});

describe('includeQuoteCandidates through the real router: single hops and multi-hop routes of its audit', () => {
  it('a multi-hop pair lists its routes, quoted ones with legs', async () => {
    const q = await postB('/quote', { from: 'bitcoin.btc', to: 'arbitrum.usdc', fromAmount: '50000000', includeQuoteCandidates: true, amountFormat: 'raw' });
    expect(q.status).toBe(200);
    const c = q.body.quoteCandidates as Array<Record<string, any>>;
    expect(c.some((x) => x.family === 'multi_hop' && x.status === 'quoted' && x.raw_quote.length >= 2)).toBe(true);
    expect(q.body.route.length).toBeGreaterThanOrEqual(2);
    expect(q.body.route.at(-1).amountOut).toBe(q.body.estimatedOut);
  });
});

describe('Cancel of a frozen order unwinds it: the self-service recovery', () => {
  const halt = (venue: string, halted: boolean) => svc.post(`${svc.devUrl}/venues/${venue}/halt`, { halted });

  it('frozen at the first step (nothing converted): cancel by token refunds the deposit (reason unwind)', async () => {
    const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '300' });
    expect(q.status).toBe(200);
    const venue = q.body.route[0].venue as string;
    const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, refundMode: 'token' });
    expect(o.status).toBe(201);
    expect((await halt(venue, true)).status).toBe(200);
    try {
      await deposit(o.body.orderAddress, '300');
      const failed = await untilB(o.body.orderId, ['failed']);
      expect(failed.status).toBe('failed');
      expect(failed.statusReason).toMatch(/halted/); // the order says why
      expect((await getA(o.body.orderId)).status).toBe('frozen');
      const r = await postB(`/order/${o.body.orderId}/cancel`, { refundToken: o.body.refundToken });
      expect(r.status).toBe(200);
      const refunded = await untilB(o.body.orderId, ['refunded']);
      expect(refunded.status).toBe('refunded');
      expect(refunded.statusReason).toMatch(/unwound/);
      const a = await getA(o.body.orderId);
      expect(a.refunds.map((x: { reason: string; to_address: string }) => [x.reason, x.to_address])).toEqual([['unwind', SENDER]]);
    } finally {
      await halt(venue, false);
    }
  });

  it('frozen after a step converted: cancel by a signed message swaps the funds back through the router and refunds them', async () => {
    // robinhood USDG → bitcoin BTC has no direct venue: two steps; the second venue halts after the first filled.
    const q = await postB('/quote', { from: 'robinhood.usdg', to: 'bitcoin.btc', fromAmount: '5000' });
    expect(q.status).toBe(200);
    expect(q.body.route.length).toBe(2);
    const second = q.body.route[1].venue as string;
    const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', refundAuthorizer: authorizer.address });
    expect(o.status).toBe(201);
    expect((await halt(second, true)).status).toBe(200);
    try {
      await svc.post(`${svc.devUrl}/deposits`, { to: o.body.orderAddress, asset: 'robinhood.usdg', amount: '5000', from: SENDER });
      expect((await untilB(o.body.orderId, ['failed'])).status).toBe('failed');
      const deadline = Math.floor(Date.now() / 1000) + 300;
      const signature = await authorizer.signTypedData({
        domain: CANCEL_DOMAIN, types: CANCEL_TYPES, primaryType: 'CancelOrder',
        message: { orderId: o.body.orderId, gateway: 'swap-router', deadline: BigInt(deadline) },
      });
      const r = await postB(`/order/${o.body.orderId}/cancel`, { refundSignature: signature, refundSignatureDeadline: deadline });
      expect(r.status).toBe(200);
      const end = await untilB(o.body.orderId, ['refunded'], 20_000);
      expect(end.status).toBe('refunded');
      const a = await getA(o.body.orderId);
      expect(a.refunds.map((x: { reason: string; to_address: string }) => [x.reason, x.to_address])).toEqual([['unwind', SENDER]]);
      expect(Number(a.refunds[0].amount)).toBeGreaterThan(4900); // back in robinhood USDG, less the two ways' costs
    } finally {
      await halt(second, false);
    }
  });
});
