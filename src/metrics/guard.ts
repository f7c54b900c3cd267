// The overload guard's figures (http/overload.ts): each refusal counted by reason (router_requests_refused_total)
// and the quotes holding a slot read at each scrape (router_quotes_in_flight). The guard takes its refusal hook when
// it is made, so the caller makes it with the hooks given here; src/ does not import http/, hence the shapes below.

import type { Metrics } from './registry.js';

/** What the guard tells of each refusal (its `EdgeGuardHooks`). */
export interface GuardMetricHooks {
  refused(reason: string): void;
}

/** Makes the guard with `create` and wires it to the metrics; answers the guard. */
export function meteredGuard<G extends { inFlight(): number }>(metrics: Metrics, create: (hooks: GuardMetricHooks) => G): G {
  const guard = create({ refused: (reason) => metrics.requestsRefused.inc({ reason }) });
  metrics.observeQuotesInFlight(guard.inFlight);
  return guard;
}
