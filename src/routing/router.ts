// The router: admits venues, runs single hop and multi hop concurrently under the quote mode's per-venue deadline,
// and picks the best priced route, marking it in the audit. Never throws for "nothing quoted": best is then null.
import { assetById } from '../assets/registry.js';
import type { Market } from '../venues/types.js';
import { admitVenues, assertVenueLists } from './admission.js';
import { refundCost as refundCostOf } from './costing.js';
import { createCutoff } from './ask-venue.js';
import { multiHop } from './multi-hop.js';
import { buildGraph, searchPaths, type PathSearch } from './paths.js';
import { singleHop } from './single-hop.js';
import { exactOutputSearch } from './exact-output.js';
import { createSearchContext } from './steps.js';
import type { AssetId } from '../assets/types.js';
import type { Venue } from '../venues/types.js';
import type {
  ExactOutputRequest, ExactOutputResult, PricedRoute, QuoteAudit, QuoteMode, RoutedBest, RouteRequest, RoutingResult, SingleHopCandidate,
} from './types.js';

/** Per-venue deadlines of spec 4 (`quote_mode`): optimal gives each venue 10 s, fast cuts it off at 1.5 s. */
export const DEFAULT_DEADLINES: Readonly<Record<QuoteMode, number>> = Object.freeze({ fast: 1_500, optimal: 10_000 });
/** Multi-hop combinations tried at the hop count found; beyond it `complete` is false (spec 8 leaves it open). */
export const DEFAULT_PATH_LIMIT = 64;
/** Longest multi-hop route searched, in venue steps. */
export const DEFAULT_MAX_HOPS = 3;

export interface RouterDeps {
  market: Market;
  deadlines: { fast: number; optimal: number };
  pathLimit: number;
  maxHops?: number;
  /** Skip multi-hop asks that cannot beat the best route already quoted (default true; false runs the full search,
   *  which returns the same best: the pruning property test compares the two). */
  prune?: boolean;
}

/** Path searches kept per router: one per (admitted venues, pair) seen, the oldest dropped beyond this. */
const PATH_CACHE_SIZE = 512;

export interface Router {
  /** Rejects with VenueListConflict when both venue lists are set; otherwise resolves, best null when nothing quoted. */
  route(req: RouteRequest): Promise<RoutingResult>;
  /** route() for a caller that shows no candidates: the same search and the same best route and refund cost, without
   *  the audit (no entry is built for a candidate that does not quote). */
  routeBest(req: RouteRequest): Promise<RoutedBest>;
  /** The smallest input whose route delivers at least `amountOut` (exact-output.ts); best null when none does. */
  exactOutput(req: ExactOutputRequest): Promise<ExactOutputResult>;
}

export function createRouter(deps: RouterDeps): Router {
  const maxHops = deps.maxHops ?? DEFAULT_MAX_HOPS;
  for (const [name, ms] of Object.entries(deps.deadlines)) {
    if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`Deadline ${name} must be a positive number of ms, got ${ms}.`);
  }
  if (!Number.isInteger(deps.pathLimit) || deps.pathLimit < 1) throw new RangeError(`pathLimit must be an integer >= 1, got ${deps.pathLimit}.`);
  if (!Number.isInteger(maxHops) || maxHops < 2) throw new RangeError(`maxHops must be an integer >= 2, got ${maxHops}.`);
  const { market } = deps;
  const prune = deps.prune ?? true;
  // Venue routes are static for the life of the process (the Venue port says so), so the graph of an admitted
  // venue set and its path search for a pair are the same for every quote: built once, not per quote.
  const searches = new Map<string, PathSearch>();
  const pathSearch = (venues: readonly Venue[], from: AssetId, to: AssetId): PathSearch => {
    const key = `${venues.map((v) => v.id).join(',')}|${from}|${to}`;
    let found = searches.get(key);
    if (found === undefined) {
      found = searchPaths(buildGraph(venues), from, to, maxHops, deps.pathLimit);
      if (searches.size >= PATH_CACHE_SIZE) searches.delete(searches.keys().next().value!);
      searches.set(key, found);
    }
    return found;
  };

  function search(req: RouteRequest, pruning: boolean, audited: true): Promise<RoutingResult>;
  function search(req: RouteRequest, pruning: boolean, audited: false): Promise<RoutedBest>;
  async function search(req: RouteRequest, pruning: boolean, audited: boolean): Promise<RoutedBest | RoutingResult> {
    assertVenueLists(req.allowlist, req.blocklist);
    const from = assetById(req.from);
    const to = assetById(req.to);
    const venues = admitVenues(market, req.allowlist, req.blocklist);
    const ctx = createSearchContext(market, deps.deadlines[req.mode]);
    // One cut-off for the whole search: no venue is waited for past the mode's deadline from the quote's start.
    const run = { cutoff: createCutoff(ctx.deadlineMs), prune: pruning, leader: -1n };
    let single: SingleHopCandidate[];
    let multi: QuoteAudit['multiHop'];
    try {
      // Always both: a direct quote does not make a two-hop route through a deeper pool less likely to win.
      const singleDone = singleHop(ctx, run, req, from, to, venues);
      // Direct venues that answer at once have answered by the next macrotask; starting the walk then lets their
      // best prune multi-hop paths before their first ask. A slower venue delays it by no more than that turn.
      const started = pruning ? Promise.race([singleDone, new Promise<void>((r) => setImmediate(r))]) : undefined;
      [single, multi] = await Promise.all([
        singleDone,
        multiHop(ctx, run, req, from, to, venues, { maxHops, pathLimit: deps.pathLimit }, pathSearch(venues, from.id, to.id), started, audited),
      ]);
    } finally {
      run.cutoff.close();
    }

    // Highest output wins; strict `>` keeps the first found on a tie, and single hop is looked at first. Without the
    // audit, multi.routes holds the quoted routes only, in the same order, so the same route wins.
    let winner: { best: boolean; route?: PricedRoute } | null = null;
    for (const c of [...single, ...multi.routes]) {
      if (c.status !== 'quoted' || !c.route) continue;
      if (winner === null || c.route.estimatedAmountOut > winner.route!.estimatedAmountOut) winner = c;
    }
    if (winner) winner.best = true;
    // A refund pays the source asset back from the deposit address on its own chain (see `refundCost`).
    const refundCost = refundCostOf(market, from);
    const best = winner?.route ?? null;
    return audited ? { best, refundCost, audit: { singleHop: single, multiHop: multi } } : { best, refundCost };
  }

  const router: Router = {
    route: (req) => search(req, prune, true),
    routeBest: (req) => search(req, prune, false),
    async exactOutput(req) {
      // Checked before the first routing, so a bad request rejects as route() would and costs no venue call.
      assertVenueLists(req.allowlist, req.blocklist);
      const from = assetById(req.from);
      const to = assetById(req.to);
      // Its first routing runs unpruned: it takes the best few quoted paths, not only the best one, to search, and
      // a path pruned for losing at the first input may win at the answer's input.
      return exactOutputSearch({ market, deadlineMs: deps.deadlines[req.mode], route: (r) => search(r, false, true), from, to }, req);
    },
  };
  return router;
}
