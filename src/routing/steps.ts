// Turning venue answers into priced steps and routes: the amounts of spec 2.2–2.3 are computed here and only here,
// so single-hop and multi-hop routes obey the same arithmetic.
import type { Asset } from '../assets/types.js';
import type { Market, VenueId } from '../venues/types.js';
import { deliveryCost, executionFor, stepCost } from './costing.js';
import type { Cutoff } from './ask-venue.js';
import type { PricedRoute, RouteRequest, RouteStep } from './types.js';

/** One search (one route() call): the deadline and costs fixed once, so the same step always costs the same. */
export interface SearchContext {
  readonly market: Market;
  readonly deadlineMs: number;
  stepCost(from: Asset, to: Asset): bigint;
  deliveryCost(asset: Asset): bigint;
}

/** What single hop and multi hop share while one route() runs: the one cut-off of its venue asks, and the best
 *  output quoted so far, which multi hop compares a path's upper bound with before asking its next venue. */
export interface SearchRun {
  readonly cutoff: Cutoff;
  /** Whether multi hop skips asks that cannot beat `leader` (off only to compare against the full search). */
  readonly prune: boolean;
  /** Highest estimated output among the routes quoted so far; -1 before the first. */
  leader: bigint;
}

export function offerLeader(run: SearchRun, route: PricedRoute): void {
  if (route.estimatedAmountOut > run.leader) run.leader = route.estimatedAmountOut;
}

export function createSearchContext(market: Market, deadlineMs: number): SearchContext {
  // Cached per search: a price moved mid-search must not give two paths different costs for one identical step
  // (the shared-request cache of multi-hop relies on it).
  // Keyed by the registry's frozen Asset objects (one per id), so a lookup builds no string.
  const steps = new Map<Asset, Map<Asset, bigint>>();
  const deliveries = new Map<Asset, bigint>();
  return {
    market,
    deadlineMs,
    stepCost(from, to) {
      let byTo = steps.get(from);
      if (byTo === undefined) steps.set(from, (byTo = new Map()));
      let c = byTo.get(to);
      if (c === undefined) byTo.set(to, (c = stepCost(market, from, to)));
      return c;
    },
    deliveryCost(asset) {
      let c = deliveries.get(asset);
      if (c === undefined) deliveries.set(asset, (c = deliveryCost(market, asset)));
      return c;
    },
  };
}

export type Planned = { ok: true; venueAmountIn: bigint } | { ok: false; error: string };

/** What the venue is asked to price: the amount at hand less the step's cost; refused when the cost eats it all. */
export function planStep(ctx: SearchContext, from: Asset, to: Asset, stepAmountIn: bigint): Planned {
  const cost = ctx.stepCost(from, to);
  if (cost >= stepAmountIn) {
    return {
      ok: false,
      error: `The amount ${stepAmountIn} (base units of ${name(from)}) does not cover the execution cost ${cost} of this step.`,
    };
  }
  return { ok: true, venueAmountIn: stepAmountIn - cost };
}

export function makeStep(venue: VenueId, from: Asset, to: Asset, stepAmountIn: bigint, venueAmountIn: bigint, venueAmountOut: bigint): RouteStep {
  return {
    venue,
    from: from.id,
    to: to.id,
    execution: executionFor(from),
    stepAmountIn,
    venueAmountIn,
    venueAmountOut,
    // The venue delivers into the router's vault on the step's destination chain, and the next step (or delivery)
    // pays its own cost from there, so nothing is taken between the venue's output and the step's output.
    stepAmountOut: venueAmountOut,
  };
}

export type Finished = { ok: true; route: PricedRoute } | { ok: false; error: string };

/** Adds the delivery into to_address after the last step; refused when its cost eats the whole output. */
export function finishRoute(ctx: SearchContext, req: RouteRequest, to: Asset, steps: RouteStep[]): Finished {
  const last = steps[steps.length - 1];
  if (!last) return { ok: false, error: 'A route needs at least one step.' };
  const amountIn = last.stepAmountOut;
  const executionCost = ctx.deliveryCost(to);
  if (executionCost >= amountIn) {
    return {
      ok: false,
      error: `The output ${amountIn} (base units of ${name(to)}) does not cover the delivery cost ${executionCost}.`,
    };
  }
  const amountOut = amountIn - executionCost;
  return {
    ok: true,
    route: {
      from: req.from,
      to: req.to,
      amountIn: req.amountIn,
      steps,
      delivery: { amountIn, executionCost, amountOut },
      estimatedAmountOut: amountOut,
    },
  };
}

/** How errors name an asset: readable, and unambiguous with the chain. */
export function name(a: Asset): string {
  return `${a.chain} ${a.symbol}`;
}
