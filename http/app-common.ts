// What every family's Koa app shares: GET /health and GET /openapi.json, the middleware that turns every failure
// (thrown or routed) into the family's envelope, and the routing misses (404, 405 with Allow, 501).
import type { Router } from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Bus } from '../src/bus/types.js';
import { HttpError } from './http-error.js';
import type { IssuedQuotes } from './issued-quotes.js';
import type { EdgeGuard } from './overload.js';
import { cut, edgeState } from './request-id.js';

/** What every family's app is built from, beside its own settings. */
export interface EdgeAppDeps {
  bus: Bus;
  logger: Logger;
  /** Request ids when the caller sent none (or an unusable one); defaults to random uuids. */
  newRequestId?: () => string;
  /** Load shedding and rate limit, shared by every family's app of the process; absent = neither. */
  guard?: EdgeGuard;
  /** The quotes this process issued, shared by every family's app of the process; absent = this app's own. */
  quotes?: IssuedQuotes;
}

/** A family's rendering of a failure: status, body, headers, and whether the caller sees the error's own message. */
export interface FamilyErrorReply {
  status: number;
  /** Every family's envelope keeps what went wrong under `error` (a sentence in A, `{code, message, details}` in B). */
  body: { error: unknown };
  headers: Record<string, string>;
  exposed: boolean;
}

/**
 * A Koa app of the edge (a family's, or the dev listener's). Koa's `set body` tests every object body with
 * `instanceof ReadableStream`, `Blob` and `Response`, globals Node defines lazily: the first access loads its fetch
 * implementation (about 20 ms), which would otherwise land on the first answer the process gives. They are touched
 * here, while the service starts.
 */
export function newEdgeApp(): Koa {
  for (const lazyGlobal of ['ReadableStream', 'Blob', 'Response'] as const) void globalThis[lazyGlobal];
  return new Koa();
}

/**
 * A core value the renderer cannot write (an asset id the registry lacks) is our bug, not the caller's: the asset
 * module's UnknownAsset would otherwise map to 400, so it is re-thrown as a plain error and answered with 500.
 */
export function rendered<T>(render: () => T): T {
  try {
    return render();
  } catch (err) {
    throw new Error(`rendering a core value failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** GET /health (text/plain `ok` while serving) and GET /openapi.json (the family's document, rendered once). */
export function serveHealthAndOpenApi(router: Router, openapi: unknown): void {
  const document = JSON.stringify(openapi);
  router.get('/health', (ctx) => {
    ctx.body = 'ok';
    ctx.type = 'text/plain; charset=utf-8';
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
    ctx.type = 'application/json; charset=utf-8';
  });
}

/** Every failure, thrown or routed, in the family's envelope; 5xx are logged with their real cause, which the
 *  caller never sees. */
export function envelope(errorReply: (err: unknown, requestId: string) => FamilyErrorReply): Koa.Middleware {
  return async (ctx, next) => {
    const { requestId, log } = edgeState(ctx);
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) routingMiss(ctx);
    } catch (err) {
      const reply = errorReply(err, requestId);
      if (reply.exposed) log.debug({ status: reply.status, error: reply.body.error }, 'request refused');
      else log.error({ err, status: reply.status }, 'request failed');
      ctx.status = reply.status;
      ctx.set(reply.headers);
      ctx.body = reply.body;
    }
  };
}

/** The router left no body: no such path (404), a known path with another method (405 + Allow), or an unknown method. */
function routingMiss(ctx: Koa.Context): void {
  const allow = ctx.response.get('Allow');
  const path = cut(ctx.path, 128); // the caller's text: keep it short
  if (ctx.status === 405) throw new HttpError(405, `Method ${ctx.method} is not allowed on ${path}; use ${allow}.`, { Allow: allow });
  if (ctx.status === 501) throw new HttpError(501, `Method ${ctx.method} is not implemented.`);
  if (ctx.status === 404) throw new HttpError(404, `No resource at ${ctx.method} ${path}.`);
}

/** Bytes of a client's unparsable input a log line shows at most. */
export const LOGGED_INPUT_BYTES = 256;

/**
 * The app's `error` event: what the envelope could not answer. Most often a client's bytes after its request that are
 * no HTTP (Node's parser fails on the socket once the answer is written): that is the client's fault, not ours, so
 * it is one warn line with the parser's code and the first LOGGED_INPUT_BYTES of the input as text, whatever the
 * client sent. Anything else is an error with its cause.
 */
export function appErrorLogger(logger: Logger, family: string): (err: unknown) => void {
  return (err) => {
    const parse = parseErrorOf(err);
    if (parse) logger.warn({ family, client_error: parse }, 'unparsable input from a client');
    // Node answered 408 to a client slower than the read timeout; the app's read of its body ends with this error.
    else if (err instanceof Error && 'code' in err && err.code === 'ERR_HTTP_REQUEST_TIMEOUT') logger.warn({ family }, 'a client sent its request too slowly (408)');
    else logger.error({ err, family }, 'unhandled error in the app');
  };
}

export interface ClientParseError {
  code: string;
  reason: string;
  /** Bytes of the input the parser failed on (counted; only `input` is shown). */
  bytes: number;
  /** The start of what the client sent, as text (non-printable bytes escaped), at most LOGGED_INPUT_BYTES bytes. */
  input: string;
  truncated: boolean;
}

/** Node's HTTP parser errors carry an `HPE_*` code and the raw bytes (`rawPacket`), which a logger would write whole. */
export function parseErrorOf(err: unknown): ClientParseError | null {
  if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string' || !err.code.startsWith('HPE_')) return null;
  const raw = 'rawPacket' in err && Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
  const shown = raw.subarray(0, LOGGED_INPUT_BYTES);
  return {
    code: err.code,
    reason: 'reason' in err && typeof err.reason === 'string' ? err.reason.slice(0, 128) : err.message.slice(0, 128),
    bytes: raw.length,
    input: shown.toString('latin1').replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
    truncated: raw.length > shown.length,
  };
}
