// Prices one known path (a single-hop venue or a multi-hop venue sequence) at one input, hop by hop, with the same
// arithmetic as route() (planStep, askVenue, makeStep, finishRoute), so a path priced here and the same path found
// by route() at that input agree to the base unit.
import { assetById } from '../assets/registry.js';
import type { Asset, AssetId } from '../assets/types.js';
import type { Market, VenueId } from '../venues/types.js';
import { askVenue, type AskOutcome } from './ask-venue.js';
import { finishRoute, makeStep, name, planStep, type SearchContext } from './steps.js';
import type { PricedRoute, RouteRequest, RouteStep } from './types.js';

/** A path as the audit names it: h + 1 assets and h venues, venues[i] runs assets[i] -> assets[i + 1]. */
export interface PathSpec {
  assets: readonly AssetId[];
  venues: readonly VenueId[];
}

/**
 * - `quoted`: every hop answered and the delivery is paid; `route.amountIn` is the input priced.
 * - `refused`: a step or the delivery cost eats the amount. Deterministic for this input and every smaller one,
 *   so a search may count it as "delivers less than any target".
 * - `unknown`: a venue failed, timed out, or the caller stopped waiting. Says nothing about the input: a venue that
 *   fails at random may answer the same ask next time.
 */
export type PathPrice =
  | { status: 'quoted'; route: PricedRoute }
  | { status: 'refused'; error: string }
  | { status: 'unknown'; error: string };

export interface PricePathOptions {
  /** Stops waiting for the venue at once (the venue's call is abandoned, as askVenue does at its deadline). */
  signal?: AbortSignal;
}

export function pathKey(p: PathSpec): string {
  return `${p.assets.join('>')}|${p.venues.join('>')}`;
}

export async function pricePath(
  ctx: SearchContext,
  req: Pick<RouteRequest, 'from' | 'to' | 'mode' | 'allowlist' | 'blocklist'>,
  path: PathSpec,
  amountIn: bigint,
  opts: PricePathOptions = {},
): Promise<PathPrice> {
  if (path.venues.length === 0 || path.assets.length !== path.venues.length + 1) {
    return { status: 'refused', error: 'A path needs h + 1 assets for its h venues.' };
  }
  const assets = path.assets.map((id) => assetById(id));
  const steps: RouteStep[] = [];
  let amount = amountIn;
  for (let hop = 0; hop < path.venues.length; hop++) {
    const a = assets[hop]!;
    const b = assets[hop + 1]!;
    const venueId = path.venues[hop]!;
    const plan = planStep(ctx, a, b, amount);
    if (!plan.ok) return { status: 'refused', error: plan.error };
    const asked = await askUnder(ctx.market, venueId, a, b, plan.venueAmountIn, ctx.deadlineMs, opts.signal);
    if (asked.status !== 'quoted') {
      const what = `Hop ${hop} (${venueId}, ${name(a)} -> ${name(b)})`;
      return {
        status: 'unknown',
        error: asked.status === 'timed_out' ? `${what} did not answer within ${ctx.deadlineMs} ms.` : `${what} failed: ${asked.error}`,
      };
    }
    const step = makeStep(venueId, a, b, amount, plan.venueAmountIn, asked.amountOut);
    steps.push(step);
    amount = step.stepAmountOut;
  }
  const done = finishRoute(ctx, { ...req, amountIn }, assets[assets.length - 1]!, steps);
  return done.ok ? { status: 'quoted', route: done.route } : { status: 'refused', error: done.error };
}

/** askVenue, also cut short by the caller's signal: a search round stops waiting for its stragglers. */
async function askUnder(market: Market, venueId: VenueId, a: Asset, b: Asset, amountIn: bigint, deadlineMs: number, signal?: AbortSignal): Promise<AskOutcome> {
  const venue = market.venue(venueId);
  if (!signal) return askVenue(venue, a, b, amountIn, deadlineMs);
  if (signal.aborted) return { status: 'timed_out', elapsedMs: 0 };
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<AskOutcome>((resolve) => {
    onAbort = () => resolve({ status: 'timed_out', elapsedMs: 0 });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([askVenue(venue, a, b, amountIn, deadlineMs), stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
