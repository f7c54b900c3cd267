// Pruning of the multi-hop search: a path whose upper bound (Venue.quoteBound) cannot beat a route already quoted is
// not asked. Over random pairs and amounts of the simulated market (latency 0, failures off) the pruned search
// returns the very same best route as the full search, and it does prune (the property is not vacuous). routeBest, the
// same search without the audit, returns that best route too.
// PROPERTY_RUNS sets the runs (default 300), PROPERTY_SEED the seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../../src/assets/registry.js';
import { checkResultInvariants, createRouter, type RouteRequest } from '../../../src/routing/index.js';
import { createSimMarket, EXAMPLE_PAIRS, VENUE_IDS } from '../../../src/venues/index.js';
import { id, request } from './fake-market.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const SEED = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);
const DEADLINES = { fast: 1_500, optimal: 10_000 };

const market = createSimMarket({ seed: 5, latencyScale: 0, failures: false });
const pruned = createRouter({ market, deadlines: DEADLINES, pathLimit: 64 });
const full = createRouter({ market, deadlines: DEADLINES, pathLimit: 64, prune: false });

const pair = fc.tuple(fc.constantFrom(...ASSETS), fc.constantFrom(...ASSETS)).filter(([a, b]) => a.id !== b.id);
/** 1 cent to 5 million USD worth of the asset sold: dust, realistic sizes and beyond some venues' depth. */
const usdCents = fc.bigInt({ min: 1n, max: 500_000_000n });
const notAsked = (error: string | undefined) => error?.startsWith('Not asked') === true;

describe('multi-hop pruning keeps the best route of the full search', () => {
  it('the pruned search returns the same best as the unpruned one over random pairs and amounts', async () => {
    let prunedRoutes = 0;
    let quoted = 0;
    await fc.assert(
      fc.asyncProperty(pair, usdCents, fc.constantFrom<'fast' | 'optimal'>('fast', 'optimal'), async ([from, to], cents, mode) => {
        const amountIn = (cents * 10n ** BigInt(from.decimals) * 1_000_000n) / market.usdPrice(from);
        fc.pre(amountIn > 0n);
        const req: RouteRequest = { from: from.id, to: to.id, amountIn, mode, allowlist: [], blocklist: [] };
        const [a, b, c] = [await pruned.route(req), await full.route(req), await pruned.routeBest(req)];
        expect(a.best, `${from.id} -> ${to.id} ${amountIn}`).toEqual(b.best);
        // Without the audit, the same search decides the same best route and refund cost.
        expect(c, `routeBest ${from.id} -> ${to.id} ${amountIn}`).toEqual({ best: b.best, refundCost: a.refundCost });
        expect(checkResultInvariants(a, req, { prices: market })).toEqual([]);
        // The full search never prunes; the pruned one lists every path it did not finish, with the reason.
        expect(b.audit.multiHop.routes.filter((r) => notAsked(r.error))).toEqual([]);
        expect(a.audit.multiHop.routes.map((r) => [r.assets, r.venues])).toEqual(b.audit.multiHop.routes.map((r) => [r.assets, r.venues]));
        prunedRoutes += a.audit.multiHop.routes.filter((r) => notAsked(r.error)).length;
        if (a.best) quoted++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(quoted).toBeGreaterThan(RUNS / 4);
    expect(prunedRoutes).toBeGreaterThan(RUNS);
  });

  it('with a direct venue quoted, the multi-hop paths that cannot beat it are not asked', async () => {
    const { from, to, amountIn } = EXAMPLE_PAIRS.direct[0]!;
    const req = request(from, to, amountIn);
    const [a, b] = [await pruned.route(req), await full.route(req)];
    expect(a.best).toEqual(b.best);
    expect(a.audit.multiHop.attempts.length).toBeLessThan(b.audit.multiHop.attempts.length);
    const skipped = a.audit.multiHop.routes.filter((r) => notAsked(r.error));
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]!.error).toMatch(/delivers at most \d+ base units of .*, less than the \d+ already quoted\./);
    for (const r of skipped) expect(r.status).toBe('failed');
  });

  it('a venue without quoteBound is always asked: nothing is pruned on a market that cannot bound its answers', async () => {
    const unbounded = {
      venues: () => market.venues().map((v) => ({ id: v.id, routes: () => v.routes(), supports: v.supports.bind(v), quote: v.quote.bind(v), execute: v.execute.bind(v) })),
      venue: (v: (typeof VENUE_IDS)[number]) => market.venue(v),
      usdPrice: market.usdPrice,
    };
    const router = createRouter({ market: unbounded, deadlines: DEADLINES, pathLimit: 64 });
    const res = await router.route(request(id('base', 'USDC'), id('arbitrum', 'USDC'), 1_000_000_000n));
    expect(res.audit.multiHop.routes.filter((r) => notAsked(r.error))).toEqual([]);
  });
});
