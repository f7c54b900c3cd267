// The one table of Family A from error code to HTTP status, and the `{error}` envelope (spec 7). Only 4xx
// messages reach the caller; a 5xx says that something failed and gives the request id the log also has.
import { RouterError } from '../../src/errors.js';
import { HttpError } from '../http-error.js';
import type { WireError } from './wire.js';

export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  unknown_asset: 400,
  invalid_amount: 400,
  invalid_address: 400,
  venue_list_conflict: 400,
  quote_refused: 422,
  // POST /order: an unknown quote is a bad request, not a missing resource (spec 4).
  quote_not_found: 400,
  quote_already_bound: 409,
  quote_expired: 410,
  order_not_found: 404,
  // The refund of such an order could not be paid: refused at creation like any other invalid order request.
  refund_not_viable: 400,
  // The order sells more than the router takes in one order of its asset (ROUTER_ORDER_MAX_DEPOSIT).
  amount_above_limit: 400,
  order_not_cancellable: 409,
  unauthorized: 401,
  unavailable: 503,
  // A store write that may or may not have happened: the actor reloads; the caller retries (a repeat is idempotent).
  store_outcome_unknown: 503,
};

export interface ErrorReply {
  status: number;
  body: WireError;
  headers: Record<string, string>;
  /** Whether the caller sees the error's own message (4xx) or only the generic sentence (5xx). */
  exposed: boolean;
}

export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof RouterError) return STATUS_BY_CODE[err.code] ?? 500;
  // Koa / http-errors style errors (e.g. a malformed path) that declare themselves safe to show.
  const e = err as { status?: unknown; expose?: unknown } | null;
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) return e.status;
  return 500;
}

export function errorReply(err: unknown, requestId: string): ErrorReply {
  const status = statusOf(err);
  const headers: Record<string, string> = err instanceof HttpError ? { ...err.headers } : {};
  // HttpError messages are written for callers (including 501 for an unknown method).
  if (status < 500 || err instanceof HttpError) {
    const message = err instanceof Error && err.message.trim() !== '' ? err.message : 'The request was refused.';
    return { status, body: { error: message }, headers, exposed: true };
  }
  if (status === 503) {
    // Retriable by nature (a shard moving, an actor host draining): tell clients when to come back.
    headers['Retry-After'] = '1';
    return { status, body: { error: `The service is unavailable for a moment; retry shortly (request id ${requestId}).` }, headers, exposed: false };
  }
  return { status, body: { error: `Something failed on our side (request id ${requestId}).` }, headers, exposed: false };
}
