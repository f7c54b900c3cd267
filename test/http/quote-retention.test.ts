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

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_QUOTE_RETENTION_MS: String(RETENTION_MS), ROUTER_QUOTE_SWEEP_MS: '100', ROUTER_IDLE_MS: '100' });
});
afterAll(async () => svc.stop());

describe('Bounded storage: never-bound quotes are deleted after expiry plus the retention; bound quotes stay', () => {
  it('an unbound quote past expiry + retention is deleted, a bound one and its order stay, a fresh one stays', async () => {
    const unbound = await svc.post('/quote', QUOTE);
    const bound = await svc.post('/quote', QUOTE);
    expect([unbound.status, bound.status]).toEqual([200, 200]);
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

    expect((await store.load('quote', bound.body.id))?.status).toBe('bound');
    expect(await store.load('quote', fresh.body.id)).not.toBeNull();
    const read = await fetch(`${svc.url}/order/${order.body.id}`);
    expect(read.status).toBe(200);
    // The order's creation is still answered (a repeat reads the bound quote).
    const again = await svc.post('/order', { quote_id: bound.body.id, to_address: TO, refund_address: REFUND });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(order.body.id);
    // A deleted quote is an unknown quote.
    const late = await svc.post('/order', { quote_id: unbound.body.id, to_address: TO, refund_address: REFUND });
    expect(late.status).toBe(400);
  }, 30_000);
});
