// The Family A Koa app: POST /quote, POST /order, GET /order/{id}, GET /health, GET /openapi.json, and the `{error}` envelope for everything
// else (404, 405, 413, 415, 500...). It does not listen: src/main.ts does, so tests and benchmarks reuse it as is.
import { Router } from '@koa/router';
import type Koa from 'koa';
import { systemClock, type Clock } from '../../src/clock.js';
import { appErrorLogger, envelope, newEdgeApp, serveHealthAndOpenApi, type EdgeAppDeps } from '../app-common.js';
import { UNGUARDED } from '../overload.js';
import { requestContext } from '../request-id.js';
import { errorReply } from './errors.js';
import { familyAOpenApi } from './openapi.js';
import { getOrder, postOrder } from './order.js';
import { postQuote } from './quote.js';
import { createIssuedQuotes } from '../issued-quotes.js';

export interface FamilyADeps extends EdgeAppDeps {
  /** Ids of new actors (quotes, proposed orders); a lower-case uuid generator in production. */
  newId: () => string;
  /** Largest accepted request body; larger → 413. */
  bodyLimitBytes: number;
  /** Only used to stamp candidates of a refused quote (they expire at once); defaults to the system clock. */
  clock?: Clock;
}

export function createApp(deps: FamilyADeps): Koa {
  const app = newEdgeApp();
  const router = new Router();
  const openapi = familyAOpenApi();
  const guard = deps.guard ?? UNGUARDED;
  const quotes = deps.quotes ?? createIssuedQuotes();

  router.post('/quote', postQuote({ bus: deps.bus, quotes, guard, newId: deps.newId, bodyLimitBytes: deps.bodyLimitBytes, clock: deps.clock ?? systemClock }));
  router.post('/order', postOrder({ bus: deps.bus, quotes, newId: deps.newId, bodyLimitBytes: deps.bodyLimitBytes }));
  router.get('/order/:id', getOrder({ bus: deps.bus }));
  serveHealthAndOpenApi(router, openapi);

  app.use(requestContext(deps.logger, deps.newRequestId));
  app.use(envelope(errorReply));
  app.use(guard.rateLimit);
  app.use(router.routes());
  app.use(router.allowedMethods());
  // Only reached if a response could not be written at all (the envelope catches everything else).
  app.on('error', appErrorLogger(deps.logger, 'A'));
  return app;
}
