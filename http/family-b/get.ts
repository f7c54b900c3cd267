// GET /order/{orderId} of Family B: any order (made through A or B) in B's shape, with B's status. The route and the
// estimate are the quote's, so the quote is read beside the order. `?amountFormat=raw|readable` (default readable).
import type { RouterContext, RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import type { Bus } from '../../src/bus/types.js';
import { InvalidRequest, Unavailable } from '../../src/errors.js';
import { edgeState } from '../request-id.js';
import { orderTypeOf } from './order-type.js';
import { canonicalUuid } from './order.js';
import { rendered } from '../app-common.js';
import { renderBOrder } from './render.js';
import { assertUuid } from './validate.js';
import type { BAmountFormat } from './wire.js';

export function orderIdParam(ctx: RouterContext): string {
  // @koa/router percent-decodes the path's parameters.
  const raw = ctx.params.orderId ?? '';
  assertUuid(raw, 'orderId');
  return canonicalUuid(raw);
}

export function amountFormatQuery(ctx: Koa.Context): BAmountFormat {
  const v = ctx.query.amountFormat;
  if (v === undefined) return 'readable';
  if (v === 'readable' || v === 'raw') return v;
  throw new InvalidRequest('`amountFormat` must be one of readable, raw.', 'amountFormat');
}

export function getOrderB(deps: { bus: Bus }): RouterMiddleware {
  return async (ctx) => {
    const { requestId } = edgeState(ctx);
    const id = orderIdParam(ctx);
    const amountFormat = amountFormatQuery(ctx);
    const order = await deps.bus.request({ kind: 'order', id }, { type: 'order.get' }, { requestId });
    const quote = await deps.bus.request({ kind: 'quote', id: order.quoteId }, { type: 'quote.get' }, { requestId });
    if (order.depositAddress === '') throw new Unavailable(`order ${id} has no deposit address yet`);
    ctx.status = 200;
    ctx.body = rendered(() => renderBOrder(order, quote, { amountFormat, orderType: orderTypeOf(order.quoteId) }));
  };
}
