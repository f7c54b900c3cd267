// Multi hop (spec 2.4 multi_hop): the graph search over intermediate assets, the fewest hop count, the path bound,
// the round-by-round attempts with shared identical requests, and how multi-hop routes compete for best.
import { describe, expect, it } from 'vitest';
import { checkResultInvariants, createRouter, searchPaths, buildGraph, stepCost } from '../../../src/routing/index.js';
import { assetById, fakeMarket, id, request, type FakeVenueSpec } from './fake-market.js';

const A = id('base', 'USDC');
const M1 = id('base', 'USDT');
const M2 = id('base', 'WETH');
const X = id('ink', 'USDC');
const Y = id('ink', 'USDT0');
const B = id('arbitrum', 'USDC');
const AMOUNT = 1_000_000_000n;

function setup(specs: FakeVenueSpec[], opts: { pathLimit?: number; maxHops?: number; deadlines?: { fast: number; optimal: number } } = {}) {
  const market = fakeMarket(specs);
  const router = createRouter({ market, deadlines: opts.deadlines ?? { fast: 25, optimal: 200 }, pathLimit: opts.pathLimit ?? 64, maxHops: opts.maxHops });
  return { market, router };
}

describe('hops: the fewest venue steps with a path, at least two', () => {
  it('tries only the two-hop paths when a three-hop path also exists', async () => {
    const { router } = setup([
      { id: 'kyberswap', routes: [[A, M1], [A, M2]] },
      { id: 'mayan', routes: [[M1, B]] },
      { id: 'relay', routes: [[M2, X]] },
      { id: 'across', routes: [[X, B]] },
    ]);
    const req = request(A, B, AMOUNT);
    const res = await router.route(req);
    const mh = res.audit.multiHop;
    expect(mh.hops).toBe(2);
    expect(mh.setupError).toBeNull();
    expect(mh.routes.map((r) => [r.assets, r.venues])).toEqual([[[A, M1, B], ['kyberswap', 'mayan']]]);
    expect(mh.routes[0]!.status).toBe('quoted');
    expect(checkResultInvariants(res, req)).toEqual([]);
  });

  it('goes to three hops when no two-hop path exists, and never repeats an asset', async () => {
    const { router } = setup([
      { id: 'kyberswap', routes: [[A, M2], [M2, A]] },
      { id: 'relay', routes: [[M2, X], [X, M2]] },
      { id: 'across', routes: [[X, B]] },
    ]);
    const req = request(A, B, AMOUNT);
    const res = await router.route(req);
    expect(res.audit.multiHop.hops).toBe(3);
    expect(res.audit.multiHop.routes.map((r) => r.assets)).toEqual([[A, M2, X, B]]);
    expect(res.best?.steps.map((s) => s.venue)).toEqual(['kyberswap', 'relay', 'across']);
    expect(checkResultInvariants(res, req)).toEqual([]);
  });

  it('with no path within maxHops: hops null, a setup_error sentence, nothing tried', async () => {
    const chain: FakeVenueSpec[] = [
      { id: 'kyberswap', routes: [[A, M1]] },
      { id: 'okx', routes: [[M1, M2]] },
      { id: 'relay', routes: [[M2, X]] },
      { id: 'across', routes: [[X, B]] },
    ];
    const three = setup(chain);
    const res = await three.router.route(request(A, B, AMOUNT));
    expect(res.audit.multiHop).toEqual({
      paths: 0, complete: true, hops: null, attempts: [], routes: [],
      setupError: 'No path of 2 to 3 hops connects base USDC to arbitrum USDC through the admitted venues.',
    });
    expect(three.market.calls).toHaveLength(0);
    expect(res.best).toBeNull();
    const four = setup(chain, { maxHops: 4 });
    const res4 = await four.router.route(request(A, B, AMOUNT));
    expect(res4.audit.multiHop.hops).toBe(4);
    expect(res4.audit.multiHop.setupError).toBeNull();
    expect(res4.best?.steps).toHaveLength(4);
  });

  it('the graph holds only admitted venues: blocking the only bridge removes the path', async () => {
    const { router } = setup([
      { id: 'kyberswap', routes: [[A, M1]] },
      { id: 'mayan', routes: [[M1, B]] },
    ]);
    const res = await router.route(request(A, B, AMOUNT, { blocklist: ['mayan'] }));
    expect(res.audit.multiHop.hops).toBeNull();
    expect(res.audit.multiHop.setupError).toMatch(/^No path of 2 to 3 hops/);
  });
});

describe('paths and complete: the search is bounded by pathLimit', () => {
  // A -> M1 -> B: 3 × 3 venue combinations; A -> M2 -> B: 2 × 2. 13 in all.
  const wide: FakeVenueSpec[] = [
    { id: 'kyberswap', routes: [[A, M1], [A, M2], [M1, B], [M2, B]] },
    { id: 'okx', routes: [[A, M1], [A, M2], [M1, B], [M2, B]] },
    { id: 'velora', routes: [[A, M1], [M1, B]] },
  ];

  it('stops at pathLimit with complete false, and paths counts the paths tried', async () => {
    const { router } = setup(wide, { pathLimit: 5 });
    const res = await router.route(request(A, B, AMOUNT));
    const mh = res.audit.multiHop;
    expect(mh).toMatchObject({ paths: 5, complete: false, hops: 2 });
    expect(mh.routes).toHaveLength(5);
    // Round-robin over the asset paths: both intermediates are tried though one alone has 9 combinations.
    expect(new Set(mh.routes.map((r) => r.assets[1]))).toEqual(new Set([M1, M2]));
    const keys = mh.routes.map((r) => r.assets.join() + r.venues.join());
    expect(new Set(keys).size).toBe(5);
  });

  it('enumerates every path with complete true when they fit', async () => {
    for (const pathLimit of [13, 64]) {
      const { router } = setup(wide, { pathLimit });
      const res = await router.route(request(A, B, AMOUNT));
      expect(res.audit.multiHop).toMatchObject({ paths: 13, complete: true, hops: 2 });
    }
  });

  it('searchPaths alone: the combinations, their count, and simple paths only', () => {
    const market = fakeMarket(wide);
    const s = searchPaths(buildGraph(market.venues()), A, B, 3, 64);
    expect(s.total).toBe(13);
    expect(s.paths).toHaveLength(13);
    for (const p of s.paths) {
      expect(new Set(p.assets).size).toBe(p.assets.length);
      expect(p.venues).toHaveLength(2);
    }
  });
});

describe('attempts: every venue quote requested while walking the paths, round by round', () => {
  it('round r asks venue r for the amount that reached it, after that step cost', async () => {
    const { market, router } = setup([
      { id: 'kyberswap', routes: [[A, M1]], script: { kind: 'fixed', amountOut: 990_000_000n } },
      { id: 'mayan', routes: [[M1, B]] },
    ]);
    const res = await router.route(request(A, B, AMOUNT));
    const [r0, r1] = res.audit.multiHop.attempts;
    expect(r0).toMatchObject({ round: 0, from: A, to: M1, amountIn: AMOUNT, venue: 'kyberswap', status: 'quoted' });
    expect(r1).toMatchObject({ round: 1, from: M1, to: B, amountIn: 990_000_000n, venue: 'mayan', status: 'quoted' });
    expect(r0!.step!.stepAmountOut).toBe(990_000_000n);
    expect(r1!.step!.venueAmountIn).toBe(990_000_000n - stepCost(market, assetById(M1), assetById(B)));
    expect(market.callsOf('mayan')[0]!.amountIn).toBe(r1!.step!.venueAmountIn);
    for (const a of res.audit.multiHop.attempts) expect(Number.isInteger(a.elapsedMs) && a.elapsedMs >= 0).toBe(true);
    expect(res.audit.multiHop.routes[0]!.route!.steps).toEqual([r0!.step, r1!.step]);
  });

  it('identical (venue, from, to, amount) requests are asked once and shared by every path that needs them', async () => {
    const { market, router } = setup([
      { id: 'kyberswap', routes: [[A, M1]] },
      { id: 'across', routes: [[M1, X]] },
      { id: 'relay', routes: [[X, B]] },
      { id: 'mayan', routes: [[X, B]] },
      { id: 'lifi_fast', routes: [[X, B]] },
    ]);
    const res = await router.route(request(A, B, AMOUNT));
    const mh = res.audit.multiHop;
    expect(mh.hops).toBe(3);
    expect(mh.routes).toHaveLength(3);
    expect(mh.routes.every((r) => r.status === 'quoted')).toBe(true);
    // Three paths share their first two requests: five venue calls, not nine.
    expect(market.callsOf('kyberswap')).toHaveLength(1);
    expect(market.callsOf('across')).toHaveLength(1);
    expect(market.calls).toHaveLength(5);
    expect(mh.attempts.map((a) => [a.round, a.venue])).toEqual([
      [0, 'kyberswap'], [1, 'across'], [2, 'relay'], [2, 'mayan'], [2, 'lifi_fast'],
    ]);
  });

  it('a path whose attempt timed out or failed is failed with an error; the others go on', async () => {
    const { router } = setup([
      { id: 'kyberswap', routes: [[A, M1], [A, M2]] },
      { id: 'mayan', routes: [[M1, B]], script: { kind: 'hang' } },
      { id: 'relay', routes: [[M2, B]], script: { kind: 'fail', message: 'relay: no solver' } },
      { id: 'across', routes: [[M1, B], [M2, B]] },
    ]);
    const req = request(A, B, AMOUNT);
    const res = await router.route(req);
    const mh = res.audit.multiHop;
    const byVenues = new Map(mh.routes.map((r) => [`${r.assets[1]}:${r.venues[1]}`, r]));
    expect(byVenues.get(`${M1}:mayan`)).toMatchObject({ status: 'failed', best: false });
    expect(byVenues.get(`${M1}:mayan`)!.error).toMatch(/did not answer within 25 ms/);
    expect(byVenues.get(`${M2}:relay`)!.error).toMatch(/relay: no solver/);
    expect(byVenues.get(`${M1}:across`)!.status).toBe('quoted');
    expect(mh.attempts.find((a) => a.venue === 'mayan')).toMatchObject({ status: 'timed_out' });
    expect(mh.attempts.find((a) => a.venue === 'mayan')!.step).toBeUndefined();
    expect(mh.attempts.find((a) => a.venue === 'relay')).toMatchObject({ status: 'failed', error: 'relay: no solver' });
    expect(checkResultInvariants(res, req)).toEqual([]);
  });

  it('the deadline runs from the quote\'s start: a second hop that hangs is cut when the quote\'s deadline passes, not one deadline after it was asked', async () => {
    const { router } = setup([
      { id: 'kyberswap', routes: [[A, M1]], latencyMs: 200 },
      { id: 'mayan', routes: [[M1, B]], script: { kind: 'hang' } },
    ], { deadlines: { fast: 300, optimal: 600 } });
    const t0 = performance.now();
    const res = await router.route(request(A, B, AMOUNT, { mode: 'fast' }));
    const took = performance.now() - t0;
    // One deadline after the second hop was asked would end the quote near 500 ms.
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(300 + 150);
    const hung = res.audit.multiHop.attempts.find((a) => a.venue === 'mayan')!;
    expect(hung).toMatchObject({ round: 1, status: 'timed_out' });
    // Asked about 200 ms in and cut at 300: about 100 ms, against 300 for a deadline of its own.
    expect(hung.elapsedMs).toBeLessThan(200);
    expect(res.best).toBeNull();
  });

  it('a hop whose amount does not cover its cost is failed without asking the venue', async () => {
    const { market, router } = setup([
      { id: 'kyberswap', routes: [[A, M1]], script: { kind: 'fixed', amountOut: 5n } },
      { id: 'mayan', routes: [[M1, B]] },
    ]);
    const res = await router.route(request(A, B, AMOUNT));
    expect(market.callsOf('mayan')).toHaveLength(0);
    const r1 = res.audit.multiHop.attempts[1]!;
    expect(r1).toMatchObject({ round: 1, venue: 'mayan', status: 'failed', amountIn: 5n });
    expect(r1.error).toMatch(/does not cover the execution cost/);
    expect(res.audit.multiHop.routes[0]!.status).toBe('failed');
  });
});

describe('multi hop runs concurrently with single hop, always', () => {
  it('searches two-hop routes even when the direct quote succeeds, at the same time', async () => {
    const { market, router } = setup([
      { id: 'cctp_fast', routes: [[A, B]], latencyMs: 300 },
      { id: 'kyberswap', routes: [[A, M1]], latencyMs: 150 },
      { id: 'mayan', routes: [[M1, B]], latencyMs: 150 },
    ], { deadlines: { fast: 1_000, optimal: 1_000 } });
    const t0 = performance.now();
    const res = await router.route(request(A, B, AMOUNT));
    const took = performance.now() - t0;
    expect(res.audit.singleHop[0]!.status).toBe('quoted');
    expect(res.audit.multiHop.routes[0]!.status).toBe('quoted');
    // The direct venue and the first hop were both asked before either answered.
    const [direct, first] = [market.callsOf('cctp_fast')[0]!, market.callsOf('kyberswap')[0]!];
    expect(Math.max(direct.askedAt, first.askedAt)).toBeLessThan(Math.min(direct.answeredAt!, first.answeredAt!));
    // One after the other would take 300 + 150 + 150 ms.
    expect(took).toBeLessThan(450);
  });
});

describe('best across single hop and multi hop', () => {
  it('a multi-hop route with more output is the quote: best true on that route, its route is result.best', async () => {
    const { router } = setup([
      { id: 'cctp_fast', routes: [[A, B]], script: { kind: 'rate', bps: 9_000 } },
      { id: 'kyberswap', routes: [[A, Y]], script: { kind: 'rate', bps: 9_990 } },
      { id: 'relay', routes: [[Y, B]], script: { kind: 'rate', bps: 9_990 } },
    ]);
    const req = request(A, B, AMOUNT);
    const res = await router.route(req);
    expect(res.audit.singleHop[0]!.best).toBe(false);
    const route = res.audit.multiHop.routes[0]!;
    expect(route.best).toBe(true);
    expect(route.route).toBe(res.best);
    expect(checkResultInvariants(res, req)).toEqual([]);
  });

  it('on a tie between single hop and multi hop, single hop wins', async () => {
    const { router } = setup([
      { id: 'cctp_fast', routes: [[A, B]], script: { kind: 'fixed', amountOut: 900_000_000n } },
      { id: 'kyberswap', routes: [[A, Y]] },
      { id: 'relay', routes: [[Y, B]], script: { kind: 'fixed', amountOut: 900_000_000n } },
    ]);
    const res = await router.route(request(A, B, AMOUNT));
    expect(res.audit.multiHop.routes[0]!.route!.estimatedAmountOut).toBe(res.audit.singleHop[0]!.route!.estimatedAmountOut);
    expect(res.audit.singleHop[0]!.best).toBe(true);
    expect(res.audit.multiHop.routes[0]!.best).toBe(false);
    expect(res.best).toBe(res.audit.singleHop[0]!.route);
  });
});
