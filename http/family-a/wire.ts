// Family A on the wire (spec 2.2–2.5): snake_case, amounts as strings, assets written per `format`.
// These types mirror schemas.ts; the tests validate every answer against the served document to keep them in step.
import type { RefundReason } from '../../src/orders/money.js';
import type { AmountFormat } from '../../src/assets/types.js';
import type { OrderStatus } from '../../src/orders/types.js';
import type { QuoteMode } from '../../src/routing/types.js';
import type { Execution, VenueId } from '../../src/venues/types.js';

/** The POST /quote body after schema validation (optional fields may still be absent). */
export interface WireQuoteRequest {
  from: string;
  to: string;
  from_amount: string;
  return_full_route: boolean;
  format?: AmountFormat;
  quote_mode?: QuoteMode;
  include_candidates?: boolean;
  venue_allowlist?: VenueId[];
  venue_blocklist?: VenueId[];
}

export interface WireDelivery {
  amount_in: string;
  execution_cost: string;
  amount_out: string;
}

/** Same shape as the core's Execution (mode + chain for the EVM modes). */
export type WireExecution = Execution;

export interface WireRouteStep {
  execution: WireExecution;
  from: string;
  to: string;
  step_amount_in: string;
  step_amount_out: string;
  venue: VenueId;
  venue_amount_in: string;
  venue_amount_out: string;
}

export interface WireQuote {
  format: AmountFormat;
  id: string;
  from: string;
  to: string;
  from_amount: string;
  estimated_amount_out: string;
  delivery: WireDelivery;
  expires_at: string;
  venue_allowlist: VenueId[];
  venue_blocklist: VenueId[];
  route?: WireRouteStep[];
  quote_candidates?: WireQuoteAudit | null;
}

export type WireStatusTail<Quoted> =
  | ({ status: 'quoted' } & Quoted)
  | { status: 'failed'; error: string }
  | { status: 'timed_out' };

export type WireSingleHopCandidate = { venue: VenueId; elapsed_ms: number; best: boolean } & WireStatusTail<{
  quote: WireQuote;
  costing_audit: { venue: VenueId; observed_amount_in: string; observed_amount_out: string };
}>;

export type WireMultiHopAttempt = {
  round: number;
  from: string;
  to: string;
  amount_in: string;
  venue: VenueId;
  elapsed_ms: number;
} & WireStatusTail<{ step: WireRouteStep }>;

export type WireMultiHopRoute = { assets: string[]; venues: VenueId[]; best: boolean } & (
  | { status: 'quoted'; quote: WireQuote }
  | { status: 'failed'; error: string }
);

export interface WireQuoteAudit {
  single_hop: WireSingleHopCandidate[];
  multi_hop: {
    paths: number;
    complete: boolean;
    hops: number | null;
    attempts: WireMultiHopAttempt[];
    routes: WireMultiHopRoute[];
    setup_error: string | null;
  };
}

export interface WireQuoteRefusal {
  error: string;
  quote_candidates?: WireQuoteAudit | null;
}

/** The POST /order body after schema validation. */
export interface WireOrderRequest {
  quote_id: string;
  to_address: string;
  refund_address?: string | null;
}

export interface WireOrder {
  id: string;
  quote_id: string;
  vault_id: string;
  format: AmountFormat;
  from: string;
  to: string;
  from_amount: string;
  deposit_address: string;
  to_address: string;
  refund_address: string | null;
  venue_allowlist: VenueId[];
  venue_blocklist: VenueId[];
  status: OrderStatus;
  deposit_deadline: string;
  created_at: string;
  /** Absent until delivered; never null from this service. */
  amount_out?: string;
  /** Addition to the spec: every refund paid, oldest first; absent while there is none. */
  refunds?: WireRefund[];
}

export interface WireRefund {
  /** What reached `to_address`, in `from`, per `format` (the refund's own cost already taken). */
  amount: string;
  reason: RefundReason;
  to_address: string;
  /** Null when nothing was sent: the amount did not exceed what the refund transfer costs. */
  tx_id: string | null;
}

export interface WireError {
  error: string;
}
