// An order's creation through the embedded service: the quote's bind and the order's first snapshot are committed
// together, and a bind the store refuses (another writer advanced the quote) leaves no order stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/service.js';

const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => svc.stop());

const quote = async (): Promise<string> => {
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
  expect(q.status).toBe(200);
  return q.body.id as string;
};

const orders = async () => (await svc.service.store.list({ kind: 'order', limit: 1000 })).map((o) => o.id);

describe('order creation: one durable commit', () => {
  it('POST /order commits the quote\'s bind and the order\'s first snapshot in one transaction', async () => {
    const id = await quote();
    const before = svc.service.store.stats();
    const o = await svc.post('/order', { quote_id: id, to_address: EVM });
    expect(o.status).toBe(201);
    const after = svc.service.store.stats();
    expect(after.writes - before.writes).toBe(2);
    expect(after.commits - before.commits).toBe(1);
    const stored = await svc.service.store.load('quote', id);
    expect(stored?.status).toBe('bound');
    expect(await orders()).toContain(o.body.id);
  });

  it('a bind the store refuses creates no order: 503, and the retry creates the one order the quote binds', async () => {
    const id = await quote();
    // Another writer (a worker that took the quote's shard over) advances the stored quote behind this host's copy.
    const stored = (await svc.service.store.load('quote', id))!;
    await svc.service.store.save({ ...stored, expectedVersion: stored.version, updatedAt: stored.updatedAt + 1 });
    const known = await orders();

    const refused = await svc.post('/order', { quote_id: id, to_address: EVM });
    expect(refused.status).toBe(503);
    expect(await orders()).toEqual(known);
    expect((await svc.service.store.load('quote', id))!.status).toBe(stored.status);

    const created = await svc.post('/order', { quote_id: id, to_address: EVM });
    expect(created.status).toBe(201);
    expect((await orders()).filter((o) => !known.includes(o))).toEqual([created.body.id]);
    expect((await svc.service.store.load('quote', id))!.status).toBe('bound');
  });
});
