// Typed errors of the core: a stable `code` each family maps to a status, and a `retriable` flag.
// Errors cross the bus as plain data (toErrorData / fromErrorData), so the edge sees the same class.
import type { QuoteAudit } from './routing/types.js';

export interface ErrorData {
  code: string;
  message: string;
  retriable: boolean;
  details?: unknown;
}

export class RouterError extends Error {
  readonly code: string = 'internal';
  readonly retriable: boolean = false;
  readonly details: unknown;
  constructor(message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** A request that breaks a rule of the contract; the message is one sentence naming the field and the rule. */
export class InvalidRequest extends RouterError {
  override readonly code: string = 'invalid_request';
  constructor(message: string, readonly field?: string) {
    super(message, field === undefined ? undefined : { field });
  }
}
export class UnknownAsset extends InvalidRequest {
  override readonly code = 'unknown_asset';
}
export class InvalidAmount extends InvalidRequest {
  override readonly code = 'invalid_amount';
}
export class InvalidAddress extends InvalidRequest {
  override readonly code = 'invalid_address';
}
export class VenueListConflict extends InvalidRequest {
  override readonly code = 'venue_list_conflict';
}
/** What a refused quote carries: the core QuoteAudit when candidates were asked, else null. */
export interface QuoteRefusalDetails {
  audit: QuoteAudit | null;
}
/** Nothing could quote the pair and amount. */
export class QuoteRefused extends RouterError {
  override readonly code = 'quote_refused';
  declare readonly details: QuoteRefusalDetails | undefined;
  constructor(message: string, details?: QuoteRefusalDetails) {
    super(message, details);
  }
  /** The candidates the refusal was decided on, when the request asked for them. */
  get audit(): QuoteAudit | null {
    return this.details?.audit ?? null;
  }
}
export class QuoteNotFound extends RouterError {
  override readonly code = 'quote_not_found';
}
export class QuoteExpired extends RouterError {
  override readonly code = 'quote_expired';
}
export class QuoteAlreadyBound extends RouterError {
  override readonly code = 'quote_already_bound';
}
export class OrderNotFound extends RouterError {
  override readonly code = 'order_not_found';
}
/** A cancel or unwind asked of an order that is executing or already done. */
export class OrderNotCancellable extends RouterError {
  override readonly code = 'order_not_cancellable';
}
/** An authorization (refund token, signature) that is not valid for the order. */
export class Unauthorized extends RouterError {
  override readonly code = 'unauthorized';
}
/** An order selling more than the router's limit for its asset (ROUTER_ORDER_MAX_DEPOSIT): refused before its quote
 *  is bound. */
export class AmountAboveLimit extends RouterError {
  override readonly code = 'amount_above_limit';
}
/** An order whose refund could not be paid: refused before its quote is bound. */
export class RefundNotViable extends RouterError {
  override readonly code = 'refund_not_viable';
}
export class SnapshotConflict extends RouterError {
  override readonly code = 'snapshot_conflict';
  override readonly retriable = true;
}
export class VenueTimeout extends RouterError {
  override readonly code = 'venue_timeout';
  override readonly retriable = true;
}
export class VenueFailed extends RouterError {
  override readonly code = 'venue_failed';
  override readonly retriable = true;
}
export class Unavailable extends RouterError {
  override readonly code = 'unavailable';
  override readonly retriable = true;
}
/** A command its actor kind does not know (not in the kind's protocol). Sent by our own code only, e.g. an edge newer
 *  than the worker it reaches; answering it as a read would hide the mismatch, so it fails and maps to 500. */
export class UnknownCommand extends RouterError {
  override readonly code = 'unknown_command';
}
/** A bus message (a command, or a reply) whose fields are not of the protocol's shape: sent by our own code only, e.g.
 *  by a process of another version during a rolling deploy. Refused where it arrives; maps to 500. */
export class MalformedMessage extends RouterError {
  override readonly code = 'malformed_message';
}
export class ConfigError extends RouterError {
  override readonly code = 'config_invalid';
}

/**
 * A store write whose outcome is unknown: the server may have applied it or not (a write concern not met within its
 * time limit, a connection lost after the write was sent). It is not a SnapshotConflict: a conflict says the write
 * was refused and nothing changed, and here the new snapshot may be stored. The runtime stops the actor on any failed
 * save; its next message or wake-up reloads whichever version is stored: reload and decide. Retriable for callers.
 */
export class StoreOutcomeUnknown extends RouterError {
  override readonly code = 'store_outcome_unknown';
  override readonly retriable = true;
}

const classes: Record<string, new (message: string, details?: never) => RouterError> = {
  invalid_request: InvalidRequest,
  unknown_asset: UnknownAsset,
  invalid_amount: InvalidAmount,
  invalid_address: InvalidAddress,
  venue_list_conflict: VenueListConflict,
  quote_refused: QuoteRefused,
  quote_not_found: QuoteNotFound,
  quote_expired: QuoteExpired,
  quote_already_bound: QuoteAlreadyBound,
  order_not_found: OrderNotFound,
  order_not_cancellable: OrderNotCancellable,
  unauthorized: Unauthorized,
  refund_not_viable: RefundNotViable,
  amount_above_limit: AmountAboveLimit,
  store_outcome_unknown: StoreOutcomeUnknown,
  snapshot_conflict: SnapshotConflict,
  venue_timeout: VenueTimeout,
  venue_failed: VenueFailed,
  unavailable: Unavailable,
  unknown_command: UnknownCommand,
  malformed_message: MalformedMessage,
};

export function toErrorData(err: unknown): ErrorData {
  if (err instanceof RouterError) {
    // No `details` key without details: what crosses the bus is what JSON carries.
    return { code: err.code, message: err.message, retriable: err.retriable, ...(err.details === undefined ? {} : { details: err.details }) };
  }
  return { code: 'internal', message: err instanceof Error ? err.message : String(err), retriable: false };
}

export function fromErrorData(data: ErrorData): RouterError {
  const Cls = classes[data.code];
  if (!Cls) return new RouterError(data.message, data.details as never);
  if (Cls === InvalidRequest || Cls.prototype instanceof InvalidRequest) {
    const field = (data.details as { field?: string } | undefined)?.field;
    return new (Cls as unknown as new (m: string, f?: string) => RouterError)(data.message, field);
  }
  return new Cls(data.message, data.details as never);
}
