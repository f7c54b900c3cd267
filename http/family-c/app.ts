// The Family C Koa app: POST /quote, POST /order/market, GET /orders, GET /health, GET /openapi.json, and the
// `{error: {code, message, details}}` envelope (the same codes as Family B) for everything else. It does not listen:
// src/main.ts does.
import { Router } from '@koa/router';
import type Koa from 'koa';
import { systemClock, type Clock } from '../../src/clock.js';
import type { ActorStore } from '../../src/store/types.js';
import { appErrorLogger, envelope, newEdgeApp, serveHealthAndOpenApi, type EdgeAppDeps } from '../app-common.js';
import { UNGUARDED } from '../overload.js';
import { errorReplyB } from '../family-b/errors.js';
import type { GatewaySecret } from '../family-b/refund-token.js';
import { requestContext } from '../request-id.js';
import { familyCOpenApi } from './openapi.js';
import { postOrderC } from './order.js';
import { getOrdersC } from './orders.js';
import { postQuoteC } from './quote.js';
import { createIssuedQuotes } from '../issued-quotes.js';

/** What the cursor key is derived for: no other use of the secret can produce it. */
export const CURSOR_KEY_LABEL = 'family-c/orders-cursor';

export interface FamilyCDeps extends EdgeAppDeps {
  /** Ids of new quotes and orders. */
  newId: () => string;
  /** The store's order index: GET /orders pages through it and never loads an actor. */
  orders: Pick<ActorStore, 'listOrders'>;
  /** The gateway secret every edge shares: the key of the list's cursors derives from it. */
  secret: GatewaySecret;
  /** Execution steps are stamped with it (HyperCore nonces); defaults to the system clock. */
  clock?: Clock;
}

export function createAppC(deps: FamilyCDeps): Koa {
  const app = newEdgeApp();
  const router = new Router();
  const clock = deps.clock ?? systemClock;
  const guard = deps.guard ?? UNGUARDED;
  const quotes = deps.quotes ?? createIssuedQuotes();
  const cursorKey = deps.secret.derive(CURSOR_KEY_LABEL);
  router.post('/quote', postQuoteC({ bus: deps.bus, quotes, guard, newId: deps.newId }));
  router.post('/order/market', postOrderC({ bus: deps.bus, quotes, newId: deps.newId, clock }));
  router.get('/orders', getOrdersC({ orders: deps.orders, cursorKey }));
  serveHealthAndOpenApi(router, familyCOpenApi());

  app.use(requestContext(deps.logger, deps.newRequestId));
  app.use(envelope(errorReplyB));
  app.use(guard.rateLimit);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.on('error', appErrorLogger(deps.logger, 'C'));
  return app;
}
