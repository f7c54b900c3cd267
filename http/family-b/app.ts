// The Family B (gateway) Koa app: POST /quote, POST /order/market, GET /order/{orderId}, POST /order/{orderId}/cancel,
// GET /health, GET /openapi.json, and the `{error: {code, message, details}}` envelope for everything else. It does
// not listen: src/main.ts does.
import { Router } from '@koa/router';
import type Koa from 'koa';
import { systemClock, type Clock } from '../../src/clock.js';
import { appErrorLogger, envelope, newEdgeApp, serveHealthAndOpenApi, type EdgeAppDeps } from '../app-common.js';
import { UNGUARDED } from '../overload.js';
import { requestContext } from '../request-id.js';
import { postCancelB } from './cancel.js';
import { errorReplyB } from './errors.js';
import { getOrderB } from './get.js';
import { familyBOpenApi } from './openapi.js';
import { postOrderB } from './order.js';
import { postQuoteB } from './quote.js';
import type { GatewaySecret } from './refund-token.js';
import { createIssuedQuotes } from '../issued-quotes.js';

export interface FamilyBDeps extends EdgeAppDeps {
  /** Ids of proposed orders without an idempotency key. */
  newId: () => string;
  /** ROUTER_GATEWAY_ID: the `gateway` of signed cancels, and the namespace of idempotency keys. */
  gatewayId: string;
  secret: GatewaySecret;
  /** ROUTER_MAX_SLIPPAGE_BPS. */
  maxSlippageBps: number;
  /** Cancel deadlines and cancelAfter are checked against it; defaults to the system clock. */
  clock?: Clock;
}

export function createAppB(deps: FamilyBDeps): Koa {
  const app = newEdgeApp();
  const router = new Router();
  const openapi = familyBOpenApi();
  const clock = deps.clock ?? systemClock;
  const guard = deps.guard ?? UNGUARDED;
  const quotes = deps.quotes ?? createIssuedQuotes();

  router.post('/quote', postQuoteB({ bus: deps.bus, quotes, guard }));
  router.post('/order/market', postOrderB({ bus: deps.bus, quotes, newId: deps.newId, gatewayId: deps.gatewayId, secret: deps.secret, maxSlippageBps: deps.maxSlippageBps, clock }));
  router.get('/order/:orderId', getOrderB({ bus: deps.bus }));
  router.post('/order/:orderId/cancel', postCancelB({ bus: deps.bus, gatewayId: deps.gatewayId, secret: deps.secret, clock }));
  serveHealthAndOpenApi(router, openapi);

  app.use(requestContext(deps.logger, deps.newRequestId));
  app.use(envelope(errorReplyB));
  app.use(guard.rateLimit);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.on('error', appErrorLogger(deps.logger, 'B'));
  return app;
}
