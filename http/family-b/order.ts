// POST /order/market: body → schema → refund authorization rules → the quote (`quote.get`) → addresses for its chains
// → cancelAfter → the Family A order path (`quote.order`: bind, then create) with Family B's terms. Idempotency without a
// store of our own: the order id of a key is derived from it (uuid v5-like, sha256 of gateway id and key), so the same
// key always proposes the same order, and the existing order's terms tell a replay (200) from another body (409).
import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { getAddress, isAddress } from 'viem';
import { assetById, validateAddress } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { lessBps } from '../../src/orders/bps.js';
import { InvalidAddress, InvalidRequest, OrderNotFound, RefundNotViable, Unavailable } from '../../src/errors.js';
import type { OrderTerms, OrderView, RefundAuthorization } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import { readJsonBody } from '../json-body.js';
import { assertNotCQuote, orderFromQuote, quoteNamed } from '../quote-orders.js';
import { edgeState } from '../request-id.js';
import { BError } from './errors.js';
import { orderTypeOf } from './order-type.js';
import { rendered } from '../app-common.js';
import { B_BODY_LIMIT_BYTES } from './quote.js';
import type { GatewaySecret } from './refund-token.js';
import { renderBOrder } from './render.js';
import { assertShape } from './validate.js';
import type { WireBOrderRequest } from './wire.js';
import { type IssuedQuotes } from '../issued-quotes.js';

export const DEPOSIT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export interface BOrderDeps {
  bus: Bus;
  quotes: IssuedQuotes;
  newId: () => string;
  gatewayId: string;
  secret: GatewaySecret;
  maxSlippageBps: number;
  clock: Clock;
}

/** Uuids are case-insensitive and ajv admits `urn:uuid:`; actor ids are the bare lower-case form. */
export function canonicalUuid(text: string): string {
  const lower = text.toLowerCase();
  return lower.startsWith('urn:uuid:') ? lower.slice('urn:uuid:'.length) : lower;
}

/** The order id an idempotency key proposes: the same key (per gateway) always names the same order. */
export function keyedOrderId(gatewayId: string, key: string): string {
  const b = createHash('sha256').update(`${gatewayId}\n${key}`, 'utf8').digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether an existing order was made by this very request (addresses normalised; client-given terms only). */
function sameRequest(o: OrderView, quoteId: string, toAddress: string, refundAddress: string, terms: OrderTerms): boolean {
  const t = o.terms;
  const a = t.refundAuthorization;
  const b = terms.refundAuthorization;
  const sameAuth = a?.mode === b?.mode && (a?.mode !== 'evmSignature' || a.authorizer === (b as { authorizer: string }).authorizer);
  return (
    o.quoteId === quoteId && o.toAddress === toAddress && o.refundAddress === refundAddress && t.family === 'b' && sameAuth &&
    t.fromAddress === terms.fromAddress && t.integrator === terms.integrator && t.idempotencyKey === terms.idempotencyKey &&
    t.cancelAfter === terms.cancelAfter
  );
}

export function postOrderB(deps: BOrderDeps): Koa.Middleware {
  return async (ctx) => {
    const { requestId, log } = edgeState(ctx);
    const body = await readJsonBody(ctx, B_BODY_LIMIT_BYTES);
    assertShape('OrderRequest', body);
    const b = body;
    const opts = { requestId };
    const quoteId = canonicalUuid(b.quoteId);
    const amountFormat = b.amountFormat ?? 'readable';
    const refundAuthorization = authorizationOf(b);

    const named = { field: 'quoteId', quoteId };
    const quote = await quoteNamed(deps, named, opts);
    assertNotCQuote(named, quote);
    const orderType = orderTypeOf(quoteId);
    const source = assetById(quote.request.from).chain;
    const toAddress = validateAddress(assetById(quote.request.to).chain, b.toAddress, 'toAddress');
    const fromAddress = validateAddress(source, b.fromAddress, 'fromAddress');
    const refundAddress = b.refundAddress === undefined ? fromAddress : validateAddress(source, b.refundAddress, 'refundAddress');
    const cancelAfter = cancelAfterOf(b.cancelAfter, orderType);
    if (quote.refundCost >= quote.route.amountIn) {
      throw new RefundNotViable(`\`quoteId\` ${quote.id} is for an amount that would not cover what a refund costs on the source chain; quote a larger amount.`);
    }
    const terms: OrderTerms = {
      family: 'b',
      minOut: lessBps(quote.route.estimatedAmountOut, deps.maxSlippageBps),
      maxSlippageBps: deps.maxSlippageBps,
      cancelAfter,
      refundAuthorization,
      fromAddress,
      integrator: b.integrator ?? null,
      idempotencyKey: b.idempotencyKey ?? null,
      maxIn: null,
      exactOut: null,
      approvalMode: null,
    };

    let proposed = deps.newId();
    if (b.idempotencyKey !== undefined) {
      proposed = keyedOrderId(deps.gatewayId, b.idempotencyKey);
      const existing = await deps.bus.request({ kind: 'order', id: proposed }, { type: 'order.get' }, opts).catch((err: unknown) => {
        if (err instanceof OrderNotFound) return null;
        throw err;
      });
      if (existing) {
        if (!sameRequest(existing, quoteId, toAddress, refundAddress, terms)) {
          throw new BError(409, 'conflict', '`idempotencyKey` was already used with another request body.', { orderId: existing.id });
        }
        log.info({ order_id: existing.id }, 'order returned again (idempotency key)');
        return answer(ctx, { status: 200, order: existing, quote, amountFormat, refundToken: refundTokenOf(existing, deps.secret) });
      }
    }
    // Checked for a new order only: a retry with its key answers the order made while `cancelAfter` was ahead.
    if (cancelAfter !== null) assertCancelAfterWindow(cancelAfter, deps.clock.now());
    const { orderId, order } = await orderFromQuote(deps, named, { orderId: proposed, toAddress, refundAddress, terms }, opts);
    if (!sameRequest(order, quoteId, toAddress, refundAddress, terms)) {
      throw new BError(409, 'conflict', `\`quoteId\` ${quoteId} is already bound to another order.`, {});
    }
    const created = orderId === proposed;
    log.info({ order_id: orderId, quote_id: quoteId, repeat: !created }, created ? 'order created' : 'order returned again');
    // A repeat without a key shows the order without its refund token: every field of such a body can be read back
    // from public answers (the order's GET, the orders list), so the body proves nothing about who sent it.
    answer(ctx, { status: created ? 201 : 200, order, quote, amountFormat, refundToken: created ? refundTokenOf(order, deps.secret) : undefined });
  };
}

/** The order's refund token when it is a token-mode order; only the request that created the order and a repeat that
 *  holds its idempotency key (which no answer shows) are given it. */
function refundTokenOf(order: OrderView, secret: GatewaySecret): string | undefined {
  return order.terms.refundAuthorization?.mode === 'token' ? secret.tokenFor(order.id) : undefined;
}

interface OrderAnswer {
  status: 200 | 201;
  order: OrderView;
  quote: Quote;
  amountFormat: 'readable' | 'raw';
  refundToken: string | undefined;
}

function answer(ctx: Koa.Context, { status, order, quote, amountFormat, refundToken }: OrderAnswer): void {
  if (order.depositAddress === '') throw new Unavailable(`order ${order.id} has no deposit address yet`);
  ctx.status = status;
  ctx.set('Location', `/order/${order.id}`);
  ctx.body = rendered(() => renderBOrder(order, quote, { amountFormat, orderType: orderTypeOf(order.quoteId), ...(refundToken ? { refundToken } : {}) }));
}

function authorizationOf(b: WireBOrderRequest): RefundAuthorization {
  if ((b.refundMode ?? 'evmSignature') === 'token') {
    if (b.refundAuthorizer !== undefined && b.refundAuthorizer !== null) {
      throw new InvalidRequest('`refundAuthorizer` must be absent or null when `refundMode` is token.', 'refundAuthorizer');
    }
    return { mode: 'token' };
  }
  if (b.refundAuthorizer === undefined || b.refundAuthorizer === null) {
    throw new InvalidRequest('`refundAuthorizer` is required when `refundMode` is evmSignature.', 'refundAuthorizer');
  }
  if (!isAddress(b.refundAuthorizer, { strict: false })) {
    throw new InvalidAddress('`refundAuthorizer` must be an EVM address (0x and 40 hex digits).', 'refundAuthorizer');
  }
  return { mode: 'evmSignature', authorizer: getAddress(b.refundAuthorizer) };
}

/** The instant `cancelAfter` names, for a market quote only. */
function cancelAfterOf(text: string | undefined, orderType: string): number | null {
  if (text === undefined) return null;
  if (orderType !== 'market') {
    throw new InvalidRequest('`cancelAfter` is accepted only for quotes made with `orderType` market.', 'cancelAfter');
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new InvalidRequest('`cancelAfter` must be a date-time (RFC 3339).', 'cancelAfter');
  return at;
}

/** A new order's `cancelAfter` lies between now and its deposit deadline. */
function assertCancelAfterWindow(at: number, now: number): void {
  if (!(at > now)) throw new InvalidRequest('`cancelAfter` must be in the future.', 'cancelAfter');
  if (at >= now + DEPOSIT_WINDOW_MS) throw new InvalidRequest('`cancelAfter` must be before the deposit deadline (seven days after creation).', 'cancelAfter');
}

