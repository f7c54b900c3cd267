// The one table of Family B from error code to HTTP status and wire code, and the `{error: {code, message, details}}`
// envelope (spec 7). Only 4xx messages reach the caller; a 5xx says that something failed and gives the request id.
import { InvalidRequest, RouterError } from '../../src/errors.js';
import { HttpError } from '../http-error.js';
import type { WireBError } from './wire.js';

export const B_ERROR_CODES = [
  'invalid_request', 'not_found', 'method_not_allowed', 'unsupported_media_type', 'conflict', 'quote_expired', 'unauthorized',
  'payload_too_large', 'insufficient_liquidity', 'rate_limited', 'unavailable', 'internal',
] as const;
export type BErrorCode = (typeof B_ERROR_CODES)[number];

/** Core code → [status, wire code]. A code missing here is a 500 `internal`. */
export const B_STATUS_BY_CODE: Readonly<Record<string, readonly [number, BErrorCode]>> = {
  invalid_request: [400, 'invalid_request'],
  unknown_asset: [400, 'invalid_request'],
  invalid_amount: [400, 'invalid_request'],
  invalid_address: [400, 'invalid_request'],
  venue_list_conflict: [400, 'invalid_request'],
  refund_not_viable: [400, 'invalid_request'],
  amount_above_limit: [400, 'invalid_request'],
  quote_refused: [422, 'insufficient_liquidity'],
  // Unlike Family A, an unknown quote is a missing resource here (the issue's table).
  quote_not_found: [404, 'not_found'],
  order_not_found: [404, 'not_found'],
  quote_expired: [410, 'quote_expired'],
  quote_already_bound: [409, 'conflict'],
  order_not_cancellable: [409, 'conflict'],
  unauthorized: [401, 'unauthorized'],
  unavailable: [503, 'unavailable'],
  store_outcome_unknown: [503, 'unavailable'],
};

/** Failures of the HTTP layer itself (http/json-body.ts, routing) by status. */
const HTTP_CODES: Readonly<Record<number, BErrorCode>> = {
  400: 'invalid_request', 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type', 429: 'rate_limited', 501: 'method_not_allowed',
  503: 'unavailable',
};

/** A B-level refusal with its own details (e.g. the order's status on a 409), thrown by the handlers. */
export class BError extends Error {
  constructor(
    readonly status: number,
    readonly code: BErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'BError';
  }
}

export interface BErrorReply {
  status: number;
  body: WireBError;
  headers: Record<string, string>;
  exposed: boolean;
}

function classify(err: unknown): [number, BErrorCode] {
  if (err instanceof BError) return [err.status, err.code];
  if (err instanceof HttpError) return [err.status, HTTP_CODES[err.status] ?? (err.status >= 500 ? 'internal' : 'invalid_request')];
  if (err instanceof RouterError) return [...(B_STATUS_BY_CODE[err.code] ?? [500, 'internal'])];
  const e = err as { status?: unknown; expose?: unknown } | null;
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) return [e.status, HTTP_CODES[e.status] ?? 'invalid_request'];
  return [500, 'internal'];
}

export function statusOfB(err: unknown): number {
  return classify(err)[0];
}

/** `details` of an exposed error: validation issues for invalid_request, the error's own details otherwise. */
function detailsOf(err: unknown, code: BErrorCode, message: string): Record<string, unknown> {
  if (err instanceof BError) return { ...err.details };
  if (code === 'invalid_request') {
    const path = err instanceof InvalidRequest ? (err.field ?? '') : '';
    return { issues: [{ path, message }] };
  }
  return {};
}

export function errorReplyB(err: unknown, requestId: string): BErrorReply {
  const [status, code] = classify(err);
  const headers: Record<string, string> = err instanceof HttpError ? { ...err.headers } : {};
  if (status < 500 || err instanceof HttpError) {
    const message = err instanceof Error && err.message.trim() !== '' ? err.message : 'The request was refused.';
    return { status, body: { error: { code, message, details: detailsOf(err, code, message) } }, headers, exposed: true };
  }
  if (status === 503) {
    headers['Retry-After'] = '1';
    return {
      status,
      body: { error: { code: 'unavailable', message: `The service is unavailable for a moment; retry shortly (request id ${requestId}).`, details: { requestId } } },
      headers,
      exposed: false,
    };
  }
  return {
    status,
    body: { error: { code: 'internal', message: `Something failed on our side (request id ${requestId}).`, details: { requestId } } },
    headers,
    exposed: false,
  };
}
