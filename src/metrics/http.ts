// HTTP figures: a Koa middleware timing every request of a family's app by its matched route template (never the
// raw path, which a client chooses: bounded label values), and the small app that serves GET /metrics on its own port.
import Koa from 'koa';
import { secondsSince, type Metrics } from './registry.js';

/** The route template @koa/router matched (`/order/:id`), or `unmatched` for a path no route knows. */
function routeOf(ctx: Koa.Context): string {
  const matched: unknown = Reflect.get(ctx, '_matchedRoute');
  return typeof matched === 'string' ? matched : 'unmatched';
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function httpMetrics(metrics: Metrics, family: string): Koa.Middleware {
  return async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      metrics.httpRequestDuration.observe(
        {
          family,
          method: METHODS.has(ctx.method) ? ctx.method : 'other',
          route: routeOf(ctx),
          status: String(ctx.status),
        },
        secondsSince(t0),
      );
    }
  };
}

/**
 * Puts the timing middleware in front of an app already built, so it sees the whole request including the family's
 * error envelope. Koa composes `app.middleware` when it starts listening, which the composition roots never do.
 */
export function instrumentApp(app: Koa, family: string, metrics: Metrics): void {
  app.middleware.unshift(httpMetrics(metrics, family));
}

/** GET /metrics in the Prometheus text format; anything else 404. Cluster processes serve it on ROUTER_METRICS_PORT. */
export function createMetricsApp(metrics: Metrics): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      ctx.status = 404;
      ctx.body = 'Only GET /metrics is served here.\n';
      return;
    }
    const { contentType, body } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = body;
  });
  return app;
}
