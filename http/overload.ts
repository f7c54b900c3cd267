// What one process takes before it refuses work: a cap of quotes in flight (load shedding, 503) and a token bucket per
// remote address (rate limit, 429). Both refuse at once, before any body is read or actor reached, so a flood costs
// the process almost nothing and `/health` keeps answering. One guard is shared by every family's app of a process:
// the cap is the process's capacity, and a client is one client whichever port it uses.
import type Koa from 'koa';
import { HttpError } from './http-error.js';

export interface RateLimit {
  /** Tokens refilled per minute. */
  perMinute: number;
  /** Tokens a bucket holds at most (the burst a quiet client may send at once). */
  burst: number;
  /** Addresses tracked at most; the least recently seen is forgotten first. */
  maxClients: number;
}

export interface EdgeGuardOptions {
  /** POST /quote requests in flight at most; 0 = no cap. */
  maxQuotesInFlight: number;
  /** Retry-After (seconds) of a shed quote. */
  shedRetryAfterSeconds: number;
  /** Quotes are also shed while the event loop lags more than this (ms); 0 = never on lag. */
  maxEventLoopDelayMs: number;
  /** Quotes admitted in one turn of the event loop at most; 0 = no bound. */
  maxAdmissionsPerTurn: number;
  /** Milliseconds one turn of the event loop may run admitting quotes (from its first admission); 0 = no budget. */
  maxTurnMs: number;
  /** null = no rate limit. */
  rateLimit: RateLimit | null;
  /** Milliseconds, monotonic enough for refills; defaults to performance.now. */
  now?: () => number;
}

/** Why a request was refused: the cap of quotes in flight, the event loop's lag, the per-turn admission bound
 *  (all 503), or the caller's rate limit (429). */
export type RefusalReason = 'cap' | 'lag' | 'turn' | 'rate_limited';

export interface EdgeGuardHooks {
  /** Told of each refusal (metrics count them by reason). */
  refused?(reason: RefusalReason): void;
}

export interface EdgeGuard {
  /** Runs a quote's ask of its actor (what waits on venues) in a slot, or refuses with 503 and Retry-After. Taken once
   *  the request's body is read and checked: a client sending its body slowly, or a body refused, holds no slot. */
  quoteSlot<T>(run: () => Promise<T>): Promise<T>;
  /** App middleware: one token of the caller's bucket per request (`/health` exempt), or 429 and Retry-After. */
  rateLimit: Koa.Middleware;
  /** Quotes holding a slot now. */
  inFlight(): number;
  /** Addresses with a bucket now (bounded by `maxClients`). */
  trackedClients(): number;
  /** The event loop's recent lag (ms) as the shedding sees it; 0 when lag shedding is off. */
  eventLoopDelayMs(): number;
}

/** Liveness probes must never be refused: a limited probe would get a healthy process killed. */
const EXEMPT_PATHS = new Set(['/health']);

/** Whether a path is exempt as the router matches it: case-insensitively and with or without trailing slashes. */
const isExempt = (path: string) => EXEMPT_PATHS.has(path.toLowerCase().replace(/\/+$/, ''));

/** Quotes a turn admits whatever its budget: a GC pause inside a turn of a few clients' quotes is no burst, and
 *  shedding them would refuse a load the process serves easily. */
export const TURN_BUDGET_FLOOR = 16;

export function createEdgeGuard(opts: EdgeGuardOptions, hooks: EdgeGuardHooks = {}): EdgeGuard {
  const now = opts.now ?? (() => performance.now());
  const cap = opts.maxQuotesInFlight;
  let inFlight = 0;

  const lag = opts.maxEventLoopDelayMs > 0 ? createLagMeter(now) : null;
  const perTurn = opts.maxAdmissionsPerTurn;
  const turnBudgetMs = opts.maxTurnMs;
  // The turn of the event loop that admitted a quote: how many it admitted and when it admitted the first. Reset by an
  // immediate, which runs once the turn's I/O callbacks (and the CPU work they started) are done.
  let admittedThisTurn = 0;
  let turnStartedAt = 0;
  const quoteSlot = async <T>(run: () => Promise<T>): Promise<T> => {
    // The cap bounds what waits on venues; the lag bounds what waits on the CPU, which the cap cannot see: with instant
    // venues a few dozen quotes already keep the loop busy for seconds, and /health waits behind them. The lag shows
    // only once the loop has turned, so a burst that arrives in one turn is bounded per turn.
    const refusal: RefusalReason | null =
      cap > 0 && inFlight >= cap
        ? 'cap'
        : lag !== null && lag.delayMs() > opts.maxEventLoopDelayMs
          ? 'lag'
          : (perTurn > 0 && admittedThisTurn >= perTurn) ||
              (turnBudgetMs > 0 && admittedThisTurn >= TURN_BUDGET_FLOOR && now() - turnStartedAt > turnBudgetMs)
            ? 'turn'
            : null;
    if (refusal !== null) {
      hooks.refused?.(refusal);
      throw new HttpError(503, `The router is answering as many quotes as it can; retry in ${opts.shedRetryAfterSeconds} s.`, {
        'Retry-After': String(opts.shedRetryAfterSeconds),
      });
    }
    inFlight += 1;
    if ((perTurn > 0 || turnBudgetMs > 0) && admittedThisTurn++ === 0) {
      turnStartedAt = now();
      setImmediate(() => {
        admittedThisTurn = 0;
      });
    }
    try {
      return await run();
    } finally {
      inFlight -= 1;
    }
  };

  const buckets = opts.rateLimit ? createBuckets(opts.rateLimit, now) : null;
  const rateLimit: Koa.Middleware = async (ctx, next) => {
    if (buckets && !isExempt(ctx.path)) {
      const wait = buckets.take(ctx.ip);
      if (wait > 0) {
        hooks.refused?.('rate_limited');
        throw new HttpError(429, `Too many requests from this address; retry in ${wait} s.`, { 'Retry-After': String(wait) });
      }
    }
    await next();
  };

  return { quoteSlot, rateLimit, inFlight: () => inFlight, trackedClients: () => buckets?.size() ?? 0, eventLoopDelayMs: () => lag?.delayMs() ?? 0 };
}

/** How late a timer that should fire every LAG_TICK_MS runs, as the least late of the last LAG_TICKS ticks: a loop
 *  kept busy makes every tick late (and /health's answer with them), while one pause (a GC, a compile) makes one tick
 *  late and sheds nothing. */
const LAG_TICK_MS = 20;
const LAG_TICKS = 5;

function createLagMeter(now: () => number): { delayMs(): number } {
  let last = now();
  const lags: number[] = new Array<number>(LAG_TICKS).fill(0);
  let i = 0;
  const timer = setInterval(() => {
    const t = now();
    lags[i] = Math.max(0, t - last - LAG_TICK_MS);
    i = (i + 1) % LAG_TICKS;
    last = t;
  }, LAG_TICK_MS);
  // The meter never keeps a process alive (tests, a draining service).
  timer.unref();
  return { delayMs: () => Math.min(...lags) };
}

/** No cap and no limit: apps built without a guard (tests, tools) behave as before. */
export const UNGUARDED: EdgeGuard = createEdgeGuard({ maxQuotesInFlight: 0, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: null });

interface Bucket {
  tokens: number;
  at: number;
}

export interface Buckets {
  /** Takes one token of `client`'s bucket: 0 when taken, else the whole seconds until one is there. */
  take(client: string): number;
  size(): number;
}

/**
 * Token buckets in a Map kept in least-recently-seen order (a touched bucket moves to the end). Memory stays bounded
 * two ways without a timer: each call drops up to two buckets at the front that have refilled to full (a full bucket
 * is the same as none), and past `maxClients` the least recently seen is dropped.
 */
export function createBuckets(limit: RateLimit, now: () => number): Buckets {
  const perMs = limit.perMinute / 60_000;
  const fillMs = limit.burst / perMs;
  const buckets = new Map<string, Bucket>();

  const evictIdle = (t: number) => {
    for (let i = 0; i < 2; i++) {
      const first = buckets.entries().next();
      if (first.done) return;
      const [key, b] = first.value;
      if (t - b.at < fillMs) return;
      buckets.delete(key);
    }
  };

  return {
    take(client) {
      const t = now();
      evictIdle(t);
      const b = buckets.get(client);
      let tokens = limit.burst;
      if (b) {
        tokens = Math.min(limit.burst, b.tokens + (t - b.at) * perMs);
        buckets.delete(client);
      } else if (buckets.size >= limit.maxClients) {
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      if (tokens >= 1) {
        buckets.set(client, { tokens: tokens - 1, at: t });
        return 0;
      }
      buckets.set(client, { tokens, at: t });
      return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    },
    size: () => buckets.size,
  };
}
