// Exact-output quoting: the smallest input whose best route delivers at least a target. One full routing near the
// USD estimate finds the candidate paths; then each of the best few is searched alone with a path pricer, a small
// set of parallel probes per round, until its bracket [lo, hi] closes (hi − lo = 1) or the round bound is reached.
// The search pieces (bracket, prediction, probe placement) are pure and exported for tests.
import type { Asset } from '../assets/types.js';
import type { Market } from '../venues/types.js';
import { deliveryCost, stepCost } from './costing.js';
import { pathKey, pricePath, type PathPrice, type PathSpec } from './price-path.js';
import { createSearchContext } from './steps.js';
import type { ExactOutputRequest, ExactOutputResult, PricedRoute, QuoteAudit, RouteRequest, RoutingResult } from './types.js';

/** Venue rounds at most, the first full routing included. Reaching it means the answer may not be minimal. */
export const MAX_ROUNDS = 10;
/** Candidate paths searched after the first routing. */
export const CANDIDATE_PATHS = 3;
/** Probes per path and round, and the most a round may ask when the bracket is too wide for the rounds left. */
export const BASE_PROBES = 8;
export const MAX_PROBES = 64;
/** Margin over the USD estimate for the first routing, bps: venue fees and skews are 0–20 bps, impact a little more. */
export const ESTIMATE_MARGIN_BPS = 30n;

// ---------------------------------------------------------------------------------------------------------------
// Pure search pieces.

/** One priced input of a path: what it delivered (0 when costs eat it). */
export interface Observation {
  x: bigint;
  y: bigint;
}

/**
 * What is known about one path: `lo` is the largest input known to deliver less than the target (0 delivers
 * nothing), `hi` the smallest known to deliver at least the target (null until one is found).
 */
export interface Bracket {
  target: bigint;
  lo: bigint;
  hi: bigint | null;
  points: Observation[];
}

export function newBracket(target: bigint): Bracket {
  if (target <= 0n) throw new RangeError(`The target output must be positive, got ${target}.`);
  return { target, lo: 0n, hi: null, points: [] };
}

/** Folds one answer in. Outputs are monotone in the input, so a point below the target raises lo, one at or above
 *  it lowers hi; a point contradicting the bracket (noise at a rounding edge) keeps the bracket as it is. */
export function observe(b: Bracket, o: Observation): Bracket {
  const points = [...b.points.filter((p) => p.x !== o.x), o].sort((p, q) => (p.x < q.x ? -1 : p.x > q.x ? 1 : 0));
  let { lo, hi } = b;
  if (o.y >= b.target) {
    if ((hi === null || o.x < hi) && o.x > lo) hi = o.x;
  } else if (o.x > lo && (hi === null || o.x < hi)) {
    lo = o.x;
  }
  return { target: b.target, lo, hi, points };
}

/** The bracket is closed: hi delivers the target and hi − 1 is known not to. */
export function settled(b: Bracket): boolean {
  return b.hi !== null && b.hi - b.lo === 1n;
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);
const ceilDiv = (a: bigint, d: bigint): bigint => (a >= 0n ? (a + d - 1n) / d : -(-a / d));

export interface Prediction {
  /** The predicted smallest input reaching the target, inside (lo, hi]. */
  x: bigint;
  /** Estimated input per output base unit (≥ 1): the width of one output step when the output is the coarser unit. */
  stepWidth: bigint;
  /** Where the crossing lies according to the observations near the target, each placing it within one output step
   *  under the local slope, intersected (and widened by a slack for the slope's error); null when they do not. */
  window: readonly [bigint, bigint] | null;
}

/** Observations this many output steps from the target still place the crossing (the slope is local enough). */
const WINDOW_STEPS = 64n;

/**
 * Where the output crosses the target. Outputs are floors of a smooth, nearly linear function, so the anchor is the
 * observation closest to the target and the slope comes from the widest pair among the observations nearest to it
 * (the widest span rounds least; staying near the target keeps concavity out). The line goes through each point's
 * step middle (y + ½), and the first integer on or after the crossing is taken. With one usable point the line goes
 * through the origin (a plain ratio). Null when nothing delivered anything.
 */
export function predict(b: Bracket): Prediction | null {
  const usable = b.points.filter((p) => p.y > 0n);
  if (usable.length === 0) return null;
  const T = b.target;
  const near = [...usable].sort((p, q) => {
    const d = abs(p.y - T) - abs(q.y - T);
    return d < 0n ? -1 : d > 0n ? 1 : p.y < q.y ? -1 : p.y > q.y ? 1 : 0;
  });
  const anchor = near[0]!;
  const pair = slopePair(near);
  if (!pair) {
    const x = ceilDiv(T * anchor.x, anchor.y);
    return { x: clampInto(b, x), stepWidth: anchor.x > anchor.y ? ceilDiv(anchor.x, anchor.y) : 1n, window: null };
  }
  const [dx, dy] = pair;
  const stepWidth = dx > dy ? ceilDiv(dx, dy) : 1n;
  let x = clampInto(b, anchor.x + ceilDiv((2n * (T - anchor.y) - 1n) * dx, 2n * dy));
  const window = stepWidth > 1n ? crossingWindow(b, usable, dx, dy, stepWidth) : null;
  if (window) x = window[0] + (window[1] - window[0]) / 2n;
  return { x, stepWidth, window };
}

/** The intersection of the one-step intervals of the observations near the target (vernier reading: their
 *  different phases on the step grid narrow the crossing to a fraction of a step), within the bracket. */
function crossingWindow(b: Bracket, usable: readonly Observation[], dx: bigint, dy: bigint, stepWidth: bigint): readonly [bigint, bigint] | null {
  let from: bigint | null = null;
  let to: bigint | null = null;
  for (const o of usable) {
    if (abs(o.y - b.target) > WINDOW_STEPS) continue;
    const l = o.x + ((b.target - o.y - 1n) * dx) / dy;
    const u = o.x + ceilDiv((b.target - o.y) * dx, dy);
    if (from === null || l > from) from = l;
    if (to === null || u < to) to = u;
  }
  if (from === null || to === null) return null;
  const slack = stepWidth / 16n + 1n;
  from -= slack;
  to += slack;
  if (from <= b.lo) from = b.lo + 1n;
  if (b.hi !== null && to > b.hi) to = b.hi;
  return from <= to ? [from, to] : null;
}

/** Outputs this many steps apart give a slope whose rounding error is small enough (≤ 1/32 of a step per step). */
const SLOPE_STEPS = 32n;

/**
 * (dx, dy) of the slope pair, both positive: the closest pair (in input) among the eight observations nearest the
 * target whose outputs are at least SLOPE_STEPS apart, since a close pair keeps the function's curvature out and
 * that many steps keep the rounding out; failing that, the widest pair there is. Null when no pair rises.
 */
export function slopePair(nearFirst: readonly Observation[]): [bigint, bigint] | null {
  let close: [bigint, bigint] | null = null;
  let wide: [bigint, bigint] | null = null;
  const ps = nearFirst.slice(0, 8);
  for (let i = 0; i < nearFirst.length; i++) {
    for (let j = i + 1; j < nearFirst.length; j++) {
      const [p, q] = nearFirst[i]!.x < nearFirst[j]!.x ? [nearFirst[i]!, nearFirst[j]!] : [nearFirst[j]!, nearFirst[i]!];
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      // A falling pair is rounding noise against a monotone output; it says nothing about the slope.
      if (dy <= 0n || dx <= 0n) continue;
      if (wide === null || dx > wide[0]) wide = [dx, dy];
      if (i < ps.length && j < ps.length && dy >= SLOPE_STEPS && (close === null || dx < close[0])) close = [dx, dy];
    }
  }
  return close ?? wide;
}

function clampInto(b: Bracket, x: bigint): bigint {
  if (b.hi !== null && x > b.hi) return b.hi;
  if (x <= b.lo) return b.hi === null ? (b.lo > 0n ? 2n * b.lo : 1n) : b.lo + 1n;
  return x;
}

/**
 * How many probes a round needs so that the bracket can still close within the rounds left: the smallest n with
 * (n + 1)^roundsLeft ≥ width, between BASE_PROBES and MAX_PROBES. Wide steps (an 18-decimal input for a coarse
 * output) need more per round; everything else stays at the base.
 */
export function probeCount(width: bigint, roundsLeft: number): number {
  if (roundsLeft <= 0) return MAX_PROBES;
  for (let n = BASE_PROBES; n < MAX_PROBES; n++) {
    if (BigInt(n + 1) ** BigInt(roundsLeft) >= width) return n;
  }
  return MAX_PROBES;
}

/**
 * The inputs to ask next, ascending, all strictly inside (lo, hi) (hi is already known), at most `max`:
 * - a bracket with at most `max` inputs left inside: all of them, so the round closes it;
 * - nothing delivered yet: doublings past lo;
 * - when steps are fine (≤ 4 input units per output unit), the prediction and its neighbours x̂ − 1 … x̂ + 2,
 *   which close the bracket when the prediction is right or off by one;
 * - a geometric ladder x̂ ± spread / r^j down to two step widths, `spread` being the error the prediction may still
 *   have, so whatever the actual error the bracket shrinks to about that error;
 * - the rest evenly over the crossing window (or x̂ ± w), where the crossing most likely is.
 */
export function nextProbes(b: Bracket, p: Prediction | null, max: number, spread: bigint): bigint[] {
  const { lo, hi } = b;
  if (hi !== null && hi - lo - 1n <= BigInt(max)) {
    const all: bigint[] = [];
    for (let x = lo + 1n; x < hi; x++) all.push(x);
    return all;
  }
  const inside = (x: bigint) => x > lo && (hi === null || x < hi);
  const out = new Set<bigint>();
  if (p === null) {
    const base = lo > 0n ? lo : 1n;
    for (let k = 1n; out.size < Math.min(max, 4); k++) out.add(base * 2n ** k);
    return [...out].sort(cmp);
  }
  if (p.stepWidth <= 4n) for (const d of [-1n, 0n, 1n, 2n]) if (inside(p.x + d)) out.add(p.x + d);
  // Ladder: with a crossing window, a quarter of the remaining slots per side (the window gets the rest);
  // without one, all of them.
  const perSide = Math.floor((max - out.size) / (p.window ? 4 : 2));
  const first = 2n * p.stepWidth;
  if (spread > first && perSide > 0) {
    const ratio = ladderRatio(first, spread, perSide);
    let d = spread;
    for (let j = 0; j < perSide && d >= first; j++, d /= ratio) {
      if (inside(p.x - d)) out.add(p.x - d);
      if (inside(p.x + d)) out.add(p.x + d);
    }
  }
  let [from, to] = p.window ?? [p.x - p.stepWidth, p.x + p.stepWidth];
  if (from <= lo) from = lo + 1n;
  if (hi !== null && to >= hi) to = hi - 1n;
  const slots = max - out.size;
  if (to >= from && slots > 0) {
    // Strictly inside [from − 1, to + 1], evenly: n points cut the interval into n + 1 equal parts.
    const span = to - from + 2n;
    const n = BigInt(slots);
    for (let i = 1n; i <= n; i++) {
      const x = from - 1n + (span * i) / (n + 1n);
      if (inside(x)) out.add(x);
    }
  }
  if (out.size === 0 && hi !== null) out.add(lo + (hi - lo) / 2n);
  if (out.size === 0) out.add(p.x > lo ? p.x : lo + 1n);
  return [...out].sort(cmp).slice(0, max);
}

/** The smallest integer ratio r ≥ 2 with first · r^(n−1) ≥ last. */
function ladderRatio(first: bigint, last: bigint, n: number): bigint {
  if (n <= 1 || first * 2n ** BigInt(n - 1) >= last) return 2n;
  // Binary search on r: the answer lies in (2, last / first + 1].
  let lo = 2n;
  let hi = last / first + 1n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (first * mid ** BigInt(n - 1) >= last) hi = mid;
    else lo = mid;
  }
  return hi;
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The error the next prediction may still have: twice how far the prediction moved since the last round (the
 *  error it just corrected), and at least two output steps. A first prediction, a plain ratio from the round-1 point,
 *  gets a quarter of its distance from that point plus 0.4 % of itself (costs and curvature bend the ratio). */
export function nextSpread(prev: bigint | null, next: Prediction, anchorX: bigint | null): bigint {
  let e: bigint;
  if (prev !== null) e = 2n * abs(next.x - prev);
  else if (anchorX !== null) e = abs(next.x - anchorX) / 4n + next.x / 256n;
  else e = next.x / 4n;
  const floor = 2n * next.stepWidth;
  return e > floor ? e : floor;
}

/** The first routing's input: the target converted through the USD reference prices, plus the delivery cost, one
 *  step's cost and the margin; rounded up. */
export function estimateInput(market: Pick<Market, 'usdPrice'>, from: Asset, to: Asset, amountOut: bigint): bigint {
  const out = amountOut + deliveryCost(market, to);
  const num = out * market.usdPrice(to) * 10n ** BigInt(from.decimals) * (10_000n + ESTIMATE_MARGIN_BPS);
  const den = market.usdPrice(from) * 10n ** BigInt(to.decimals) * 10_000n;
  const x = ceilDiv(num, den) + stepCost(market, from, to);
  return x > 0n ? x : 1n;
}

/** The quoted paths of a routing by output, best first, at most k (ties keep audit order: single hop first). */
export function topPaths(audit: QuoteAudit, k: number): Array<{ path: PathSpec; route: PricedRoute }> {
  const all: Array<{ path: PathSpec; route: PricedRoute }> = [];
  for (const c of audit.singleHop) {
    if (c.status === 'quoted' && c.route) all.push({ path: { assets: [c.route.from, c.route.to], venues: [c.venue] }, route: c.route });
  }
  for (const r of audit.multiHop.routes) {
    if (r.status === 'quoted' && r.route) all.push({ path: { assets: r.assets, venues: r.venues }, route: r.route });
  }
  const seen = new Set<string>();
  return all
    .map((c, i) => ({ c, i }))
    .sort((p, q) => (p.c.route.estimatedAmountOut > q.c.route.estimatedAmountOut ? -1 : p.c.route.estimatedAmountOut < q.c.route.estimatedAmountOut ? 1 : p.i - q.i))
    .map(({ c }) => c)
    .filter((c) => {
      const key = pathKey(c.path);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, k);
}

// ---------------------------------------------------------------------------------------------------------------
// The search over a market.

export interface ExactOutputDeps {
  market: Market;
  deadlineMs: number;
  route(req: RouteRequest): Promise<RoutingResult>;
  from: Asset;
  to: Asset;
  /** Round bound (default MAX_ROUNDS), candidate paths (default CANDIDATE_PATHS). */
  maxRounds?: number;
  candidates?: number;
}

interface PathOutcome {
  path: PathSpec;
  /** Smallest input found reaching the target, its priced route, and whether hi − 1 is known to fall short. */
  hi: bigint | null;
  route: PricedRoute | null;
  proven: boolean;
  rounds: number;
  order: number;
}

/** Shared by the paths searched side by side: a path stops once it is known to need more than another one's hi. */
interface Race {
  bestHi: bigint | null;
}

export async function exactOutputSearch(deps: ExactOutputDeps, req: ExactOutputRequest): Promise<ExactOutputResult> {
  const maxRounds = deps.maxRounds ?? MAX_ROUNDS;
  const k = deps.candidates ?? CANDIDATE_PATHS;
  if (req.amountOut <= 0n) throw new RangeError(`amountOut must be positive, got ${req.amountOut}.`);
  const base: Omit<RouteRequest, 'amountIn'> = { from: req.from, to: req.to, mode: req.mode, allowlist: req.allowlist, blocklist: req.blocklist };

  // Round 1, the only full routing when anything quotes. When nothing does, two more magnitudes are tried: ten
  // times more (costs ate the estimate) and ten times less (the estimate exceeded every venue's depth).
  const x0 = estimateInput(deps.market, deps.from, deps.to, req.amountOut);
  const first = await deps.route({ ...base, amountIn: x0 });
  let rounds = 1;
  let routed = first;
  let cands = topPaths(first.audit, k);
  // No direct venue and no path within the hop limit: no amount can change that.
  const unconnected = first.audit.singleHop.length === 0 && first.audit.multiHop.hops === null;
  for (const x of [x0 * 10n, x0 / 10n]) {
    if (cands.length > 0 || unconnected || rounds >= maxRounds || x <= 0n) break;
    routed = await deps.route({ ...base, amountIn: x });
    rounds++;
    cands = topPaths(routed.audit, k);
  }
  if (cands.length === 0) return { best: null, refundCost: first.refundCost, audit: first.audit, rounds };

  const ctx = createSearchContext(deps.market, deps.deadlineMs);
  const race: Race = { bestHi: null };
  const roundsLeft = maxRounds - rounds;
  const outcomes = await Promise.all(
    cands.map((c, order) => searchPath(ctx, base, c.path, c.route, req.amountOut, roundsLeft, race, order)),
  );
  let winner: PathOutcome | null = null;
  for (const o of outcomes) {
    if (o.hi === null || o.route === null) continue;
    if (
      winner === null ||
      o.hi < winner.hi! ||
      (o.hi === winner.hi && o.route.estimatedAmountOut > winner.route!.estimatedAmountOut)
    ) {
      winner = o;
    }
  }
  const searched = Math.max(0, ...outcomes.map((o) => o.rounds));
  // A path stopped by the bound leaves its answer unproven: the result then says so by `rounds` = the bound.
  const unproven = winner !== null && !winner.proven;
  return {
    best: winner?.route ?? null,
    refundCost: routed.refundCost,
    // A refusal shows the first routing, the one at the estimate; an answer shows the routing its paths came from.
    audit: winner ? routed.audit : first.audit,
    rounds: unproven ? maxRounds : rounds + searched,
  };
}

async function searchPath(
  ctx: ReturnType<typeof createSearchContext>,
  base: Omit<RouteRequest, 'amountIn'>,
  path: PathSpec,
  seed: PricedRoute,
  target: bigint,
  roundsLeft: number,
  race: Race,
  order: number,
): Promise<PathOutcome> {
  let b = observe(newBracket(target), { x: seed.amountIn, y: seed.estimatedAmountOut });
  const routes = new Map<bigint, PricedRoute>([[seed.amountIn, seed]]);
  let prev: bigint | null = null;
  let rounds = 0;
  const publish = () => {
    if (b.hi !== null && (race.bestHi === null || b.hi < race.bestHi)) race.bestHi = b.hi;
  };
  publish();
  while (!settled(b) && rounds < roundsLeft) {
    // Another path already reaches the target with no more than this one is known to need: this one cannot win.
    if (race.bestHi !== null && b.lo >= race.bestHi) break;
    const p = predict(b);
    const spread = p === null ? 0n : nextSpread(prev, p, prev === null ? seed.amountIn : null);
    const width = b.hi !== null ? b.hi - b.lo : spread * 2n + 1n;
    // Fine steps close by prediction, in few rounds, with the base count; wide steps close by cutting the bracket,
    // with as many probes as needed to close it a round before the bound.
    const count = p === null || p.stepWidth <= 4n ? BASE_PROBES : probeCount(width, Math.max(1, roundsLeft - rounds - 1));
    const probes = nextProbes(b, p, count, spread);
    if (p !== null) prev = p.x;
    rounds++;
    const answers = await askRound(ctx, base, path, probes);
    for (const [x, a] of answers) {
      if (a.status === 'quoted') {
        routes.set(x, a.route);
        b = observe(b, { x, y: a.route.estimatedAmountOut });
      } else if (a.status === 'refused') {
        b = observe(b, { x, y: 0n });
      }
    }
    publish();
  }
  const hi = b.hi;
  return { path, hi, route: hi === null ? null : routes.get(hi) ?? null, proven: settled(b), rounds, order };
}

/** One round: every probe priced in parallel. The round waits for all, except stragglers: once half answered, it
 *  waits twice that long again (at least STRAGGLER_FLOOR_MS) and then treats the rest as unknown, so one venue
 *  hanging until the deadline does not hold up the search. */
const STRAGGLER_FLOOR_MS = 100;

async function askRound(
  ctx: ReturnType<typeof createSearchContext>,
  base: Omit<RouteRequest, 'amountIn'>,
  path: PathSpec,
  probes: readonly bigint[],
): Promise<Map<bigint, PathPrice>> {
  // One controller per probe: a probe listens to its own signal only, so a wide round adds no listener pile-up.
  const ctls = probes.map(() => new AbortController());
  const t0 = performance.now();
  const answers = new Map<bigint, PathPrice>();
  let done = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    if (probes.length === 0) return resolve();
    probes.forEach((x, i) => {
      void pricePath(ctx, base, path, x, { signal: ctls[i]!.signal })
        .catch((err: unknown): PathPrice => ({ status: 'unknown', error: err instanceof Error ? err.message : String(err) }))
        .then((a) => {
        answers.set(x, a);
        done++;
        if (done === probes.length) return resolve();
        if (timer === undefined && done * 2 >= probes.length) {
          const half = performance.now() - t0;
          timer = setTimeout(resolve, Math.max(2 * half, STRAGGLER_FLOOR_MS));
        }
      });
    });
  });
  clearTimeout(timer);
  for (const c of ctls) c.abort();
  return new Map(answers);
}
