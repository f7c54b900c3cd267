// The arithmetic every priced route obeys (spec 2.2–2.3) and the `best` rules of the audit (2.4), as pure checks that
// list violations, so property tests here and the quote tests elsewhere can assert them on any result.
import { assetById } from '../assets/registry.js';
import type { VenueId } from '../venues/types.js';
import { deliveryCost, executionFor, stepCost, type UsdPrices } from './costing.js';
import type { PricedRoute, RouteRequest, RoutingResult } from './types.js';

export type InvariantRequest = Pick<RouteRequest, 'from' | 'to' | 'amountIn'> & Partial<Pick<RouteRequest, 'allowlist' | 'blocklist'>>;

export interface InvariantOptions {
  /** When given, each step's and the delivery's cost must equal the cost table priced at these prices. */
  prices?: UsdPrices;
}

/** Violations of the route invariants, one sentence each; empty when the route is sound. */
export function checkRouteInvariants(route: PricedRoute, req: InvariantRequest, opts: InvariantOptions = {}): string[] {
  const v: string[] = [];
  if (route.from !== req.from) v.push(`route.from ${route.from} is not the request's from ${req.from}.`);
  if (route.to !== req.to) v.push(`route.to ${route.to} is not the request's to ${req.to}.`);
  if (route.amountIn !== req.amountIn) v.push(`route.amountIn ${route.amountIn} is not the request's amount ${req.amountIn}.`);
  const steps = route.steps;
  if (steps.length === 0) v.push('the route has no step.');
  const seen = new Set<string>([req.from]);
  steps.forEach((s, i) => {
    const at = `step ${i} (${s.venue})`;
    const prev = steps[i - 1];
    if (prev === undefined) {
      if (s.from !== req.from) v.push(`${at} starts from ${s.from}, not the request's from ${req.from}.`);
      if (s.stepAmountIn !== req.amountIn) v.push(`${at} stepAmountIn ${s.stepAmountIn} is not the from amount ${req.amountIn}.`);
    } else {
      if (s.from !== prev.to) v.push(`${at} starts from ${s.from}, not the previous step's to ${prev.to}.`);
      if (s.stepAmountIn !== prev.stepAmountOut) v.push(`${at} stepAmountIn ${s.stepAmountIn} is not the previous stepAmountOut ${prev.stepAmountOut}.`);
    }
    if (seen.has(s.to)) v.push(`${at} returns to ${s.to}, already on the route.`);
    seen.add(s.to);
    if (s.venueAmountIn < 0n) v.push(`${at} venueAmountIn ${s.venueAmountIn} is negative.`);
    if (s.venueAmountIn > s.stepAmountIn) v.push(`${at} venueAmountIn ${s.venueAmountIn} exceeds stepAmountIn ${s.stepAmountIn}.`);
    if (s.stepAmountOut !== s.venueAmountOut) v.push(`${at} stepAmountOut ${s.stepAmountOut} is not venueAmountOut ${s.venueAmountOut}.`);
    if (!admitted(s.venue, req)) v.push(`${at} uses venue ${s.venue}, which the venue lists exclude.`);
    const from = tryAsset(s.from);
    const to = tryAsset(s.to);
    if (!from) v.push(`${at} starts from unknown asset ${s.from}.`);
    if (!to) v.push(`${at} ends in unknown asset ${s.to}.`);
    if (from) {
      const want = executionFor(from);
      if (JSON.stringify(want) !== JSON.stringify(s.execution)) {
        v.push(`${at} execution ${JSON.stringify(s.execution)} is not ${JSON.stringify(want)} for its from asset.`);
      }
    }
    if (opts.prices && from && to) {
      const cost = stepCost(opts.prices, from, to);
      if (s.stepAmountIn - s.venueAmountIn !== cost) v.push(`${at} costs ${s.stepAmountIn - s.venueAmountIn}, not the table's ${cost}.`);
    }
  });
  const last = steps[steps.length - 1];
  if (last && last.to !== req.to) v.push(`the last step ends in ${last.to}, not the request's to ${req.to}.`);
  const d = route.delivery;
  if (last && d.amountIn !== last.stepAmountOut) v.push(`delivery.amountIn ${d.amountIn} is not the last stepAmountOut ${last.stepAmountOut}.`);
  if (d.executionCost < 0n) v.push(`delivery.executionCost ${d.executionCost} is negative.`);
  if (d.amountOut !== d.amountIn - d.executionCost) v.push(`delivery.amountOut ${d.amountOut} is not amountIn ${d.amountIn} less executionCost ${d.executionCost}.`);
  if (d.amountOut <= 0n) v.push(`delivery.amountOut ${d.amountOut} is not positive.`);
  if (route.estimatedAmountOut !== d.amountOut) v.push(`estimatedAmountOut ${route.estimatedAmountOut} is not delivery.amountOut ${d.amountOut}.`);
  if (opts.prices) {
    const to = tryAsset(req.to);
    const cost = to ? deliveryCost(opts.prices, to) : null;
    if (cost !== null && d.executionCost !== cost) v.push(`delivery.executionCost ${d.executionCost} is not the table's ${cost}.`);
  }
  return v;
}

/**
 * Violations of the result rules: every quoted route passes checkRouteInvariants; `best` is true on exactly one
 * candidate (single-hop entry or multi-hop route) whose route is result.best, and it has the highest output, the
 * earliest among equals, single hop first; with nothing quoted, best is null and no flag is set.
 */
export function checkResultInvariants(result: RoutingResult, req: InvariantRequest, opts: InvariantOptions = {}): string[] {
  const v: string[] = [];
  const { singleHop, multiHop } = result.audit;
  const quoted: { label: string; route: PricedRoute; best: boolean }[] = [];
  singleHop.forEach((c, i) => {
    const label = `single_hop[${i}] (${c.venue})`;
    if (c.status === 'quoted') {
      if (!c.route || !c.costing) v.push(`${label} is quoted without a route or costing.`);
      else {
        quoted.push({ label, route: c.route, best: c.best });
        if (c.route.steps.length !== 1) v.push(`${label} has ${c.route.steps.length} steps, not one.`);
        const s = c.route.steps[0];
        if (s && (c.costing.observedAmountIn !== s.venueAmountIn || c.costing.observedAmountOut !== s.venueAmountOut || c.costing.venue !== s.venue)) {
          v.push(`${label} costing audit does not match its step.`);
        }
      }
    } else if (c.best) v.push(`${label} is ${c.status} but marked best.`);
    if (c.status === 'failed' && !c.error) v.push(`${label} failed without an error.`);
    if (!Number.isInteger(c.elapsedMs) || c.elapsedMs < 0) v.push(`${label} elapsedMs ${c.elapsedMs} is not a whole number >= 0.`);
  });
  multiHop.routes.forEach((r, i) => {
    const label = `multi_hop.routes[${i}]`;
    if (r.status === 'quoted') {
      if (!r.route) v.push(`${label} is quoted without a route.`);
      else {
        quoted.push({ label, route: r.route, best: r.best });
        if (r.route.steps.map((s) => s.venue).join() !== r.venues.join()) v.push(`${label} steps do not use its venues.`);
        if ([r.route.from, ...r.route.steps.map((s) => s.to)].join() !== r.assets.join()) v.push(`${label} steps do not follow its assets.`);
      }
    } else {
      if (r.best) v.push(`${label} failed but is marked best.`);
      if (!r.error) v.push(`${label} failed without an error.`);
    }
  });
  multiHop.attempts.forEach((a, i) => {
    if (!Number.isInteger(a.elapsedMs) || a.elapsedMs < 0) v.push(`multi_hop.attempts[${i}] elapsedMs ${a.elapsedMs} is not a whole number >= 0.`);
    if (a.status === 'quoted' && !a.step) v.push(`multi_hop.attempts[${i}] is quoted without a step.`);
    if (a.status === 'failed' && !a.error) v.push(`multi_hop.attempts[${i}] failed without an error.`);
  });
  if ((multiHop.hops === null) !== (multiHop.setupError !== null)) v.push('multi_hop.hops is null exactly when setup_error is set, and it is not so.');
  if (multiHop.paths !== multiHop.routes.length) v.push(`multi_hop.paths ${multiHop.paths} is not the number of routes ${multiHop.routes.length}.`);
  for (const q of quoted) for (const m of checkRouteInvariants(q.route, req, opts)) v.push(`${q.label}: ${m}`);

  const flagged = quoted.filter((q) => q.best);
  if (result.best === null) {
    if (quoted.length > 0) v.push(`best is null although ${quoted.length} candidates quoted.`);
    if (flagged.length > 0) v.push('best is null but a candidate is marked best.');
    return v;
  }
  if (flagged.length !== 1) v.push(`${flagged.length} candidates are marked best, not exactly one.`);
  const winner = flagged[0];
  if (winner && winner.route !== result.best) v.push(`${winner.label} is marked best but its route is not result.best.`);
  const top = quoted.reduce<(typeof quoted)[number] | undefined>((b, q) => (b === undefined || q.route.estimatedAmountOut > b.route.estimatedAmountOut ? q : b), undefined);
  if (top && winner && top !== winner) v.push(`${winner.label} is marked best but ${top.label} is the first with the highest output.`);
  return v;
}

function admitted(venue: VenueId, req: InvariantRequest): boolean {
  if (req.allowlist && req.allowlist.length > 0) return req.allowlist.includes(venue);
  return !(req.blocklist ?? []).includes(venue);
}

function tryAsset(id: string) {
  try {
    return assetById(id);
  } catch {
    return undefined;
  }
}
