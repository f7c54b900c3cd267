// Storage retention: quotes that were never bound to an order leave the store once they expired and a grace period
// passed, so a router that answers quotes all day (most never become orders) keeps a data dir of constant size. A bound
// quote is never deleted: its order reads it. Not an actor: a timer that asks the store to delete in small batches.
// In cluster mode each worker sweeps only the shards it owns, so one process sweeps each shard.
import type { SnapshotFrom } from 'xstate';
import type { quoteMachine } from '../machines/quote.machine.js';
import type { Clock } from '../src/clock.js';
import type { Logger } from '../src/log.js';
import { QUOTE_VALIDITY_MS } from '../src/quotes/types.js';
import type { ActorStore } from '../src/store/types.js';

type QuoteState = Extract<SnapshotFrom<typeof quoteMachine>['value'], string>;

/** Every state of a quote but `bound`: pricing (left by a crash), quoted, expired, refused. */
export const UNBOUND_QUOTE_STATES = ['pricing', 'quoted', 'expired', 'refused'] as const satisfies readonly Exclude<QuoteState, 'bound'>[];

/** Deletions per store call: small enough that a sweep never holds the write lock long. */
export const SWEEP_BATCH = 500;

export interface QuoteJanitorOptions {
  store: Pick<ActorStore, 'purgeStale'>;
  clock: Clock;
  logger: Logger;
  /** How long after its expiry a never-bound quote is kept (ROUTER_QUOTE_RETENTION_MS). */
  retentionMs: number;
  /** The runtime's passivation time (ROUTER_IDLE_MS): a quote is kept at least this long after its last save, so no
   *  quote still in memory loses its row (its next save would be refused as a conflict). */
  idleMs: number;
  /** How often the sweep runs (ROUTER_QUOTE_SWEEP_MS). */
  everyMs: number;
  /** The shards this process sweeps (a worker's owned shards); absent = all (embedded mode, one owner). */
  shards?: () => readonly number[];
}

export interface QuoteJanitor {
  /** Runs one sweep now; resolves with the number of quotes deleted. */
  sweep(): Promise<number>;
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

export function createQuoteJanitor(opts: QuoteJanitorOptions): QuoteJanitor {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  const sweepOnce = async (): Promise<number> => {
    // A quote's last save is when it was priced (or refused): it expires QUOTE_VALIDITY_MS later.
    const updatedBefore = opts.clock.now() - Math.max(QUOTE_VALIDITY_MS + opts.retentionMs, opts.idleMs);
    const shards = opts.shards?.();
    if (shards !== undefined && shards.length === 0) return 0;
    let total = 0;
    for (;;) {
      const n = await opts.store.purgeStale({ kind: 'quote', statuses: UNBOUND_QUOTE_STATES, updatedBefore, limit: SWEEP_BATCH, shards });
      total += n;
      if (n < SWEEP_BATCH) break;
    }
    if (total > 0) opts.logger.info({ deleted: total, updated_before: new Date(updatedBefore).toISOString() }, 'expired quotes deleted');
    return total;
  };

  const sweep = (): Promise<number> => {
    // One sweep at a time: a slow store must not stack sweeps on top of each other.
    running ??= sweepOnce().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    sweep,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        sweep().catch((err: unknown) => opts.logger.warn({ err }, 'quote retention sweep failed; retrying at the next one'));
      }, opts.everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
