// An actor host for tests: SQLite in memory, a manual clock, a silent logger, the alwaysReplay mode by default.
import { createRuntime, quoteKind, type Runtime } from '../../actors/index.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { ActorStore } from '../../src/store/types.js';
import type { ExactOutputRequest, ExactOutputResult, RouteRequest, RoutingResult } from '../../src/routing/types.js';
import { USD_ONE } from '../../src/venues/prices.js';

export interface TestHost {
  runtime: Runtime;
  store: ActorStore;
  clock: ManualClock;
  close(): Promise<void>;
}

export function testHost(opts: {
  route: (req: RouteRequest) => Promise<RoutingResult>;
  /** Exact-output pricing; absent, an exact-output quote fails its pricing (refused). */
  exactOutput?: (req: ExactOutputRequest) => Promise<ExactOutputResult>;
  alwaysReplay?: boolean;
  store?: ActorStore;
  start?: number;
}): TestHost {
  const store = opts.store ?? openSqliteStore(':memory:');
  const clock = new ManualClock(undefined, opts.start ?? Date.parse('2026-11-22T10:00:00Z'));
  const logger = createLogger('silent');
  const runtime = createRuntime({
    store,
    clock,
    logger,
    kinds: [
      quoteKind({
        // routeBest is route() with its audit unread: the quote kind drops it when no candidates were asked for.
        router: { route: opts.route, routeBest: opts.route, exactOutput: opts.exactOutput ?? (() => Promise.reject(new Error('this test host prices exact input only'))) },
        // Every asset at one dollar: these hosts test the quote actor, not fee arithmetic.
        prices: { usdPrice: () => USD_ONE },
        clock,
      }),
    ],
    alwaysReplay: opts.alwaysReplay ?? true,
  });
  return {
    runtime,
    store,
    clock,
    async close() {
      await runtime.drain();
      await store.close();
    },
  };
}
