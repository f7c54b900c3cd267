// The request id every family shares: taken from X-Request-Id when it is safe to log and echo, else a fresh uuid;
// set on every answer and bound into a pino child logger, so the access line, error lines and actor lines match.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** 1–128 characters that cannot break a log line or a header: anything else is replaced, never echoed. */
const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

export function acceptRequestId(incoming: string | string[] | undefined, generate: () => string = randomUUID): string {
  // A repeated header is ambiguous; a new id is safer than picking one.
  return typeof incoming === 'string' && ACCEPTED.test(incoming) ? incoming : generate();
}

/** What the edge keeps on ctx.state for the life of one request. */
export interface EdgeState {
  requestId: string;
  log: Logger;
}

export function edgeState(ctx: Koa.Context): EdgeState {
  return ctx.state as EdgeState;
}

/** The most of a request's path an access line shows: a client can send a path of up to Node's 16 KB header limit,
 *  which the log must not copy whole for every request. */
export const LOGGED_PATH_CHARS = 256;

/** A caller's text shown in a log or a message: at most `max` characters, a longer one cut and marked with `…`. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The path as the access line shows it: at most LOGGED_PATH_CHARS characters, a longer one cut with its length. */
export function loggedPath(path: string): string {
  return path.length <= LOGGED_PATH_CHARS ? path : `${cut(path, LOGGED_PATH_CHARS)}(${path.length} chars)`;
}

/**
 * Outermost middleware: picks the request id, binds the child logger and writes one access line per request
 * (method, path, status, ms). It must wrap the error envelope so the line shows the status actually sent.
 */
export function requestContext(logger: Logger, generate: () => string = randomUUID): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = acceptRequestId(ctx.get(REQUEST_ID_HEADER) || undefined, generate);
    const log = logger.child({ req_id: requestId });
    Object.assign(ctx.state, { requestId, log } satisfies EdgeState);
    ctx.set(REQUEST_ID_HEADER, requestId);
    try {
      await next();
    } finally {
      // Latency is the one place a float is fine: it never touches an amount.
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      log.info({ method: ctx.method, path: loggedPath(ctx.path), status: ctx.status, ms }, 'request');
    }
  };
}
