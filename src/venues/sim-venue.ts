// One simulated venue: answers quotes after a seeded log-normal latency (or fails, or never answers), and
// executes idempotently by key at the current market price. The market (sim-market.ts) owns the shared state.
import { createHash } from 'node:crypto';
import type { Asset, AssetId } from '../assets/types.js';
import { VenueFailed } from '../errors.js';
import type { VenueSpec } from './catalog.js';
import type { PriceTable } from './prices.js';
import { priceTrade, tradeBound } from './pricing.js';
import { hash32, logNormal, venueStream } from './random.js';
import type { Venue, VenueExecuteRequest, VenueExecution, VenueId, VenueQuote, VenueQuoteRequest } from './types.js';

/** The random behaviour of a venue's quotes; rates are probabilities in [0, 1]. */
export interface VenueBehaviour {
  medianLatencyMs: number;
  sigma: number;
  failureRate: number;
  timeoutRate: number;
}

/** One fill the market executed, for tests and the simulated ledger to reconcile against. */
export interface FillRecord {
  venue: VenueId;
  key: string;
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  amountOut: bigint;
  txId: string;
}

/** What a venue shares with its market. */
export interface MarketState {
  readonly seed: number;
  readonly latencyScale: number;
  readonly failures: boolean;
  readonly prices: PriceTable;
  readonly fills: FillRecord[];
}

interface Draw {
  timesOut: boolean;
  fails: boolean;
  latencyMs: number;
  message: string;
}

export class SimVenue implements Venue {
  readonly id: VenueId;
  halted = false;
  private override: Partial<VenueBehaviour> | null = null;
  private readonly rand: () => number;
  /** from -> the assets this venue serves from it: a lookup per question, no string built. */
  private readonly routesFrom = new Map<AssetId, Set<AssetId>>();
  private readonly skews = new Map<string, number>();
  /** Remembered executions by key: in flight or filled. Halts and errors are forgotten (nothing was filled). */
  private readonly executions = new Map<string, Promise<VenueExecution>>();
  private readonly failNext: string[] = [];

  constructor(readonly spec: VenueSpec, private readonly market: MarketState) {
    this.id = spec.id;
    this.rand = venueStream(market.seed, spec.id);
    for (const [a, b] of spec.routes) {
      let to = this.routesFrom.get(a);
      if (!to) this.routesFrom.set(a, (to = new Set()));
      to.add(b);
    }
  }

  routes(): ReadonlyArray<readonly [AssetId, AssetId]> {
    return this.spec.routes;
  }

  supports(from: AssetId, to: AssetId): boolean {
    return this.routesFrom.get(from)?.has(to) ?? false;
  }

  /** Effective behaviour: the catalog's, rates zeroed when failures are off, then any explicit override. */
  behaviour(): VenueBehaviour {
    const s = this.spec;
    const base: VenueBehaviour = {
      medianLatencyMs: s.latency.medianMs,
      sigma: s.latency.sigma,
      failureRate: this.market.failures ? s.failureRate : 0,
      timeoutRate: this.market.failures ? s.timeoutRate : 0,
    };
    return { ...base, ...(this.override ?? {}) };
  }

  setBehaviour(patch: Partial<VenueBehaviour> | null): void {
    this.override = patch === null ? null : { ...(this.override ?? {}), ...patch };
  }

  failNextExecute(message: string): void {
    this.failNext.push(message);
  }

  quote(req: VenueQuoteRequest): Promise<VenueQuote> {
    const { signal } = req;
    if (signal.aborted) return Promise.reject(signal.reason);
    // Static checks an adapter makes before calling out: answered at once, and they do not consume the stream.
    if (!this.supports(req.from.id, req.to.id)) return Promise.reject(this.unsupported(req.from, req.to));
    if (req.amountIn <= 0n) return Promise.reject(new VenueFailed(`${this.id}: amount must be positive.`));
    const d = this.draw();
    return new Promise<VenueQuote>((resolve, reject) => {
      // A timeout sets no timer at all: the promise waits for the signal only, so nothing keeps the process alive.
      if (d.timesOut) {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        return;
      }
      // No latency: answered now, so the caller sees it on its next microtask. A zero-delay timer would cost a
      // macrotask per quote and Node clamps it to 1 ms, which made "instant" venues the slowest part of a quote.
      if (d.latencyMs === 0) {
        try {
          resolve(this.answer(req, d));
        } catch (err) {
          reject(err);
        }
        return;
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        try {
          resolve(this.answer(req, d));
        } catch (err) {
          reject(err);
        }
      }, d.latencyMs);
      function onAbort() {
        clearTimeout(timer);
        reject(signal.reason);
      }
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  execute(req: VenueExecuteRequest): Promise<VenueExecution> {
    const prior = this.executions.get(req.key);
    if (prior) return prior;
    if (req.signal?.aborted) return Promise.reject(req.signal.reason);
    const run = this.fill(req);
    // Set synchronously, so a concurrent call with the same key shares this very promise.
    this.executions.set(req.key, run);
    run.then(
      (r) => {
        if (r.status !== 'filled') this.executions.delete(req.key);
      },
      () => this.executions.delete(req.key),
    );
    return run;
  }

  /** The current-market output, without latency or random faults; throws VenueFailed when it cannot fill. */
  price(from: Asset, to: Asset, amountIn: bigint): bigint {
    if (!this.supports(from.id, to.id)) throw this.unsupported(from, to);
    return priceTrade({
      spec: this.spec,
      from,
      to,
      amountIn,
      priceIn: this.market.prices.usdPrice(from),
      priceOut: this.market.prices.usdPrice(to),
      skewBps: this.skewBps(from.id, to.id),
    });
  }

  /** An upper bound on any quote of this venue for the request at the current prices (pricing.ts, tradeBound). */
  quoteBound(from: Asset, to: Asset, amountIn: bigint): bigint {
    if (!this.supports(from.id, to.id)) return 0n;
    return tradeBound({ spec: this.spec, from, to, amountIn, priceIn: this.market.prices.usdPrice(from), priceOut: this.market.prices.usdPrice(to) });
  }

  /** Deterministic per venue and pair, so venues differ a little and a seed always gives the same ranking. */
  skewBps(from: AssetId, to: AssetId): number {
    const key = `${from}>${to}`;
    let skew = this.skews.get(key);
    if (skew === undefined) this.skews.set(key, (skew = hash32(`skew:${this.market.seed}:${this.id}:${from}:${to}`) % (this.spec.maxSkewBps + 1)));
    return skew;
  }

  private answer(req: VenueQuoteRequest, d: Draw): VenueQuote {
    if (this.halted) throw new VenueFailed(`${this.id}: trading is halted.`);
    if (d.fails) throw new VenueFailed(`${this.id}: ${d.message}`);
    return { venue: this.id, amountIn: req.amountIn, amountOut: this.price(req.from, req.to, req.amountIn) };
  }

  /** Always five draws per quote, whatever the outcome, so the stream position depends only on the call count. */
  private draw(): Draw {
    const b = this.behaviour();
    const [uTimeout, uFail, u1, u2, uMsg] = [this.rand(), this.rand(), this.rand(), this.rand(), this.rand()];
    const msgs = this.spec.failureMessages;
    return {
      timesOut: uTimeout < b.timeoutRate,
      fails: uFail < b.failureRate,
      latencyMs: logNormal(b.medianLatencyMs, b.sigma, u1, u2) * this.market.latencyScale,
      message: msgs[Math.floor(uMsg * msgs.length)] ?? 'unknown error',
    };
  }

  private async fill(req: VenueExecuteRequest): Promise<VenueExecution> {
    // A macrotask hop so execution is asynchronous like a real venue, and callers can attach handlers first.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (!this.supports(req.from.id, req.to.id)) throw this.unsupported(req.from, req.to);
    if (req.amountIn <= 0n) throw new VenueFailed(`${this.id}: amount must be positive.`);
    const injected = this.failNext.shift();
    if (injected !== undefined) throw new VenueFailed(`${this.id}: ${injected}`);
    const halt = (reason: string): VenueExecution => ({ status: 'halted', key: req.key, reason });
    if (this.halted) return halt(`${this.id}: trading is halted.`);
    let amountOut: bigint;
    try {
      amountOut = this.price(req.from, req.to, req.amountIn);
    } catch (err) {
      return halt(err instanceof Error ? err.message : String(err));
    }
    if (amountOut < req.minAmountOut) {
      return { status: 'halted', key: req.key, reason: `${this.id}: shortfall, output ${amountOut} is below the minimum ${req.minAmountOut}.`, shortfall: true };
    }
    const txId = this.txId(req);
    this.market.fills.push({ venue: this.id, key: req.key, from: req.from.id, to: req.to.id, amountIn: req.amountIn, amountOut, txId });
    return { status: 'filled', key: req.key, amountIn: req.amountIn, amountOut, txId };
  }

  /** A hash shaped like the transaction id of the chain the step runs on (0x-prefixed except on Bitcoin). */
  private txId(req: VenueExecuteRequest): string {
    const hex = createHash('sha256').update(`sim:${this.market.seed}:${this.id}:${req.key}`).digest('hex');
    return req.from.chain === 'bitcoin' ? hex : `0x${hex}`;
  }

  private unsupported(from: Asset, to: Asset): VenueFailed {
    return new VenueFailed(`${this.id}: route ${from.id} -> ${to.id} is not served.`);
  }
}
