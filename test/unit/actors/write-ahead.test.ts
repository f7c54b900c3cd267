// An effect starts only once the snapshot of the state that started it is stored (actors/write-ahead.ts). Two ways
// a transition's write never lands: a worker whose shard lease lapsed (its write is refused) and a process killed
// before its commit. Its effects must then move nothing: the next owner restores the earlier snapshot and may take
// another way (a cancel first, a durable cancel fallen due), under the same refund keys with other amounts, which a
// keyed ledger would answer with the first transfer while the order booked the second. Two workers share one store and
// one ledger, as in a cluster.
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../actors/runtime.js';
import { orderKind } from '../../../actors/kinds/order.js';
import { quoteKind } from '../../../actors/kinds/quote.js';
import { openSimChains } from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/log.js';
import { holdingAccount } from '../../../src/orders/money.js';
import { createRouter } from '../../../src/routing/index.js';
import { roundTrip } from '../../../src/store/codec.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { createVaults, parseSeed } from '../../../src/vaults/index.js';
import { createSimMarket } from '../../../src/venues/index.js';
import { quoteRequest } from '../../support/fixtures.js';
import { waitUntil } from '../../support/poll.js';
import { ORDER_TERMS_A, type OrderView } from '../../../src/orders/types.js';
import type { ActorStore } from '../../../src/store/types.js';
import type { Quote } from '../../../src/quotes/types.js';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CLIENT = '0x000000000000000000000000000000000000dEaD';
const REFUND_TO = '0x1111111111111111111111111111111111111111';
const TO = '0x2222222222222222222222222222222222222222';

async function twoWorkers() {
  const clock = new ManualClock(undefined, Date.parse('2026-11-22T10:00:00Z'));
  const store = openSqliteStore(':memory:'); // the shared store (MongoDB / the shared SQLite file in a cluster)
  const chains = openSimChains({ file: ':memory:', clock, pollMs: 0 }); // the shared ledger
  const vaults = createVaults({ seed: parseSeed(SEED), sequences: store });
  let crashed = false;
  // The store as the first process sees it: once it "crashes" (SIGKILL), none of its writes reaches the disk.
  const dying: ActorStore = new Proxy(store, {
    get(target, p, receiver) {
      if (p === 'save') return (x: Parameters<ActorStore['save']>[0]) => (crashed ? new Promise<never>(() => {}) : target.save(x));
      const v: unknown = Reflect.get(target, p, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const worker = (epochOf: () => number | null, st: ActorStore = store): Runtime => {
    const market = createSimMarket({ seed: 7, latencyScale: 0, failures: false }); // each worker has its own venues
    const router = createRouter({ market, deadlines: { fast: 200, optimal: 200 }, pathLimit: 16 });
    return createRuntime({
      store: st, clock, logger: createLogger('silent'), epochOf,
      kinds: [
        quoteKind({ router, prices: market, clock }),
        orderKind({ clock, vaults, chains, market, router, policy: { maxAttempts: 3, backoffMs: 1000, shortfallToleranceBps: 100 } }),
      ],
    });
  };
  let epochA: number | null = 1;
  const a = worker(() => epochA);
  const b = worker(() => 2);
  const restarted = () => worker(() => 2);
  const mortal = worker(() => 1, dying);
  return { clock, store, chains, a, b, mortal, restarted, goStale: () => (epochA = null), crash: () => (crashed = true) };
}

const ask = async <T>(rt: Runtime, kind: 'order' | 'quote', id: string, message: Record<string, unknown> & { type: string }) =>
  (await rt.handle({ ref: { kind, id }, message: roundTrip(message) })) as { ok: true; value: T } | { ok: false; error: { code: string } };

/** Lets effects started by a refused or lost write run, if they were going to: a few turns of the event loop. */
const settle = () => new Promise((r) => setTimeout(r, 50));
const movedFor = async (chains: { transfers(f: { chain?: 'base' }): Promise<Array<{ key: string }>> }, order: string) =>
  (await chains.transfers({})).filter((t) => t.key.startsWith(`${order}:`)).map((t) => t.key);

describe('an effect waits for the snapshot that started it to be stored', () => {
  it('a worker whose lease lapsed moves nothing for a transition it could not store; the next owner cancels and refunds all of it', async () => {
    const w = await twoWorkers();
    const q = await ask<Quote>(w.a, 'quote', 'q1', { type: 'quote.request', request: quoteRequest({ amountIn: 1_000_000_000n }) });
    expect(q.ok).toBe(true);
    const quote = (q as { value: Quote }).value;
    const created = await ask<OrderView>(w.a, 'order', 'o1', { type: 'order.create', quote, toAddress: TO, refundAddress: REFUND_TO });
    const order = (created as { value: OrderView }).value;
    // 1.5 units sent for a 1-unit order; seen (unconfirmed) by worker A, which holds the shard (epoch 1).
    const dep = await w.chains.simulateDeposit({ chain: 'base', asset: quote.route.from, from: CLIENT, to: order.depositAddress, amount: 1_500_000_000n });
    const deposit = { type: 'deposit', txId: dep.txId, from: CLIENT, amount: 1_500_000_000n, required: 1 };
    expect((await ask<OrderView>(w.a, 'order', 'o1', { ...deposit, confirmations: 0 })).ok).toBe(true);

    // A's lease passes 80 % of its TTL without a renewal (epochOf → null) while A still serves the shard subject
    // (lose() only runs at its next lease round). The deposit feed's confirmation reaches A.
    w.goStale();
    const onA = await ask<OrderView>(w.a, 'order', 'o1', { ...deposit, confirmations: 1 });
    expect(onA.ok).toBe(false); // the write was refused (fencing) ...
    await settle();
    expect(await movedFor(w.chains, 'o1')).toEqual([]); // ... and the effects of that transition moved nothing.

    // The new owner B (epoch 2) restores the order from the last stored snapshot (funded, unconfirmed) and gets the
    // client's cancel first (the retried confirmation would come after).
    const cancel = await ask<OrderView>(w.b, 'order', 'o1', { type: 'order.unwind' });
    expect(cancel.ok).toBe(true);
    // The deposit feed tells the confirmation again (A's telling failed, so its cursor did not move): B refunds it.
    expect((await ask<OrderView>(w.b, 'order', 'o1', { ...deposit, confirmations: 1 })).ok).toBe(true);
    await waitUntil(async () => {
      const r = await ask<OrderView>(w.b, 'order', 'o1', { type: 'order.get' });
      return r.ok && !r.value.refundPending;
    }, "B's refund", 5_000, 5);
    const stored = (await w.store.load('order', 'o1'))!.snapshot as { context: { refunds: Array<{ key: string; sent: bigint; to: string }> } };
    const booked = stored.context.refunds.reduce((s, r) => s + r.sent, 0n);
    const paid = (await w.chains.transfers({ chain: 'base' }))
      .filter((t) => t.key.startsWith('o1:refund:') && !t.key.endsWith(':cost'))
      .reduce((s, t) => s + t.amount, 0n);
    const stranded = (await w.chains.balances({ address: holdingAccount('o1') })).reduce((s, x) => s + x.amount, 0n);
    // What the order says it refunded is what the ledger moved: all of the deposit but the refund's cost, and nothing
    // of the client's is left behind.
    expect(paid).toBe(booked);
    expect(stranded).toBe(0n);
    expect(booked).toBe(1_500_000_000n - BigInt(stored.context.refunds.length) * quote.refundCost);
    expect(await w.chains.transfers({ key: 'o1:0:in' })).toEqual([]);
  });

  it('a process killed before its commit moves nothing for that transition; restarted after a durable cancel fell due, it refunds all of it', async () => {
    const w = await twoWorkers();
    const q = await ask<Quote>(w.mortal, 'quote', 'q1', { type: 'quote.request', request: quoteRequest({ amountIn: 1_000_000_000n }) });
    const quote = (q as { value: Quote }).value;
    const cancelAfter = w.clock.now() + 60_000;
    const terms = { ...ORDER_TERMS_A, family: 'b' as const, cancelAfter };
    const created = await ask<OrderView>(w.mortal, 'order', 'o1', { type: 'order.create', quote, toAddress: TO, refundAddress: REFUND_TO, terms });
    const order = (created as { value: OrderView }).value;
    const dep = await w.chains.simulateDeposit({ chain: 'base', asset: quote.route.from, from: CLIENT, to: order.depositAddress, amount: 1_500_000_000n });
    const deposit = { type: 'deposit', txId: dep.txId, from: CLIENT, amount: 1_500_000_000n, required: 1 };
    expect((await ask<OrderView>(w.mortal, 'order', 'o1', { ...deposit, confirmations: 0 })).ok).toBe(true);
    // The confirmation arrives 1 s before cancelAfter: execution commits, and the process is killed before the commit
    // of that transition's snapshot. Its effects (the excess refund, step 0) would have moved money at once.
    w.clock.advance(59_000);
    w.crash();
    void ask<OrderView>(w.mortal, 'order', 'o1', { ...deposit, confirmations: 1 });
    await settle();
    expect(await movedFor(w.chains, 'o1')).toEqual([]);
    // Restart 2 s later: the feed tells the confirmation again (its cursor never moved); it is now past cancelAfter.
    w.clock.advance(2_000);
    const again = w.restarted();
    expect((await ask<OrderView>(again, 'order', 'o1', { ...deposit, confirmations: 1 })).ok).toBe(true);
    await waitUntil(async () => {
      const r = await ask<OrderView>(again, 'order', 'o1', { type: 'order.get' });
      return r.ok && !r.value.refundPending;
    }, 'the refund after restart', 5_000, 5);
    const stored = (await w.store.load('order', 'o1'))!.snapshot as { context: { refunds: Array<{ sent: bigint }>; closeReason: string } };
    const booked = stored.context.refunds.reduce((s, r) => s + r.sent, 0n);
    const paid = (await w.chains.transfers({ chain: 'base' }))
      .filter((t) => t.key.startsWith('o1:refund:') && !t.key.endsWith(':cost'))
      .reduce((s, t) => s + t.amount, 0n);
    const stranded = (await w.chains.balances({ address: holdingAccount('o1') })).reduce((s, x) => s + x.amount, 0n);
    expect(stored.context.closeReason).toBe('cancelled');
    expect(paid).toBe(booked);
    expect(stranded).toBe(0n);
    expect(booked).toBe(1_500_000_000n - BigInt(stored.context.refunds.length) * quote.refundCost);
  });
});
