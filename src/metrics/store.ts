// An ActorStore that times its durable writes and counts its transactions, around any adapter (SQLite, MongoDB).
// Every other method passes through untouched, so an adapter's new methods need nothing here.
import { SnapshotConflict } from '../errors.js';
import type { ActorStore } from '../store/types.js';
import { secondsSince, type Metrics } from './registry.js';

type WriteOp = 'save' | 'create_numbered' | 'next_sequence' | 'put_key' | 'purge';

/** The adapter's own type comes back (an embedded SQLite store keeps its `stats()`). */
export function instrumentStore<S extends ActorStore>(store: S, metrics: Metrics): S {
  async function timed<T>(op: WriteOp, write: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const out = await write();
      metrics.storeTransactions.inc({ op, outcome: 'ok' });
      return out;
    } catch (err) {
      metrics.storeTransactions.inc({ op, outcome: err instanceof SnapshotConflict ? 'conflict' : 'error' });
      throw err;
    } finally {
      metrics.storeWriteDuration.observe({ op }, secondsSince(t0));
    }
  }
  // The adapters are plain objects of closures, so spreading keeps every method bound to its adapter.
  return {
    ...store,
    save: (actor, opts) => timed('save', () => store.save(actor, opts)),
    createNumbered: (sequence, build, opts) => timed('create_numbered', () => store.createNumbered(sequence, build, opts)),
    nextSequence: (name) => timed('next_sequence', () => store.nextSequence(name)),
    putKey: (space, key, value) => timed('put_key', () => store.putKey(space, key, value)),
    purgeStale: (q) => timed('purge', () => store.purgeStale(q)),
  };
}

/** Orders by status, read from the store's grouped counts when Prometheus scrapes. */
export function observeOrdersOf(store: Pick<ActorStore, 'counts'>, metrics: Metrics): void {
  metrics.observeOrders(async () => (await store.counts()).filter((row) => row.kind === 'order'));
}
