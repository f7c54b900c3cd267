// Single hop (spec 2.4 single_hop, 4 quote_mode): every admitted venue serving the pair is asked in parallel, each
// cut off at the mode's deadline, and each answer becomes a one-step priced route with its costing audit.
import { describe, expect, it } from 'vitest';
import { VenueListConflict } from '../../../src/errors.js';
import { checkResultInvariants, checkRouteInvariants, createRouter, deliveryCost, stepCost } from '../../../src/routing/index.js';
import { assetById, fakeMarket, id, request, type FakeVenueSpec } from './fake-market.js';

const BASE_USDC = id('base', 'USDC');
const ARB_USDC = id('arbitrum', 'USDC');
const ETH_USDC = id('ethereum', 'USDC');
const BRIDGE: readonly (readonly [string, string])[] = [[BASE_USDC, ARB_USDC]];

function setup(specs: FakeVenueSpec[], deadlines = { fast: 25, optimal: 200 }) {
  const market = fakeMarket(specs);
  return { market, router: createRouter({ market, deadlines, pathLimit: 64 }) };
}

describe('single hop: every admitted venue that serves the pair directly is asked, in parallel', () => {
  it('asks each direct venue once, concurrently, and lists one candidate per venue asked', async () => {
    const { market, router } = setup3(150, { fast: 25, optimal: 1_000 });
    const t0 = performance.now();
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { mode: 'optimal' }));
    const took = performance.now() - t0;
    expect(res.audit.singleHop.map((c) => c.venue)).toEqual(['across', 'cctp_fast', 'relay']);
    expect(market.calls.map((c) => c.venue).sort()).toEqual(['across', 'cctp_fast', 'relay']);
    // Concurrently: every venue was asked before any answered.
    const lastAsked = Math.max(...market.calls.map((c) => c.askedAt));
    expect(market.calls.every((c) => c.answeredAt !== null && c.answeredAt > lastAsked)).toBe(true);
    // Three 150 ms venues one after the other would take 450 ms.
    expect(took).toBeLessThan(300);
    for (const c of res.audit.singleHop) {
      expect(c.status).toBe('quoted');
      expect(Number.isInteger(c.elapsedMs)).toBe(true);
      expect(c.elapsedMs).toBeGreaterThanOrEqual(145);
    }
  });

  it('a venue that does not serve the pair is not asked and not listed', async () => {
    const { market, router } = setup([
      { id: 'across', routes: BRIDGE },
      { id: 'kyberswap', routes: [[BASE_USDC, id('base', 'USDT')]] },
    ]);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n));
    expect(res.audit.singleHop.map((c) => c.venue)).toEqual(['across']);
    expect(market.callsOf('kyberswap')).toHaveLength(0);
  });
});

function setup3(latencyMs: number, deadlines?: { fast: number; optimal: number }) {
  return setup([
    { id: 'across', routes: BRIDGE, latencyMs, script: { kind: 'rate', bps: 9_990 } },
    { id: 'cctp_fast', routes: BRIDGE, latencyMs, script: { kind: 'rate', bps: 9_999 } },
    { id: 'relay', routes: BRIDGE, latencyMs, script: { kind: 'rate', bps: 9_995 } },
  ], deadlines);
}

describe('quote_mode deadline: a venue that does not answer in time is timed_out', () => {
  it('a venue that hangs (and ignores the abort) is reported timed_out within the deadline', async () => {
    const { router } = setup([
      { id: 'across', routes: BRIDGE, script: { kind: 'hang' } },
      { id: 'relay', routes: BRIDGE },
    ]);
    const t0 = performance.now();
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { mode: 'fast' }));
    const took = performance.now() - t0;
    const hung = res.audit.singleHop.find((c) => c.venue === 'across')!;
    expect(hung.status).toBe('timed_out');
    expect(hung.route).toBeUndefined();
    expect(hung.error).toBeUndefined();
    expect(hung.elapsedMs).toBeGreaterThanOrEqual(24);
    expect(hung.elapsedMs).toBeLessThan(25 + 100);
    expect(took).toBeLessThan(25 + 150);
    expect(res.best?.steps[0]?.venue).toBe('relay');
  });

  it('the venue receives an AbortSignal that fires at the deadline', async () => {
    const { market, router } = setup([{ id: 'across', routes: BRIDGE, script: { kind: 'honour' } }]);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n));
    expect(res.audit.singleHop[0]!.status).toBe('timed_out');
    expect(market.calls[0]!.signal.aborted).toBe(true);
  });

  it('fast cuts a venue off at the fast deadline, optimal waits up to the optimal one', async () => {
    const { router } = setup([{ id: 'across', routes: BRIDGE, latencyMs: 60 }], { fast: 20, optimal: 300 });
    const fast = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { mode: 'fast' }));
    const optimal = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { mode: 'optimal' }));
    expect(fast.audit.singleHop[0]!.status).toBe('timed_out');
    expect(fast.best).toBeNull();
    expect(optimal.audit.singleHop[0]!.status).toBe('quoted');
    expect(optimal.best).not.toBeNull();
  });
});

describe('failed: the venue refused, or the amount cannot pay for execution', () => {
  it('a venue error becomes a failed candidate carrying the venue message', async () => {
    const { router } = setup([{ id: 'across', routes: BRIDGE, script: { kind: 'fail', message: 'across: no relayer has enough capital' } }]);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n));
    expect(res.audit.singleHop[0]).toMatchObject({ venue: 'across', status: 'failed', best: false, error: 'across: no relayer has enough capital' });
  });

  it('when the step cost is at least the amount, the venue is not asked and the candidate fails saying so', async () => {
    const { market, router } = setup([{ id: 'across', routes: BRIDGE }]);
    const cost = stepCost(market, assetById(BASE_USDC), assetById(ARB_USDC));
    const res = await router.route(request(BASE_USDC, ARB_USDC, cost));
    expect(market.calls).toHaveLength(0);
    const c = res.audit.singleHop[0]!;
    expect(c.status).toBe('failed');
    expect(c.error).toMatch(/does not cover the execution cost/);
    expect(c.elapsedMs).toBe(0);
  });

  it('when the delivery cost is at least the venue output, the candidate fails saying so', async () => {
    const { router } = setup([{ id: 'across', routes: BRIDGE, script: { kind: 'fixed', amountOut: 500n } }]);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n));
    expect(res.audit.singleHop[0]).toMatchObject({ status: 'failed' });
    expect(res.audit.singleHop[0]!.error).toMatch(/does not cover the delivery cost/);
    expect(res.best).toBeNull();
  });

  it('when everything fails, best is null, every candidate is listed, and nothing is thrown', async () => {
    const { router } = setup([
      { id: 'across', routes: BRIDGE, script: { kind: 'fail', message: 'across: paused' } },
      { id: 'cctp_fast', routes: BRIDGE, script: { kind: 'hang' } },
      { id: 'relay', routes: [...BRIDGE, [BASE_USDC, ETH_USDC], [ETH_USDC, ARB_USDC]], script: { kind: 'fail', message: 'relay: quote expired' } },
    ]);
    const req = request(BASE_USDC, ARB_USDC, 1_000_000_000n);
    const res = await router.route(req);
    expect(res.best).toBeNull();
    expect(res.audit.singleHop.map((c) => [c.venue, c.status, c.best])).toEqual([
      ['across', 'failed', false],
      ['cctp_fast', 'timed_out', false],
      ['relay', 'failed', false],
    ]);
    expect(res.audit.multiHop.hops).toBe(2);
    expect(res.audit.multiHop.routes).toHaveLength(1);
    expect(res.audit.multiHop.routes[0]).toMatchObject({ status: 'failed', best: false });
    expect(res.audit.multiHop.routes[0]!.error).toMatch(/relay: quote expired/);
    expect(checkResultInvariants(res, req)).toEqual([]);
  });
});

describe('quoted: a one-step priced route and its costing audit', () => {
  it('venue_amount_in = from_amount less the step cost; step_amount_out = venue_amount_out; delivery pays its cost', async () => {
    const { market, router } = setup([{ id: 'across', routes: BRIDGE, script: { kind: 'fixed', amountOut: 999_000_000n } }]);
    const req = request(BASE_USDC, ARB_USDC, 1_000_000_000n);
    const res = await router.route(req);
    const c = res.audit.singleHop[0]!;
    const cost = stepCost(market, assetById(BASE_USDC), assetById(ARB_USDC));
    const dcost = deliveryCost(market, assetById(ARB_USDC));
    expect(market.calls[0]!.amountIn).toBe(1_000_000_000n - cost);
    expect(c.route!.steps).toEqual([
      {
        venue: 'across', from: BASE_USDC, to: ARB_USDC, execution: { mode: 'evm_gas_desk', chain: 8453 },
        stepAmountIn: 1_000_000_000n, venueAmountIn: 1_000_000_000n - cost, venueAmountOut: 999_000_000n, stepAmountOut: 999_000_000n,
      },
    ]);
    expect(c.route!.delivery).toEqual({ amountIn: 999_000_000n, executionCost: dcost, amountOut: 999_000_000n - dcost });
    expect(c.route!.estimatedAmountOut).toBe(999_000_000n - dcost);
    expect(c.costing).toEqual({ venue: 'across', observedAmountIn: 1_000_000_000n - cost, observedAmountOut: 999_000_000n });
    expect(checkRouteInvariants(c.route!, req, { prices: market })).toEqual([]);
  });
});

describe('best: the highest estimated amount out, marked on exactly that candidate', () => {
  it('marks the venue with the highest output and returns its route', async () => {
    const { router } = setup3(0);
    const req = request(BASE_USDC, ARB_USDC, 1_000_000_000n);
    const res = await router.route(req);
    const best = res.audit.singleHop.filter((c) => c.best);
    expect(best.map((c) => c.venue)).toEqual(['cctp_fast']);
    expect(best[0]!.route).toBe(res.best);
    expect(checkResultInvariants(res, req)).toEqual([]);
  });

  it('on a tie the first found wins', async () => {
    const { router } = setup([
      { id: 'across', routes: BRIDGE, script: { kind: 'fixed', amountOut: 990_000_000n }, latencyMs: 15 },
      { id: 'relay', routes: BRIDGE, script: { kind: 'fixed', amountOut: 990_000_000n } },
    ]);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n));
    expect(res.audit.singleHop.map((c) => c.best)).toEqual([true, false]);
  });
});

describe('venue_allowlist and venue_blocklist', () => {
  const specs: FakeVenueSpec[] = [
    { id: 'across', routes: BRIDGE },
    { id: 'cctp_fast', routes: BRIDGE },
    { id: 'relay', routes: BRIDGE },
  ];
  it('an allowlist quotes only its venues', async () => {
    const { market, router } = setup(specs);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { allowlist: ['relay', 'okx'] }));
    expect(res.audit.singleHop.map((c) => c.venue)).toEqual(['relay']);
    expect(new Set(market.calls.map((c) => c.venue))).toEqual(new Set(['relay']));
  });
  it('a blocklist quotes every venue but its own', async () => {
    const { market, router } = setup(specs);
    const res = await router.route(request(BASE_USDC, ARB_USDC, 1_000_000_000n, { blocklist: ['across'] }));
    expect(res.audit.singleHop.map((c) => c.venue)).toEqual(['cctp_fast', 'relay']);
    expect(market.callsOf('across')).toHaveLength(0);
  });
  it('both lists set is refused with VenueListConflict, before any venue is asked', async () => {
    const { market, router } = setup(specs);
    const req = request(BASE_USDC, ARB_USDC, 1_000_000_000n, { allowlist: ['relay'], blocklist: ['across'] });
    await expect(router.route(req)).rejects.toBeInstanceOf(VenueListConflict);
    await expect(router.route(req)).rejects.toThrow(/cannot both be set/);
    expect(market.calls).toHaveLength(0);
  });
});
