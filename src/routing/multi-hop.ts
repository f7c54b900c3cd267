// Multi hop: walks the candidate paths of paths.ts hop by hop, asking each hop's venue for the amount that reached
// it, every request under the search's cut-off. Identical requests within one search are asked once and shared.
// Before each ask, a path whose venues all bound their answers (Venue.quoteBound) is dropped when even its bound
// cannot beat the best route already quoted: it could never be the answer, so the ask would be wasted.
import { assetById } from '../assets/registry.js';
import type { Asset } from '../assets/types.js';
import type { Venue, VenueId } from '../venues/types.js';
import { askBefore } from './ask-venue.js';
import type { CandidatePath, PathSearch } from './paths.js';
import { finishRoute, makeStep, name, offerLeader, planStep, type SearchContext, type SearchRun } from './steps.js';
import type { MultiHopAttempt, MultiHopRoute, QuoteAudit, RouteRequest, RouteStep } from './types.js';

/** The Asset objects of a path, looked up once per path: the path searches are cached and reused by every quote. */
const pathAssets = new WeakMap<CandidatePath, readonly Asset[]>();
function assetsOf(path: CandidatePath): readonly Asset[] {
  let found = pathAssets.get(path);
  if (found === undefined) pathAssets.set(path, (found = path.assets.map((id) => assetById(id))));
  return found;
}

export interface MultiHopBounds {
  maxHops: number;
  pathLimit: number;
}

interface Shared {
  attempt: MultiHopAttempt;
  /** Creation order, and the lowest path index that used the request: the audit lists attempts by round, then path. */
  seq: number;
  minPath: number;
  done: Promise<MultiHopAttempt>;
}

export async function multiHop(
  ctx: SearchContext,
  run: SearchRun,
  req: RouteRequest,
  from: Asset,
  to: Asset,
  venues: readonly Venue[],
  bounds: MultiHopBounds,
  search: PathSearch,
  /** Resolves when the walk may start (after the direct venues had their chance to answer); at once when absent. */
  started?: Promise<unknown>,
  /** False when nobody reads the audit (Router.routeBest): `routes` then lists the quoted routes only and `attempts`
   *  is empty, so a path that does not quote costs no audit entry (the error texts of the 64 pruned paths of a
   *  direct pair were about half of its routing work). The winner among the quoted routes is the same. */
  audited = true,
): Promise<QuoteAudit['multiHop']> {
  if (search.hops === null) {
    return {
      paths: 0,
      complete: search.complete,
      hops: null,
      attempts: [],
      routes: [],
      setupError:
        from.id === to.id
          ? `The asset sold and the asset received are the same (${name(from)}), so no path exists.`
          : `No path of 2 to ${bounds.maxHops} hops connects ${name(from)} to ${name(to)} through the admitted venues.`,
    };
  }

  const byId = new Map<VenueId, Venue>(venues.map((v) => [v.id, v]));
  const shared = new Map<string, Shared>();

  const request = (round: number, venue: VenueId, a: Asset, b: Asset, stepAmountIn: bigint, pathIndex: number): Promise<MultiHopAttempt> => {
    // The step cost is fixed per search, so the amount at hand determines the amount asked: keying on it is keying
    // on (venue, from, to, amount asked).
    const key = `${venue}|${a.id}|${b.id}|${stepAmountIn}`;
    const hit = shared.get(key);
    if (hit) {
      hit.minPath = Math.min(hit.minPath, pathIndex);
      return hit.done;
    }
    const attempt: MultiHopAttempt = { round, from: a.id, to: b.id, amountIn: stepAmountIn, venue, elapsedMs: 0, status: 'failed' };
    const entry: Shared = { attempt, seq: shared.size, minPath: pathIndex, done: runAttempt(attempt, a, b) };
    shared.set(key, entry);
    return entry.done;
  };

  const runAttempt = async (attempt: MultiHopAttempt, a: Asset, b: Asset): Promise<MultiHopAttempt> => {
    const plan = planStep(ctx, a, b, attempt.amountIn);
    if (!plan.ok) {
      attempt.error = plan.error;
      return attempt;
    }
    const venue = byId.get(attempt.venue);
    if (!venue) {
      attempt.error = `Venue ${attempt.venue} is not admitted.`;
      return attempt;
    }
    const asked = await askBefore(run.cutoff, venue, a, b, plan.venueAmountIn);
    attempt.elapsedMs = asked.elapsedMs;
    attempt.status = asked.status;
    if (asked.status === 'failed') attempt.error = asked.error;
    if (asked.status === 'quoted') attempt.step = makeStep(venue.id, a, b, attempt.amountIn, plan.venueAmountIn, asked.amountOut);
    return attempt;
  };

  /** The most the rest of the path, from `round` on with `amount` at hand, could deliver; null when unbounded. */
  const boundFrom = (assets: readonly Asset[], path: CandidatePath, round: number, amount: bigint): bigint | null => {
    let out = amount;
    for (let r = round; r < path.venues.length; r++) {
      const a = assets[r]!;
      const b = assets[r + 1]!;
      const cost = ctx.stepCost(a, b);
      // A refused step fails the path on its own when reached, without a venue call; nothing to save by pruning.
      if (cost >= out) return null;
      const bound = byId.get(path.venues[r]!)?.quoteBound?.(a, b, out - cost);
      if (bound === undefined) return null;
      out = bound;
    }
    return out - ctx.deliveryCost(assets[assets.length - 1]!);
  };

  // Copies: the path search is cached across quotes, and an audit must not share arrays with another one.
  const head = (path: CandidatePath) => ({ assets: [...path.assets], venues: [...path.venues], best: false });
  /** A path that quotes nothing: its audit entry, or null (and no error text built) when there is no audit. */
  const failed = (path: CandidatePath, error: () => string): MultiHopRoute | null =>
    audited ? { ...head(path), status: 'failed', error: error() } : null;

  const walk = async (path: CandidatePath, index: number): Promise<MultiHopRoute | null> => {
    const assets = assetsOf(path);
    const steps: RouteStep[] = [];
    let amount = req.amountIn;
    // A path moves to its next round as soon as its own previous hop answered: rounds are positions on the path,
    // and no path waits for a slower, unrelated one.
    for (let round = 0; round < path.venues.length; round++) {
      const a = assets[round]!;
      const b = assets[round + 1]!;
      const venue = path.venues[round]!;
      if (run.prune && run.leader >= 0n) {
        // Strictly below: a pruned path could not even tie, so the winner (and who wins a tie) is unchanged.
        const bound = boundFrom(assets, path, round, amount);
        if (bound !== null && bound < run.leader) {
          const leader = run.leader;
          return failed(
            path,
            () =>
              `Not asked from round ${round} (${venue}, ${name(a)} -> ${name(b)}) on: this path delivers at most ${bound} base units of ${name(assets[assets.length - 1]!)}, less than the ${leader} already quoted.`,
          );
        }
      }
      const got = await request(round, venue, a, b, amount, index);
      if (got.status !== 'quoted' || !got.step) {
        return failed(path, () => {
          const what = `Round ${round} (${venue}, ${name(a)} -> ${name(b)})`;
          return got.status === 'timed_out'
            ? `${what} did not answer within ${ctx.deadlineMs} ms.`
            : `${what} failed: ${got.error ?? 'no reason given.'}`;
        });
      }
      steps.push({ ...got.step });
      amount = got.step.stepAmountOut;
    }
    const done = finishRoute(ctx, req, assets[assets.length - 1]!, steps);
    if (!done.ok) return failed(path, () => done.error);
    offerLeader(run, done.route);
    return { ...head(path), status: 'quoted', route: done.route };
  };

  if (started) await started;
  const walked = await Promise.all(search.paths.map((p, i) => walk(p, i)));
  const routes = walked.filter((r): r is MultiHopRoute => r !== null);
  const attempts = audited
    ? [...shared.values()]
        .sort((x, y) => x.attempt.round - y.attempt.round || x.minPath - y.minPath || x.seq - y.seq)
        .map((s) => s.attempt)
    : [];
  return {
    // Counts the paths enumerated and tried (= routes.length); `complete: false` says more existed (README).
    paths: search.paths.length,
    complete: search.complete,
    hops: search.hops,
    attempts,
    routes,
    setupError: null,
  };
}
