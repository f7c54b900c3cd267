// Route invariants (spec 2.2–2.4) as properties: over every asset pair of the registry, amounts across many orders
// of magnitude, both quote modes and random venue lists, every priced route and the `best` marking must hold, on the
// simulated market and on a scripted fake market with hangs and failures. Also: the checker catches each violation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../../src/assets/registry.js';
import type { AssetId } from '../../../src/assets/types.js';
import { checkResultInvariants, checkRouteInvariants, createRouter, type PricedRoute, type RouteRequest } from '../../../src/routing/index.js';
import { createSimMarket, EXAMPLE_PAIRS, VENUE_IDS, type VenueId } from '../../../src/venues/index.js';
import { fakeMarket, id, request, type FakeVenueSpec, type Script } from './fake-market.js';

const DEADLINES = { fast: 15, optimal: 30 };
const PAIRS: [AssetId, AssetId][] = ASSETS.flatMap((a) => ASSETS.filter((b) => b.id !== a.id).map((b) => [a.id, b.id] as [AssetId, AssetId]));

const pair = fc.constantFrom(...PAIRS);
const mode = fc.constantFrom<'fast' | 'optimal'>('fast', 'optimal');
/** 1 to 9999 × 10^0..10^26 base units: from dust to far beyond any venue's depth, for every decimals. */
const anyAmount = fc.tuple(fc.integer({ min: 1, max: 9_999 }), fc.integer({ min: 0, max: 26 })).map(([m, e]) => BigInt(m) * 10n ** BigInt(e));
const venueLists = fc.oneof(
  fc.constant({ allowlist: [] as VenueId[], blocklist: [] as VenueId[] }),
  fc.subarray([...VENUE_IDS], { minLength: 1 }).map((allowlist) => ({ allowlist, blocklist: [] as VenueId[] })),
  fc.subarray([...VENUE_IDS], { minLength: 1 }).map((blocklist) => ({ allowlist: [] as VenueId[], blocklist })),
);

async function routeOnSim(seed: number, failures: boolean, req: RouteRequest) {
  const market = createSimMarket({ seed, latencyScale: 0, failures });
  const router = createRouter({ market, deadlines: DEADLINES, pathLimit: 64 });
  return { market, res: await router.route(req) };
}

describe('invariants of every priced route, on the simulated market', () => {
  it('hold for random pairs, amounts over many orders of magnitude, modes and venue lists', async () => {
    let quoted = 0;
    await fc.assert(
      fc.asyncProperty(pair, anyAmount, mode, venueLists, fc.integer({ min: 0, max: 2 ** 31 }), fc.boolean(), async ([from, to], amountIn, m, lists, seed, failures) => {
        const req: RouteRequest = { from, to, amountIn, mode: m, ...lists };
        const { market, res } = await routeOnSim(seed, failures, req);
        expect(checkResultInvariants(res, req, { prices: market })).toEqual([]);
        if (res.best) {
          quoted++;
          expect(checkRouteInvariants(res.best, req, { prices: market })).toEqual([]);
        }
      }),
      { numRuns: 120 },
    );
    // Not vacuous: a fair share of the random requests produced a route the invariants were checked on.
    expect(quoted).toBeGreaterThan(10);
  });

  it('hold for realistic sizes (50 to 100000 USD) on every pair, and most pairs quote', async () => {
    let quoted = 0;
    let multi = 0;
    await fc.assert(
      fc.asyncProperty(pair, fc.integer({ min: 50, max: 100_000 }), mode, fc.integer({ min: 0, max: 2 ** 31 }), async ([from, to], usd, m, seed) => {
        const market = createSimMarket({ seed, latencyScale: 0, failures: true });
        const asset = ASSETS.find((a) => a.id === from)!;
        const amountIn = (BigInt(usd) * 10n ** 8n * 10n ** BigInt(asset.decimals)) / market.usdPrice(asset);
        const req: RouteRequest = { from, to, amountIn, mode: m, allowlist: [], blocklist: [] };
        const res = await createRouter({ market, deadlines: DEADLINES, pathLimit: 64 }).route(req);
        expect(checkResultInvariants(res, req, { prices: market })).toEqual([]);
        if (res.best) quoted++;
        if (res.best && res.best.steps.length > 1) multi++;
      }),
      { numRuns: 100 },
    );
    expect(quoted).toBeGreaterThan(50);
    expect(multi).toBeGreaterThan(0);
  });

  it('hold on the example pairs, direct and multi-hop only', async () => {
    for (const p of [...EXAMPLE_PAIRS.direct, ...EXAMPLE_PAIRS.multiHopOnly]) {
      const req = request(p.from, p.to, p.amountIn, { mode: 'optimal' });
      const { market, res } = await routeOnSim(7, false, req);
      expect(res.best, p.name).not.toBeNull();
      expect(checkResultInvariants(res, req, { prices: market }), p.name).toEqual([]);
    }
    for (const p of EXAMPLE_PAIRS.multiHopOnly) {
      const { res } = await routeOnSim(7, false, request(p.from, p.to, p.amountIn));
      expect(res.audit.singleHop, p.name).toEqual([]);
      expect(res.best!.steps.length, p.name).toBe(2);
    }
  });
});

describe('invariants on a scripted market with hangs, failures and arbitrary answers', () => {
  const assets = [id('base', 'USDC'), id('base', 'ETH'), id('arbitrum', 'USDC'), id('ethereum', 'USDC'), id('bitcoin', 'BTC'), id('hyperliquid', 'USDC')];
  const script: fc.Arbitrary<Script> = fc.oneof(
    fc.integer({ min: 1, max: 12_000 }).map((bps) => ({ kind: 'rate', bps }) as Script),
    fc.bigInt({ min: 1n, max: 10n ** 20n }).map((amountOut) => ({ kind: 'fixed', amountOut }) as Script),
    fc.constant<Script>({ kind: 'fail', message: 'scripted failure' }),
    fc.constant<Script>({ kind: 'hang' }),
    fc.constant<Script>({ kind: 'honour' }),
  );
  const edge = fc.tuple(fc.constantFrom(...assets), fc.constantFrom(...assets)).filter(([a, b]) => a !== b);
  const venue = fc.record({ routes: fc.uniqueArray(edge, { minLength: 1, maxLength: 5, selector: ([a, b]) => `${a}>${b}` }), script });
  const market = fc.uniqueArray(fc.tuple(fc.constantFrom(...VENUE_IDS), venue), { minLength: 1, maxLength: 6, selector: ([v]) => v });

  it('hold, and no answer takes longer than the deadline', async () => {
    await fc.assert(
      fc.asyncProperty(market, fc.constantFrom(...assets), fc.constantFrom(...assets), anyAmount, mode, async (venues, from, to, amountIn, m) => {
        fc.pre(from !== to);
        const specs: FakeVenueSpec[] = venues.map(([v, s]) => ({ id: v, routes: s.routes, script: s.script }));
        const fake = fakeMarket(specs);
        const req = request(from, to, amountIn, { mode: m });
        const res = await createRouter({ market: fake, deadlines: DEADLINES, pathLimit: 16 }).route(req);
        expect(checkResultInvariants(res, req, { prices: fake })).toEqual([]);
        // The cut-off's timer can fire late on a loaded machine; a venue never cut would hang the test instead.
        const slack = DEADLINES[m] + 100;
        for (const c of res.audit.singleHop) expect(c.elapsedMs).toBeLessThan(slack);
        for (const a of res.audit.multiHop.attempts) expect(a.elapsedMs).toBeLessThan(slack);
      }),
      { numRuns: 80 },
    );
  });
});

describe('checkRouteInvariants reports each broken rule', () => {
  const FROM = id('base', 'USDC');
  const MID = id('base', 'USDT');
  const TO = id('arbitrum', 'USDC');
  const req = request(FROM, TO, 1_000_000n);
  const good = (): PricedRoute => ({
    from: FROM,
    to: TO,
    amountIn: 1_000_000n,
    steps: [
      { venue: 'kyberswap', from: FROM, to: MID, execution: { mode: 'evm_gas_desk', chain: 8453 }, stepAmountIn: 1_000_000n, venueAmountIn: 990_000n, venueAmountOut: 985_000n, stepAmountOut: 985_000n },
      { venue: 'mayan', from: MID, to: TO, execution: { mode: 'evm_gas_desk', chain: 8453 }, stepAmountIn: 985_000n, venueAmountIn: 980_000n, venueAmountOut: 970_000n, stepAmountOut: 970_000n },
    ],
    delivery: { amountIn: 970_000n, executionCost: 10_000n, amountOut: 960_000n },
    estimatedAmountOut: 960_000n,
  });

  it('a sound route has no violation', () => {
    expect(checkRouteInvariants(good(), req)).toEqual([]);
  });

  const cases: [string, (r: PricedRoute) => void, RegExp][] = [
    ['first step_amount_in is not the from amount', (r) => { r.steps[0]!.stepAmountIn = 999_999n; }, /not the from amount/],
    ['step_amount_in is not the previous step_amount_out', (r) => { r.steps[1]!.stepAmountIn = 984_000n; }, /not the previous stepAmountOut/],
    ['venue_amount_in above step_amount_in', (r) => { r.steps[0]!.venueAmountIn = 1_000_001n; }, /exceeds stepAmountIn/],
    ['negative venue_amount_in', (r) => { r.steps[0]!.venueAmountIn = -1n; }, /is negative/],
    ['step_amount_out differs from venue_amount_out', (r) => { r.steps[1]!.stepAmountOut = 969_000n; }, /not venueAmountOut/],
    ['a step does not start where the previous ended', (r) => { r.steps[1]!.from = id('base', 'WETH'); }, /not the previous step's to/],
    ['the first step does not start at from', (r) => { r.steps[0]!.from = id('base', 'ETH'); }, /not the request's from/],
    ['the last step does not end at to', (r) => { r.steps[1]!.to = id('ink', 'USDC'); }, /not the request's to/],
    ['delivery amount_in is not the last step_amount_out', (r) => { r.delivery.amountIn = 1n; }, /not the last stepAmountOut/],
    ['delivery amount_out is not amount_in less cost', (r) => { r.delivery.amountOut = 960_001n; }, /less executionCost/],
    ['estimated_amount_out is not delivery amount_out', (r) => { r.estimatedAmountOut = 1n; }, /not delivery.amountOut/],
    ['execution mode does not follow the from asset', (r) => { r.steps[0]!.execution = { mode: 'evm', chain: 8453 }; }, /execution/],
    ['an asset repeats on the route', (r) => { r.steps[1]!.to = FROM; }, /already on the route/],
  ];
  for (const [rule, mutate, message] of cases) {
    it(`catches: ${rule}`, () => {
      const r = good();
      mutate(r);
      const v = checkRouteInvariants(r, req);
      expect(v.length).toBeGreaterThan(0);
      expect(v.join(' | ')).toMatch(message);
    });
  }

  it('catches a venue excluded by the request lists, and costs off the table when prices are given', () => {
    expect(checkRouteInvariants(good(), { ...req, blocklist: ['mayan'] }).join()).toMatch(/venue lists exclude/);
    expect(checkRouteInvariants(good(), { ...req, allowlist: ['kyberswap'] }).join()).toMatch(/venue lists exclude/);
    const prices = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    expect(checkRouteInvariants(good(), req, { prices }).join()).toMatch(/not the table's/);
  });
});
