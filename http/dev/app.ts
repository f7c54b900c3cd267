// The dev listener (loopback only): simulate a deposit on the simulated chain, move the service's clock forward so
// what falls due fires, and cancel or unwind an order as an operator would. Errors use the Family A envelope `{error}`.
import { Router } from '@koa/router';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { parseAmount, parseChainAsset, validateAddress } from '../../src/assets/index.js';
import type { Asset } from '../../src/assets/types.js';
import { InvalidRequest } from '../../src/errors.js';
import { isVenueId, VENUE_IDS, type VenueId } from '../../src/venues/types.js';
import { errorReply } from '../family-a/errors.js';
import { newEdgeApp } from '../app-common.js';
import { readJsonBody } from '../json-body.js';
import { edgeState, requestContext } from '../request-id.js';

export interface DevDeps {
  logger: Logger;
  bodyLimitBytes: number;
  /** Makes the deposit on the simulated ledger and lets the deposit watcher see it; answers the transfer. */
  deposit(d: { asset: Asset; from: string; to: string; amount: bigint }): Promise<{ txId: string; block: number }>;
  /** Moves the service clock forward by `ms` and fires what fell due; answers the new time. */
  advanceClock(ms: number): Promise<{ now: number }>;
  /** The operator's cancel or unwind of an order (the core's `order.unwind`); answers its status after. */
  unwind(orderId: string): Promise<{ status: string }>;
  /** Halts a simulated venue (it refuses quotes and executions) or resumes it. */
  haltVenue(venue: VenueId, halted: boolean): Promise<void>;
  /** The process's Prometheus exposition, served as GET /metrics; absent = no such route. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const MAX_ADVANCE_MS = 366 * 24 * 3600 * 1000;

type JsonObject = Record<string, unknown>;

const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body as a JSON object, or 400. */
async function objectBody(ctx: Koa.Context, limitBytes: number): Promise<JsonObject> {
  const body = await readJsonBody(ctx, limitBytes);
  if (!isJsonObject(body)) throw new InvalidRequest('The body must be a JSON object.');
  return body;
}

function field(body: JsonObject, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v.trim() === '') throw new InvalidRequest(`\`${name}\` is required and must be a string.`, name);
  return v;
}

export function createDevApp(deps: DevDeps): Koa {
  const app = newEdgeApp();
  const router = new Router();
  router.post('/deposits', async (ctx) => {
    const body = await objectBody(ctx, deps.bodyLimitBytes);
    const asset = parseChainAsset(field(body, 'asset'), 'asset');
    const amount = parseAmount(field(body, 'amount'), asset, 'formatted', 'amount');
    const to = validateAddress(asset.chain, field(body, 'to'), 'to');
    const from = validateAddress(asset.chain, field(body, 'from'), 'from');
    const t = await deps.deposit({ asset, from, to, amount });
    ctx.status = 201;
    ctx.body = { tx_id: t.txId, chain: asset.chain, block: t.block };
  });
  router.post('/clock/advance', async (ctx) => {
    const { ms } = await objectBody(ctx, deps.bodyLimitBytes);
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
      throw new InvalidRequest(`\`ms\` must be an integer between 0 and ${MAX_ADVANCE_MS}.`, 'ms');
    }
    const { now } = await deps.advanceClock(ms);
    ctx.body = { now: new Date(now).toISOString() };
  });
  // An operator's hand on an order, as Family B's cancel is the client's: not yet executing → cancelled and
  // refunded; stalled or frozen → unwound. 409 for an order executing or finished.
  router.post('/orders/:id/unwind', async (ctx) => {
    const id = (ctx.params.id ?? '').toLowerCase();
    if (!UUID.test(id)) throw new InvalidRequest('`id` must be a uuid.', 'id');
    const { status } = await deps.unwind(id);
    ctx.body = { id, status };
  });
  // A simulated venue halts (or resumes), so frozen orders and their unwinds can be tried by hand and in tests.
  router.post('/venues/:venue/halt', async (ctx) => {
    const venue = ctx.params.venue ?? '';
    if (!isVenueId(venue)) throw new InvalidRequest(`\`venue\` must be one of ${VENUE_IDS.join(', ')}.`, 'venue');
    const { halted } = await objectBody(ctx, deps.bodyLimitBytes);
    if (typeof halted !== 'boolean') throw new InvalidRequest('`halted` must be a boolean.', 'halted');
    await deps.haltVenue(venue, halted);
    ctx.body = { venue, halted };
  });
  const { metrics } = deps;
  if (metrics) {
    // Prometheus scrapes it: the text format, not the listener's JSON envelope.
    router.get('/metrics', async (ctx) => {
      const { contentType, body } = await metrics();
      ctx.type = contentType;
      ctx.body = body;
    });
  }
  app.use(requestContext(deps.logger));
  app.use(async (ctx, next) => {
    const { requestId, log } = edgeState(ctx);
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        ctx.status = 404;
        ctx.body = { error: `No resource at ${ctx.method} ${ctx.path.slice(0, 100)}.` };
      }
    } catch (err) {
      const reply = errorReply(err, requestId);
      if (!reply.exposed) log.error({ err }, 'dev request failed');
      ctx.status = reply.status;
      ctx.set(reply.headers);
      ctx.body = reply.body;
    }
  });
  app.use(router.routes());
  return app;
}
