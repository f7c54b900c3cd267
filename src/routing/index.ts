// Public names of the routing module: the router, its defaults, the costing functions and the route invariants.
export type {
  CandidateStatus, Delivery, ExactOutputRequest, ExactOutputResult, MultiHopAttempt, MultiHopRoute, PricedRoute, QuoteAudit, QuoteMode, RoutedBest, RouteRequest, RouteStep,
  RoutingResult, SingleHopCandidate,
} from './types.js';
export { createRouter, DEFAULT_DEADLINES, DEFAULT_MAX_HOPS, DEFAULT_PATH_LIMIT, type Router, type RouterDeps } from './router.js';
export { COST_TABLE, deliveryCost, executionFor, refundCost, stepCost, stepKind, type StepKind, type UsdPrices } from './costing.js';
export { checkResultInvariants, checkRouteInvariants, type InvariantOptions, type InvariantRequest } from './invariants.js';
export { admitVenues, assertVenueLists } from './admission.js';
export { assetPaths, buildGraph, searchPaths, type AssetGraph, type CandidatePath, type PathSearch } from './paths.js';
export {
  CANDIDATE_PATHS, MAX_PROBES, MAX_ROUNDS, BASE_PROBES, estimateInput, newBracket, nextProbes, nextSpread, observe, predict, probeCount, settled,
  slopePair, topPaths, type Bracket, type Observation, type Prediction,
} from './exact-output.js';
export { pathKey, pricePath, type PathPrice, type PathSpec } from './price-path.js';
