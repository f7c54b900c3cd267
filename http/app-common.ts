// What every family's Koa app shares: GET /health and GET /openapi.json, the middleware that turns every failure
// (thrown or routed) into the family's envelope, and the routing misses (404, 405 with Allow, 501).
import type { Router } from '@koa/router';
import type Koa from 'koa';
import { HttpError } from './http-error.js';
import { edgeState } from './request-id.js';

/** A family's rendering of a failure: status, body, headers, and whether the caller sees the error's own message. */
export interface FamilyErrorReply {
  status: number;
  /** Every family's envelope keeps what went wrong under `error` (a sentence in A, `{code, message, details}` in B). */
  body: { error: unknown };
  headers: Record<string, string>;
  exposed: boolean;
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
  const path = ctx.path.length > 128 ? `${ctx.path.slice(0, 128)}…` : ctx.path; // the caller's text: keep it short
  if (ctx.status === 405) throw new HttpError(405, `Method ${ctx.method} is not allowed on ${path}; use ${allow}.`, { Allow: allow });
  if (ctx.status === 501) throw new HttpError(501, `Method ${ctx.method} is not implemented.`);
  if (ctx.status === 404) throw new HttpError(404, `No resource at ${ctx.method} ${path}.`);
}
