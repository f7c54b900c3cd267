// POST /order and GET /order/{id}: body or path → schema → addresses checked for the quote's chains → quote and order
// actors over the bus (`quote.order`: bind, then create; spec 4) → wire Order. A 400 is decided before anything is
// bound or created.
import type { RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { assetById, validateAddress } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import { RefundNotViable, Unavailable } from '../../src/errors.js';
import type { OrderView } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import { readJsonBody } from '../json-body.js';
import { assertNotCQuote, orderFromQuote, quoteNamed } from '../quote-orders.js';
import { edgeState } from '../request-id.js';
import { renderOrder } from './render.js';
import { assertOrderId, assertOrderRequestShape } from './validate.js';
import type { WireOrder } from './wire.js';
import { type IssuedQuotes } from '../issued-quotes.js';

export interface OrderRouteDeps {
  bus: Bus;
  quotes: IssuedQuotes;
  /** Id proposed for the order; only the first proposal for a quote becomes the order (the quote actor decides). */
  newId: () => string;
  bodyLimitBytes: number;
}

/** The order POST /order asks for, in core terms: addresses normalised so that spellings of one address compare equal. */
export interface OrderRequest {
  quote: Quote;
  toAddress: string;
  refundAddress: string | null;
}

/**
 * Uuids are case-insensitive on input (RFC 9562) and ajv's `uuid` format also admits the `urn:uuid:` form; actor ids
 * are the lower-case bare form our generator makes, so any accepted spelling must reach the same actor.
 */
export function canonicalUuid(text: string): string {
  const lower = text.toLowerCase();
  return lower.startsWith('urn:uuid:') ? lower.slice('urn:uuid:'.length) : lower;
}

export function postOrder(deps: OrderRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const { requestId, log } = edgeState(ctx);
    const body = await readJsonBody(ctx, deps.bodyLimitBytes);
    assertOrderRequestShape(body);
    const b = body;
    const quoteId = canonicalUuid(b.quote_id);
    const opts = { requestId };

    const named = { field: 'quote_id', quoteId };
    const quote = await quoteNamed(deps, named, opts);
    assertNotCQuote(named, quote);
    // Checked before binding: a refused address must not use up the quote.
    const toAddress = validateAddress(assetById(quote.request.to).chain, b.to_address, 'to_address');
    const refundAddress =
      b.refund_address === undefined || b.refund_address === null
        ? null
        : validateAddress(assetById(quote.request.from).chain, b.refund_address, 'refund_address');

    assertRefundViable(quote);

    const proposed = deps.newId();
    const { orderId, order } = await orderFromQuote(deps, named, { orderId: proposed, toAddress, refundAddress }, opts);
    log.info({ order_id: orderId, quote_id: quoteId, repeat: orderId !== proposed }, orderId === proposed ? 'order created' : 'order returned again');
    // 201 on a repeat as well: the spec gives POST /order one success status, and the answer is the same order.
    ctx.status = 201;
    ctx.set('Location', `/order/${orderId}`);
    ctx.body = rendered(order);
  };
}

export function getOrder(deps: Pick<OrderRouteDeps, 'bus'>): RouterMiddleware {
  return async (ctx) => {
    const { requestId } = edgeState(ctx);
    // @koa/router percent-decodes the path's parameters.
    const raw = ctx.params.id ?? '';
    assertOrderId(raw);
    const id = canonicalUuid(raw);
    const order = await deps.bus.request({ kind: 'order', id }, { type: 'order.get' }, { requestId });
    ctx.status = 200;
    ctx.body = rendered(order);
  };
}

/** An order whose refund would cost all it could return is refused before its quote is used up (400). */
function assertRefundViable(quote: Quote): void {
  if (quote.refundCost >= quote.route.amountIn) {
    throw new RefundNotViable(
      `\`quote_id\` ${quote.id} is for ${quote.route.amountIn} base units, which would not cover the ${quote.refundCost} a refund costs on the source chain; quote a larger amount.`,
    );
  }
}


/**
 * The core answers an order only once its deposit address exists; one without would break the contract, so it is
 * told to retry (503) rather than shown. Any other value the renderer cannot write is our bug: 500, not 400.
 */
function rendered(order: OrderView): WireOrder {
  if (order.vaultId === '' || order.depositAddress === '') throw new Unavailable(`order ${order.id} has no deposit address yet`);
  try {
    return renderOrder(order);
  } catch (err) {
    throw new Error(`rendering order ${order.id} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
