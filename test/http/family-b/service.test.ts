// Family B through the real embedded service (actors, store, simulated chains): the scenarios of
// test/support/family-b-scenarios.ts (which run through a cluster too), then what only the embedded service shows:
// the gateway secret's file, a cancel of a delivered order, cancelAfter on the dev clock, idempotency, Family A orders
// read through B, the router's candidates, and cancels that unwind a frozen order.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyBClient, familyBScenarios, SENDER, TO, authorizer } from '../../support/family-b-scenarios.js';
import { startService, type RunningService } from '../../support/service.js';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50' });
});
afterAll(async () => svc.stop());

const deployment = () => ({ url: svc.url, urlB: svc.urlB, devUrl: svc.devUrl, now: () => svc.service.clock.now() });
familyBScenarios('over the embedded service', deployment, { waitMs: 10_000 });

const { postB, getB, getA, deposit, untilB, orderB, cancelSignature } = familyBClient(deployment, 10_000);

describe('The generated gateway secret', () => {
  it('is private (0600) in the data dir', () => {
    expect(statSync(join(svc.dataDir, 'gateway-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('Cancel of a delivered order', () => {
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

describe('Cancel while the deposit is still confirming: the deposit is owed back', () => {
  it('refund_pending (not cancelled) until the deposit confirms, then refunded to the sender', async () => {
    const btcSender = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const q = await postB('/quote', { from: 'bitcoin.btc', to: 'arbitrum.usdc', fromAmount: '0.5' });
    expect(q.status).toBe(200);
    const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: btcSender, toAddress: TO, refundMode: 'token' });
    expect(o.status).toBe(201);
    const seen = await svc.post(`${svc.devUrl}/deposits`, { to: o.body.orderAddress, asset: 'bitcoin.btc', amount: '0.5', from: btcSender });
    expect(seen.status).toBe(201);
    // One block of the two bitcoin deposits need: seen in full, not yet spendable.
    expect((await svc.post(`${svc.devUrl}/clock/advance`, { ms: 600_000 })).status).toBe(200);
    expect((await untilB(o.body.orderId, ['funded'])).status).toBe('funded');
    const r = await postB(`/order/${o.body.orderId}/cancel`, { refundToken: o.body.refundToken });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('refund_pending');
    expect((await getB(o.body.orderId)).status).toBe('refund_pending');
    expect((await svc.post(`${svc.devUrl}/clock/advance`, { ms: 600_000 })).status).toBe(200);
    const refunded = await untilB(o.body.orderId, ['refunded']);
    expect(refunded.status).toBe('refunded');
    const a = await getA(o.body.orderId);
    expect(a.refunds.map((x: { to_address: string }) => x.to_address)).toEqual([btcSender]);
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
      await deposit(o.body.orderAddress, '5000', 'robinhood.usdg');
      expect((await untilB(o.body.orderId, ['failed'])).status).toBe('failed');
      const deadline = Math.floor(svc.service.clock.now() / 1000) + 300;
      const signature = await cancelSignature(o.body.orderId, deadline);
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
