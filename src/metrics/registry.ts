// One Prometheus registry per process (never prom-client's global one: tests run many services in one process),
// with every metric the router exports. The wrappers beside this file (store, bus, venues, HTTP) feed it; gauges
// that are cheaper to read than to track (orders by status, actors in memory) are read when Prometheus scrapes.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HotHistogram } from './hot-series.js';

/** Which process exports the figures: the `role` label every series carries. */
export type MetricsRole = 'embedded' | 'worker' | 'edge';

/** Seconds: from a loopback echo (under 1 ms) to a multi-hop optimal quote (tens of seconds). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a venue's answer, up to the optimal deadline of 10 s. */
const VENUE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2.5, 5, 10];
/** Seconds: one durable transaction, from a page-cache write (0.1 ms) to a slow fsync. */
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<'family' | 'method' | 'route' | 'status'>;
  readonly quoteDuration: Histogram<'search' | 'outcome'>;
  /** Venue answers (labels `venue`, `outcome`): `router_venue_quote_duration_seconds` and `router_venue_quotes_total`,
   *  kept outside prom-client because a quote records over a hundred of them. */
  readonly venueAnswers: HotHistogram;
  readonly storeWriteDuration: Histogram<'op'>;
  readonly storeTransactions: Counter<'op' | 'outcome'>;
  readonly busRequestDuration: Histogram<'kind' | 'command' | 'outcome'>;
  readonly actorsPassivated: Counter<'kind'>;
  readonly leaseRenewals: Counter<'outcome'>;
  readonly shardMoves: Counter<'direction'>;
  /** Requests the edge guard refused, by reason (cap, lag, turn: 503; rate_limited: 429). */
  readonly requestsRefused: Counter<'reason'>;
  /** Reads the quotes holding a slot of the cap at each scrape. */
  observeQuotesInFlight(read: () => number): void;
  /** Reads the number of actors in memory at each scrape. */
  observeActorsInMemory(read: () => number): void;
  /** Reads the number of shards this worker holds at each scrape. */
  observeShardsOwned(read: () => number): void;
  /** Reads the orders per status from the store at each scrape (one grouped count of the store). */
  observeOrders(read: () => Promise<ReadonlyArray<{ status: string | null; count: number }>>): void;
  /** The exposition: Prometheus text format and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(opts: { role: MetricsRole; defaultMetrics?: boolean }): Metrics {
  const registry = new Registry();
  const defaultLabels = { role: opts.role };
  registry.setDefaultLabels(defaultLabels);
  const venueAnswers = new HotHistogram(
    'router_venue_quote_duration_seconds',
    "Time a venue took to answer a quote, by venue and outcome; timed_out: it gave up on the deadline's abort signal.",
    VENUE_BUCKETS,
    { name: 'router_venue_quotes_total', help: 'Venue quote answers by venue and outcome (quoted, failed, timed_out).' },
  );
  // Process metrics (CPU, memory, event loop lag, GC, handles); unit tests of the wrappers leave them off.
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  let actorsInMemory: (() => number) | null = null;
  let shardsOwned: (() => number) | null = null;
  let quotesInFlight: (() => number) | null = null;
  let orders: (() => Promise<ReadonlyArray<{ status: string | null; count: number }>>) | null = null;

  new Gauge({
    name: 'router_actors_in_memory',
    help: 'Actors (quotes and orders) held in memory by this process; the others are passivated in the store.',
    registers,
    collect() {
      if (actorsInMemory) this.set(actorsInMemory());
    },
  });
  new Gauge({
    name: 'router_shards_owned',
    help: 'Shards whose lease this worker holds.',
    registers,
    collect() {
      if (shardsOwned) this.set(shardsOwned());
    },
  });
  new Gauge({
    name: 'router_quotes_in_flight',
    help: 'POST /quote requests holding a slot of ROUTER_MAX_QUOTES_IN_FLIGHT in this process.',
    registers,
    collect() {
      if (quotesInFlight) this.set(quotesInFlight());
    },
  });
  new Gauge<'status'>({
    name: 'router_orders',
    help: 'Orders in the store by Family A status, counted at scrape time (the whole store: every worker sharing it reports the same figures).',
    labelNames: ['status'],
    registers,
    async collect() {
      if (!orders) return;
      this.reset();
      for (const row of await orders()) this.set({ status: row.status ?? 'none' }, row.count);
    },
  });

  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'router_http_request_duration_seconds',
      help: 'HTTP requests by family, method, matched route template and status, from the first byte handled to the answer.',
      labelNames: ['family', 'method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    quoteDuration: new Histogram({
      name: 'router_quote_duration_seconds',
      help: 'Routing of one quote (every venue asked, paths priced, best picked), by search (exact_input, exact_output) and outcome (quoted, none, error).',
      labelNames: ['search', 'outcome'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    venueAnswers,
    storeWriteDuration: new Histogram({
      name: 'router_store_write_duration_seconds',
      help: 'Durable store writes by operation (save, create_numbered, next_sequence, put_key, purge), each one transaction.',
      labelNames: ['op'],
      buckets: STORE_BUCKETS,
      registers,
    }),
    storeTransactions: new Counter({
      name: 'router_store_transactions_total',
      help: 'Durable store transactions by operation and outcome (ok, conflict: version or fencing check refused, error).',
      labelNames: ['op', 'outcome'],
      registers,
    }),
    busRequestDuration: new Histogram({
      name: 'router_bus_request_duration_seconds',
      help: 'Requests this process sent over the bus to an actor, by actor kind, command and outcome (ok or the error code).',
      labelNames: ['kind', 'command', 'outcome'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    actorsPassivated: new Counter({
      name: 'router_actors_passivated_total',
      help: 'Actors that left memory after being idle (passivation), by kind.',
      labelNames: ['kind'],
      registers,
    }),
    leaseRenewals: new Counter({
      name: 'router_lease_renewals_total',
      help: 'Shard lease renewals by outcome (ok, failed).',
      labelNames: ['outcome'],
      registers,
    }),
    shardMoves: new Counter({
      name: 'router_shard_moves_total',
      help: 'Shards this worker started serving (acquired) or stopped serving (released: given up, lost or shut down).',
      labelNames: ['direction'],
      registers,
    }),
    requestsRefused: new Counter({
      name: 'router_requests_refused_total',
      help: 'Requests refused before any work, by reason: cap (quotes in flight), lag (event loop delay), turn (admissions per loop turn), all 503; rate_limited (429).',
      labelNames: ['reason'],
      registers,
    }),
    observeQuotesInFlight(read) {
      quotesInFlight = read;
    },
    observeActorsInMemory(read) {
      actorsInMemory = read;
    },
    observeShardsOwned(read) {
      shardsOwned = read;
    },
    observeOrders(read) {
      orders = read;
    },
    async scrape() {
      return { contentType: registry.contentType, body: `${await registry.metrics()}\n${venueAnswers.exposition(defaultLabels)}` };
    },
  };
}

/** Seconds since `t0` (a `performance.now()` reading). */
export function secondsSince(t0: number): number {
  return (performance.now() - t0) / 1000;
}
