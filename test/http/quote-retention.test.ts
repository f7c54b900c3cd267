// Bounded storage through the real embedded service: quotes never bound to an order are deleted once they expired and
// the retention passed; a bound quote is never deleted (its order still reads it), and neither is a fresh one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTE_VALIDITY_MS } from '../../src/quotes/types.js';
import { waitUntil } from '../support/poll.js';
import { startService, type RunningService } from '../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const REFUND = '0x000000000000000000000000000000000000dEaD';
const RETENTION_MS = 60_000;
const QUOTE = { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: false, include_candidates: true };
const QUOTE_B = { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '2500' };
const QUOTE_C = {
  type: 'EXACT_INPUT',
  from: { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 } },
  to: { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 } },
  amount: '2500000000',
  slippageBps: 50,
};

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_QUOTE_RETENTION_MS: String(RETENTION_MS), ROUTER_QUOTE_SWEEP_MS: '100', ROUTER_IDLE_MS: '100' });
});
afterAll(async () => svc.stop());

describe('Bounded storage: never-bound quotes are deleted after expiry plus the retention; bound quotes stay', () => {
  it('an unbound quote past expiry + retention is deleted (then unknown: A 400, B and C 404), a bound one and its order stay, a fresh one stays', async () => {
    const unbound = await svc.post('/quote', QUOTE);
    const bound = await svc.post('/quote', QUOTE);
    const unboundB = await svc.post(`${svc.urlB}/quote`, QUOTE_B);
    const unboundC = await svc.post(`${svc.urlC}/quote`, QUOTE_C);
    expect([unbound.status, bound.status, unboundB.status, unboundC.status]).toEqual([200, 200, 200, 200]);
    const order = await svc.post('/order', { quote_id: bound.body.id, to_address: TO, refund_address: REFUND });
    expect(order.status).toBe(201);
    const store = svc.service.store;
    expect(await store.load('quote', unbound.body.id)).not.toBeNull();

    // Just before the cut-off nothing goes: expired, but still within the retention.
    await svc.service.clock.advance(QUOTE_VALIDITY_MS + RETENTION_MS - 5_000);
    await new Promise((r) => setTimeout(r, 400));
    expect(await store.load('quote', unbound.body.id)).not.toBeNull();

    await svc.service.clock.advance(10_000);
    const fresh = await svc.post('/quote', QUOTE);
    expect(fresh.status).toBe(200);
    await waitUntil(async () => (await store.load('quote', unbound.body.id)) === null, 'the unbound quote to be deleted', 5_000);
    await waitUntil(async () => (await store.load('quote', unboundB.body.quoteId)) === null, 'the unbound Family B quote to be deleted', 5_000);
    await waitUntil(async () => (await store.load('quote', unboundC.body.id)) === null, 'the unbound Family C quote to be deleted', 5_000);

    expect((await store.load('quote', bound.body.id))?.status).toBe('bound');
    expect(await store.load('quote', fresh.body.id)).not.toBeNull();
    const read = await fetch(`${svc.url}/order/${order.body.id}`);
    expect(read.status).toBe(200);
    // The order's creation is still answered (a repeat reads the bound quote).
    const again = await svc.post('/order', { quote_id: bound.body.id, to_address: TO, refund_address: REFUND });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(order.body.id);
    // A deleted quote is an unknown quote, answered in each family as an id never issued: A 400, B and C 404.
    const late = await svc.post('/order', { quote_id: unbound.body.id, to_address: TO, refund_address: REFUND });
    expect(late.status).toBe(400);
    const never = '00000000-0000-4000-8000-000000000000';
    const orderB = (quoteId: string) => svc.post(`${svc.urlB}/order/market`, { quoteId, fromAddress: REFUND, toAddress: TO, refundMode: 'token' });
    const orderC = (id: string) => svc.post(`${svc.urlC}/order/market`, { id, destinationAddress: TO, refundAddress: REFUND, senderAddress: REFUND });
    for (const [late, unknown] of [
      [await orderB(unboundB.body.quoteId), await orderB(never)],
      [await orderC(unboundC.body.id), await orderC(never)],
    ] as const) {
      expect(late.status).toBe(404);
      expect(late.body.error.code).toBe('not_found');
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    }
  }, 30_000);
});
