// A quote in the internal language: what was asked, the best route, and when it stops binding.
import type { AmountFormat } from '../assets/types.js';
import type { PricedRoute, QuoteAudit, RouteRequest } from '../routing/types.js';

export const QUOTE_VALIDITY_MS = 10 * 60 * 1000;

/** A validated POST /quote in core terms; the presentation flags travel with it because the order inherits `format`. */
export interface QuoteRequest extends RouteRequest {
  format: AmountFormat;
  returnFullRoute: boolean;
  includeCandidates: boolean;
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
}
