// A quote in the internal language: what was asked, the best route, and when it stops binding.
import type { AmountFormat, AssetId } from '../assets/types.js';
import type { PricedRoute, QuoteAudit, RouteRequest } from '../routing/types.js';

export const QUOTE_VALIDITY_MS = 10 * 60 * 1000;

/** A validated POST /quote in core terms; the presentation flags travel with it because the order inherits `format`. */
export interface QuoteRequest extends RouteRequest {
  format: AmountFormat;
  returnFullRoute: boolean;
  includeCandidates: boolean;
  /**
   * Exact output: the least the route must deliver, base units of `to`. The router then finds the smallest input
   * whose route delivers it (src/routing/exact-output.ts) and the request's `amountIn` is 0; the quote's
   * `route.amountIn` is the input found. Absent: exact input of `amountIn`.
   */
  exactOut?: bigint;
  /** The client's slippage tolerance in basis points (Family C): the bounds of its order derive from it. */
  slippageBps?: number;
}

export interface Quote {
  id: string;
  request: QuoteRequest;
  route: PricedRoute;
  /** Cost of one refund of the source asset (see RoutingResult.refundCost); the order created from it refunds with it. */
  refundCost: bigint;
  /** Kept only when includeCandidates was asked. */
  audit: QuoteAudit | null;
  quotedAt: number;
  expiresAt: number;
  /** USD reference price (8 decimals per whole unit) of every asset on the route and of its cost assets, when
   *  priced: fee breakdowns in USD read them, so an edge needs no market of its own. */
  usdPrices: Record<AssetId, bigint>;
  /** Venue rounds an exact-output search took (1 for exact input). */
  rounds: number;
}
