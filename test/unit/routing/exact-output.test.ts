// Exact-output quoting: the pure search pieces (bracket, prediction, probe placement, stopping) over synthetic
// staircases, and router.exactOutput over the simulated market (latency 0, failures off unless a test turns a
// venue's failures on): the answer reaches the target, one base unit less does not, refusals, the round bound.
import { describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import type { AssetId, ChainName } from '../../../src/assets/types.js';
import {
  BASE_PROBES, MAX_PROBES, MAX_ROUNDS, checkRouteInvariants, createRouter, estimateInput, newBracket, nextProbes, observe, predict, pricePath,
  probeCount, settled, slopePair, topPaths, type Bracket, type ExactOutputRequest,
} from '../../../src/routing/index.js';
import { createSearchContext } from '../../../src/routing/steps.js';
import { createSimMarket } from '../../../src/venues/index.js';

function id(chain: ChainName, symbol: string): AssetId {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`test asset ${chain} ${symbol} missing`);
  return a.id;
}

const BASE_USDC = id('base', 'USDC');
const ARB_USDC = id('arbitrum', 'USDC');
const BTC = id('bitcoin', 'BTC');

describe('bracket: lo below the target, hi at or above it', () => {
  it('raises lo and lowers hi, keeps every point, and ignores a point that contradicts the bracket', () => {
    let b = newBracket(100n);
    expect(b).toEqual({ target: 100n, lo: 0n, hi: null, points: [] });
    b = observe(b, { x: 50n, y: 60n });
    expect([b.lo, b.hi]).toEqual([50n, null]);
    b = observe(b, { x: 90n, y: 120n });
    expect([b.lo, b.hi]).toEqual([50n, 90n]);
    b = observe(b, { x: 70n, y: 100n }); // exactly the target counts as reaching it
    expect([b.lo, b.hi]).toEqual([50n, 70n]);
    b = observe(b, { x: 40n, y: 101n }); // below lo yet above target: rounding noise, the bracket stays
    expect([b.lo, b.hi]).toEqual([50n, 70n]);
    expect(b.points.map((p) => p.x)).toEqual([40n, 50n, 70n, 90n]);
    expect(settled(b)).toBe(false);
    b = observe(b, { x: 69n, y: 99n });
    expect(settled(b)).toBe(true);
  });

  it('refuses a target that is not positive', () => {
    expect(() => newBracket(0n)).toThrow(RangeError);
  });
});

describe('prediction', () => {
  it('is null until something delivered', () => {
    expect(predict(observe(newBracket(10n), { x: 5n, y: 0n }))).toBeNull();
  });

  it('with one point is a ratio through the origin', () => {
    const p = predict(observe(newBracket(1_000n), { x: 400n, y: 800n }));
    expect(p).toMatchObject({ x: 500n, stepWidth: 1n, window: null });
  });

  it('on a line whose output is finer than its input, hits the first input reaching the target', () => {
    // y = floor(7x/3) + 5: the smallest x with y >= 1000 is 427 (y(426) = 999, y(427) = 1001).
    const f = (x: bigint) => (7n * x) / 3n + 5n;
    let b = newBracket(1_000n);
    for (const x of [100n, 300n, 600n]) b = observe(b, { x, y: f(x) });
    expect(predict(b)!.x).toBe(427n);
  });

  it('on a staircase with wide steps, places the crossing in a window narrower than one step', () => {
    // 1000 input units per output unit, offset 123: crossing of 500 at x = 500*1000 - 123 = 499877.
    const f = (x: bigint) => (x + 123n) / 1000n;
    let b = newBracket(500n);
    for (const x of [300_000n, 468_877n, 480_377n, 490_512n, 500_877n, 505_250n, 530_000n]) b = observe(b, { x, y: f(x) });
    const p = predict(b)!;
    expect(p.stepWidth).toBeGreaterThanOrEqual(900n);
    expect(p.window).not.toBeNull();
    const [from, to] = p.window!;
    expect(from).toBeLessThanOrEqual(499_877n);
    expect(to).toBeGreaterThanOrEqual(499_877n);
    expect(to - from).toBeLessThan(1_000n);
  });

  it('takes the slope from the closest pair at least 32 output steps apart', () => {
    const pts = [{ x: 100n, y: 100n }, { x: 101n, y: 101n }, { x: 140n, y: 140n }, { x: 1_000n, y: 900n }];
    expect(slopePair(pts)).toEqual([39n, 39n]);
    expect(slopePair([{ x: 1n, y: 5n }, { x: 2n, y: 4n }])).toBeNull();
  });
});

describe('probes', () => {
  const bracket = (lo: bigint, hi: bigint | null, target = 1_000n): Bracket => ({ ...newBracket(target), lo, hi });

  it('a bracket with few inputs left: all of them, so the round closes it', () => {
    expect(nextProbes(bracket(10n, 15n), null, 8, 0n)).toEqual([11n, 12n, 13n, 14n]);
  });

  it('fine steps: the prediction and its neighbours, a ladder out to the spread, all inside (lo, hi), at most max', () => {
    const b = bracket(0n, 10_000n);
    const probes = nextProbes(b, { x: 5_000n, stepWidth: 1n, window: null }, BASE_PROBES, 2_000n);
    expect(probes).toEqual(expect.arrayContaining([4_999n, 5_000n, 5_001n, 5_002n, 3_000n, 7_000n]));
    expect(probes.length).toBeLessThanOrEqual(BASE_PROBES);
    expect(probes.every((x) => x > b.lo && x < b.hi!)).toBe(true);
    expect([...probes].sort((p, q) => (p < q ? -1 : 1))).toEqual(probes);
  });

  it('wide steps: most probes spread evenly over the crossing window', () => {
    const probes = nextProbes(bracket(0n, 1_000_000n), { x: 500_000n, stepWidth: 10_000n, window: [499_000n, 501_000n] }, 16, 20_000n);
    const inWindow = probes.filter((x) => x >= 499_000n && x <= 501_000n);
    expect(inWindow.length).toBeGreaterThanOrEqual(8);
  });

  it('nothing delivered yet: doublings past lo', () => {
    expect(nextProbes(bracket(100n, null), null, 8, 0n)).toEqual([200n, 400n, 800n, 1_600n]);
  });

  it('asks as many as the rounds left need, between the base and the cap', () => {
    expect(probeCount(50n, 3)).toBe(BASE_PROBES);
    expect(probeCount(10n ** 6n, 3)).toBe(99 < MAX_PROBES ? 99 : MAX_PROBES);
    expect(probeCount(10n ** 30n, 2)).toBe(MAX_PROBES);
    expect(probeCount(24n * 24n, 2)).toBe(23 > BASE_PROBES ? 23 : BASE_PROBES);
  });
});

/** Runs the pure pieces against a synthetic output function, as the router does, and counts the rounds. */
function searchAlone(f: (x: bigint) => bigint, target: bigint, start: bigint, maxRounds: number): { hi: bigint | null; rounds: number; b: Bracket } {
  let b = observe(newBracket(target), { x: start, y: f(start) });
  let rounds = 0;
  let prev: bigint | null = null;
  while (!settled(b) && rounds < maxRounds) {
    const p = predict(b);
    const spread = p === null ? 0n : p.x > start ? (p.x - start) / 4n + p.x / 256n + 2n * p.stepWidth : (start - p.x) / 4n + p.x / 256n + 2n * p.stepWidth;
    const e = prev === null || p === null ? spread : 2n * (p.x > prev ? p.x - prev : prev - p.x) + 2n * p.stepWidth;
    const width = b.hi !== null ? b.hi - b.lo : e * 2n + 1n;
    const count = p === null || p.stepWidth <= 4n ? BASE_PROBES : probeCount(width, Math.max(1, maxRounds - rounds - 1));
    for (const x of nextProbes(b, p, count, e)) b = observe(b, { x, y: f(x) });
    if (p) prev = p.x;
    rounds++;
  }
  return { hi: b.hi, rounds, b };
}

describe('stopping: the search ends when hi − lo = 1, within the bound', () => {
  it('a concave output finer than its input closes in a few rounds at the true minimum', () => {
    // out = floor(3·10^12·x / (10^9 + x)): concave, monotone.
    const f = (x: bigint) => (3n * 10n ** 12n * x) / (10n ** 9n + x);
    const target = 150_000_000_000n;
    const r = searchAlone(f, target, 40_000_000n, 9);
    expect(r.hi).not.toBeNull();
    expect(f(r.hi!)).toBeGreaterThanOrEqual(target);
    expect(f(r.hi! - 1n)).toBeLessThan(target);
    expect(r.rounds).toBeLessThanOrEqual(4);
  });

  it('an output far coarser than its input (10^8 input units per output unit) still closes within the bound', () => {
    const f = (x: bigint) => (x * 997n) / (1_000n * 10n ** 8n);
    const target = 123_456n;
    const r = searchAlone(f, target, 12_000_000_000_000n, 9);
    expect(settled(r.b)).toBe(true);
    expect(f(r.hi!)).toBeGreaterThanOrEqual(target);
    expect(f(r.hi! - 1n)).toBeLessThan(target);
  });

  it('stops at the bound with the smallest input found when the rounds do not suffice', () => {
    const f = (x: bigint) => x / 10n ** 15n;
    const r = searchAlone(f, 1_000n, 10n ** 17n, 1);
    expect(r.rounds).toBe(1);
    expect(settled(r.b)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Over the simulated market.

function setup(opts: { failures?: boolean } = {}) {
  const market = createSimMarket({ seed: 7, latencyScale: 0, failures: opts.failures ?? false });
  const router = createRouter({ market, deadlines: { fast: 1_500, optimal: 10_000 }, pathLimit: 64 });
  return { market, router };
}

const ask = (from: AssetId, to: AssetId, amountOut: bigint): ExactOutputRequest => ({ from, to, amountOut, mode: 'fast', allowlist: [], blocklist: [] });

describe('router.exactOutput over the simulated market', () => {
  for (const [label, from, to, amountOut] of [
    ['direct, 6 → 6 decimals', BASE_USDC, ARB_USDC, 2_500_000_000n],
    ['multi-hop, 8 → 6 decimals', BTC, ARB_USDC, 45_000_000_000n],
    ['direct, 6 → 8 decimals (coarser output)', ARB_USDC, id('arbitrum', 'WBTC'), 1_234_567n],
  ] as const) {
    it(`${label}: reaches the target, and one base unit less does not (the path and the full routing)`, async () => {
      const { market, router } = setup();
      const req = ask(from, to, amountOut);
      const res = await router.exactOutput(req);
      const best = res.best!;
      expect(best).not.toBeNull();
      expect(best.estimatedAmountOut).toBeGreaterThanOrEqual(amountOut);
      expect(res.rounds).toBeGreaterThanOrEqual(2);
      expect(res.rounds).toBeLessThan(MAX_ROUNDS); // below the bound: proven minimal for its path
      expect(checkRouteInvariants(best, { ...req, amountIn: best.amountIn }, { prices: market })).toEqual([]);
      expect(res.audit.singleHop.length + res.audit.multiHop.routes.length).toBeGreaterThan(0);
      expect(res.refundCost).toBeGreaterThan(0n);

      const path = { assets: [best.from, ...best.steps.map((s) => s.to)], venues: best.steps.map((s) => s.venue) };
      const ctx = createSearchContext(market, 1_500);
      const same = await pricePath(ctx, req, path, best.amountIn);
      expect(same.status === 'quoted' && same.route.estimatedAmountOut).toBe(best.estimatedAmountOut);
      const less = await pricePath(ctx, req, path, best.amountIn - 1n);
      expect(less.status !== 'quoted' || less.route.estimatedAmountOut < amountOut).toBe(true);

      const full = await router.route({ ...req, amountIn: best.amountIn - 1n });
      expect(full.best === null || full.best.estimatedAmountOut < amountOut).toBe(true);
      const at = await router.route({ ...req, amountIn: best.amountIn });
      expect(at.best!.estimatedAmountOut).toBeGreaterThanOrEqual(amountOut);
    });
  }

  it('refuses (best null, the first routing audit) when the amount exceeds every venue depth', async () => {
    const { router } = setup();
    const res = await router.exactOutput(ask(BASE_USDC, ARB_USDC, 5_000_000_000n * 1_000_000n)); // 5 billion USD
    expect(res.best).toBeNull();
    expect(res.rounds).toBeLessThanOrEqual(MAX_ROUNDS);
    expect(res.audit.singleHop.length).toBeGreaterThan(0);
    expect(res.audit.singleHop.every((c) => c.status !== 'quoted')).toBe(true);
  });

  it('a venue that fails at random still yields an answer that reaches the target', async () => {
    const { market, router } = setup();
    const req = ask(BASE_USDC, ARB_USDC, 2_500_000_000n);
    const calm = await router.exactOutput(req);
    const winner = calm.best!.steps[0]!.venue;
    market.setBehaviour(winner, { failureRate: 0.5 });
    const res = await router.exactOutput(req);
    expect(res.best).not.toBeNull();
    expect(res.best!.estimatedAmountOut).toBeGreaterThanOrEqual(req.amountOut);
    expect(res.rounds).toBeLessThanOrEqual(MAX_ROUNDS);
  });

  it('with failures on everywhere (production rates), every answer reaches the target within the bound', async () => {
    const { router } = setup({ failures: true });
    for (const amountOut of [1_000_000n, 77_777_777n, 9_000_000_000n]) {
      const res = await router.exactOutput(ask(BTC, ARB_USDC, amountOut));
      expect(res.best!.estimatedAmountOut).toBeGreaterThanOrEqual(amountOut);
      expect(res.rounds).toBeLessThanOrEqual(MAX_ROUNDS);
    }
  });

  it('rejects both venue lists before any venue call, as route() does', async () => {
    const { router } = setup();
    await expect(router.exactOutput({ ...ask(BASE_USDC, ARB_USDC, 1n), allowlist: ['relay'], blocklist: ['across'] })).rejects.toThrow();
  });
});

describe('round 1 pieces', () => {
  it('estimates the input from the USD prices with the margin and costs, and ranks quoted paths by output', async () => {
    const { market, router } = setup();
    const from = findAsset('base', 'USDC')!;
    const to = findAsset('arbitrum', 'USDC')!;
    const x0 = estimateInput(market, from, to, 1_000_000_000n);
    expect(x0).toBeGreaterThan(1_000_000_000n);
    expect(x0).toBeLessThan(1_010_000_000n);
    const res = await router.route({ from: from.id, to: to.id, amountIn: x0, mode: 'fast', allowlist: [], blocklist: [] });
    const top = topPaths(res.audit, 3);
    expect(top).toHaveLength(3);
    expect(top[0]!.route).toBe(res.best);
    expect(top[0]!.route.estimatedAmountOut >= top[1]!.route.estimatedAmountOut).toBe(true);
    expect(top[1]!.route.estimatedAmountOut >= top[2]!.route.estimatedAmountOut).toBe(true);
  });
});
