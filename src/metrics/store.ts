// An ActorStore that times its durable writes and counts its transactions, around any adapter (SQLite, MongoDB).
// Every other method passes through untouched, so an adapter's new methods need nothing here.
import { SnapshotConflict } from '../errors.js';
import type { ActorStore } from '../store/types.js';
import { secondsSince, type Metrics } from './registry.js';

type WriteOp = 'save' | 'next_sequence' | 'put_key';

export function instrumentStore(store: ActorStore, metrics: Metrics): ActorStore {
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
    save: (actor) => timed('save', () => store.save(actor)),
    nextSequence: (name) => timed('next_sequence', () => store.nextSequence(name)),
    putKey: (space, key, value) => timed('put_key', () => store.putKey(space, key, value)),
  };
}

/** Orders by status, read from the store's grouped counts when Prometheus scrapes. */
export function observeOrdersOf(store: Pick<ActorStore, 'counts'>, metrics: Metrics): void {
  metrics.observeOrders(async () => (await store.counts()).filter((row) => row.kind === 'order'));
}
