// What routing produces, in the internal language (canonical ids, bigint base units, epoch ms).
import type { AssetId } from '../assets/types.js';
import type { Execution, VenueId } from '../venues/types.js';

export type QuoteMode = 'fast' | 'optimal';

export interface RouteRequest {
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  mode: QuoteMode;
  /** Empty = every venue. Never both non-empty (checked before routing). */
  allowlist: VenueId[];
  blocklist: VenueId[];
}

export interface RouteStep {
  venue: VenueId;
  from: AssetId;
  to: AssetId;
  execution: Execution;
  stepAmountIn: bigint;
  /** stepAmountIn less this step's execution cost. */
  venueAmountIn: bigint;
  venueAmountOut: bigint;
  stepAmountOut: bigint;
}

export interface Delivery {
  /** = last step's stepAmountOut */
  amountIn: bigint;
  executionCost: bigint;
  /** = amountIn - executionCost = the route's estimatedAmountOut */
  amountOut: bigint;
}

export interface PricedRoute {
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  steps: RouteStep[];
  delivery: Delivery;
  estimatedAmountOut: bigint;
}

export type CandidateStatus = 'quoted' | 'failed' | 'timed_out';

export interface SingleHopCandidate {
  venue: VenueId;
  elapsedMs: number;
  best: boolean;
  status: CandidateStatus;
  /** status quoted */
  route?: PricedRoute;
  costing?: { venue: VenueId; observedAmountIn: bigint; observedAmountOut: bigint };
  /** status failed */
  error?: string;
}

export interface MultiHopAttempt {
  round: number;
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  venue: VenueId;
  elapsedMs: number;
  status: CandidateStatus;
  step?: RouteStep;
  error?: string;
}

export interface MultiHopRoute {
  assets: AssetId[];
  venues: VenueId[];
  best: boolean;
  status: 'quoted' | 'failed';
  route?: PricedRoute;
  error?: string;
}

export interface QuoteAudit {
  singleHop: SingleHopCandidate[];
  multiHop: {
    paths: number;
    complete: boolean;
    hops: number | null;
    attempts: MultiHopAttempt[];
    routes: MultiHopRoute[];
    setupError: string | null;
  };
}

/** What a routing decides: the best route and the refund cost (Router.routeBest answers this alone). */
export interface RoutedBest {
  best: PricedRoute | null;
  /** What one refund transfer of the source asset costs on its chain (base units of `from`, rounded up): an order
   *  refunds with it, and one whose amount would not cover it is refused. */
  refundCost: bigint;
}

export interface RoutingResult extends RoutedBest {
  audit: QuoteAudit;
}

/** An exact-output ask: the least the route must deliver, base units of `to`. */
export interface ExactOutputRequest extends Omit<RouteRequest, 'amountIn'> {
  amountOut: bigint;
}

/** `best` is the route of the smallest input found that delivers at least `amountOut`; `rounds` counts the venue
 *  rounds the search took (the first, full routing included). */
export interface ExactOutputResult extends RoutingResult {
  rounds: number;
}
