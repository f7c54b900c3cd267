// The Family A Koa app: POST /quote, POST /order, GET /order/{id}, GET /health, GET /openapi.json, and the `{error}` envelope for everything
// else (404, 405, 413, 415, 500...). It does not listen: src/main.ts does, so tests and benchmarks reuse it as is.
import { Router } from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Bus } from '../../src/bus/types.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { HttpError } from '../http-error.js';
import { edgeState, requestContext } from '../request-id.js';
import { errorReply } from './errors.js';
import { familyAOpenApi } from './openapi.js';
import { getOrder, postOrder } from './order.js';
import { postQuote } from './quote.js';

export interface FamilyADeps {
  bus: Bus;
  logger: Logger;
  /** Ids of new actors (quotes, proposed orders); a lower-case uuid generator in production. */
  newId: () => string;
  /** Largest accepted request body; larger → 413. */
  bodyLimitBytes: number;
  /** Only used to stamp candidates of a refused quote (they expire at once); defaults to the system clock. */
  clock?: Clock;
  /** Request ids when the caller sent none (or an unusable one); defaults to random uuids. */
  newRequestId?: () => string;
}

export function createApp(deps: FamilyADeps): Koa {
  const app = new Koa();
  const router = new Router();
  const openapi = JSON.stringify(familyAOpenApi());

  router.post('/quote', postQuote({ bus: deps.bus, newId: deps.newId, bodyLimitBytes: deps.bodyLimitBytes, clock: deps.clock ?? systemClock }));
  router.post('/order', postOrder({ bus: deps.bus, newId: deps.newId, bodyLimitBytes: deps.bodyLimitBytes }));
  router.get('/order/:id', getOrder({ bus: deps.bus }));
  router.get('/health', (ctx) => {
    ctx.body = 'ok';
    ctx.type = 'text/plain; charset=utf-8';
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
    ctx.type = 'application/json; charset=utf-8';
  });

  app.use(requestContext(deps.logger, deps.newRequestId));
  app.use(envelope());
  app.use(router.routes());
  app.use(router.allowedMethods());
  // Only reached if a response could not be written at all (the envelope catches everything else).
  app.on('error', (err: unknown) => deps.logger.error({ err }, 'unhandled error in the Family A app'));
  return app;
}

/**
 * Turns every failure, thrown or routed, into the `{error}` envelope with the table of errors.ts, and logs 5xx
 * with their real cause (which the caller never sees).
 */
function envelope(): Koa.Middleware {
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
  if (ctx.status === 405) throw new HttpError(405, `Method ${ctx.method} is not allowed on ${ctx.path}; use ${allow}.`, { Allow: allow });
  if (ctx.status === 501) throw new HttpError(501, `Method ${ctx.method} is not implemented.`);
  if (ctx.status === 404) throw new HttpError(404, `No resource at ${ctx.method} ${clipPath(ctx.path)}.`);
}

/** The path is the caller's text: keep the sentence short. */
function clipPath(path: string): string {
  return path.length > 128 ? `${path.slice(0, 128)}…` : path;
}
