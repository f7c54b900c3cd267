// Single hop: every admitted venue serving the pair directly is asked in parallel, each under the mode's deadline,
// and each answer becomes a one-step priced route (or a failed / timed_out candidate of the audit).
import type { Asset } from '../assets/types.js';
import type { Venue } from '../venues/types.js';
import { askBefore } from './ask-venue.js';
import { finishRoute, makeStep, offerLeader, planStep, type SearchContext, type SearchRun } from './steps.js';
import type { RouteRequest, SingleHopCandidate } from './types.js';

export async function singleHop(ctx: SearchContext, run: SearchRun, req: RouteRequest, from: Asset, to: Asset, venues: readonly Venue[]): Promise<SingleHopCandidate[]> {
  const direct = venues.filter((v) => v.supports(from.id, to.id));
  return Promise.all(direct.map((v) => candidate(ctx, run, req, from, to, v)));
}

async function candidate(ctx: SearchContext, run: SearchRun, req: RouteRequest, from: Asset, to: Asset, venue: Venue): Promise<SingleHopCandidate> {
  const head = { venue: venue.id, best: false };
  const plan = planStep(ctx, from, to, req.amountIn);
  // Not worth a venue call: whatever it answered, the execution cost alone exceeds the amount.
  if (!plan.ok) return { ...head, elapsedMs: 0, status: 'failed', error: plan.error };
  const asked = await askBefore(run.cutoff, venue, from, to, plan.venueAmountIn);
  if (asked.status === 'timed_out') return { ...head, elapsedMs: asked.elapsedMs, status: 'timed_out' };
  if (asked.status === 'failed') return { ...head, elapsedMs: asked.elapsedMs, status: 'failed', error: asked.error };
  const step = makeStep(venue.id, from, to, req.amountIn, plan.venueAmountIn, asked.amountOut);
  const done = finishRoute(ctx, req, to, [step]);
  if (!done.ok) return { ...head, elapsedMs: asked.elapsedMs, status: 'failed', error: done.error };
  offerLeader(run, done.route);
  return {
    ...head,
    elapsedMs: asked.elapsedMs,
    status: 'quoted',
    route: done.route,
    costing: { venue: venue.id, observedAmountIn: plan.venueAmountIn, observedAmountOut: asked.amountOut },
  };
}
