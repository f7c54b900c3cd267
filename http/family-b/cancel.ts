// POST /order/{orderId}/cancel: the client's authorization (its refund token, or an EIP-712 CancelOrder signed by the
// order's refundAuthorizer) checked here, then `order.unwind`. The core refuses an order that is executing or done (409
// `conflict`, its status in details) and answers a cancel asked again of an order it already closed with the order
// (200), so a client retrying a cancel whose answer it lost succeeds. An authorization is not used up: a token
// refused while the order executed still unwinds it once stalled or frozen (and a token is the order's only one).
import type { RouterMiddleware } from '@koa/router';
import { verifyTypedData, type Hex } from 'viem';
import type { Bus } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { InvalidRequest, OrderNotCancellable, Unauthorized } from '../../src/errors.js';
import { readJsonBody } from '../json-body.js';
import { edgeState } from '../request-id.js';
import { BError } from './errors.js';
import { amountFormatQuery, orderIdParam } from './get.js';
import { orderTypeOf } from './order-type.js';
import { rendered } from '../app-common.js';
import { B_BODY_LIMIT_BYTES } from './quote.js';
import type { GatewaySecret } from './refund-token.js';
import { renderBOrder } from './render.js';
import { bStatusOf } from './statuses.js';
import { assertShape } from './validate.js';

/** How far ahead a signature's deadline may be: a leaked signature is useless after this. */
export const MAX_DEADLINE_AHEAD_S = 600;

export const CANCEL_DOMAIN = { name: 'Swap Router Gateway', version: '1' } as const;
export const CANCEL_TYPES = {
  CancelOrder: [
    { name: 'orderId', type: 'string' },
    { name: 'gateway', type: 'string' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export interface BCancelDeps {
  bus: Bus;
  gatewayId: string;
  secret: GatewaySecret;
  clock: Clock;
}

export function postCancelB(deps: BCancelDeps): RouterMiddleware {
  return async (ctx) => {
    const { requestId, log } = edgeState(ctx);
    const orderId = orderIdParam(ctx);
    const body = await readJsonBody(ctx, B_BODY_LIMIT_BYTES);
    assertShape('CancelRequest', body);
    const b = body;
    const amountFormat = b.amountFormat ?? amountFormatQuery(ctx);
    if ((b.refundToken === undefined) === (b.refundSignature === undefined)) {
      throw new InvalidRequest('Send exactly one of `refundToken` or `refundSignature`.', b.refundToken === undefined ? 'refundToken' : 'refundSignature');
    }
    if (b.refundSignature !== undefined && b.refundSignatureDeadline === undefined) {
      throw new InvalidRequest('`refundSignatureDeadline` is required with `refundSignature`.', 'refundSignatureDeadline');
    }
    if (b.refundToken !== undefined && b.refundSignatureDeadline !== undefined) {
      throw new InvalidRequest('`refundSignatureDeadline` goes with `refundSignature`, not with `refundToken`.', 'refundSignatureDeadline');
    }
    const opts = { requestId };
    const order = await deps.bus.request({ kind: 'order', id: orderId }, { type: 'order.get' }, opts);
    const auth = order.terms.refundAuthorization;
    if (b.refundToken !== undefined) {
      if (auth?.mode !== 'token' || !deps.secret.verify(orderId, b.refundToken)) {
        throw new Unauthorized('The refund token is not valid for this order.');
      }
    } else {
      if (auth?.mode !== 'evmSignature') throw new Unauthorized('This order is not cancelled by signature.');
      const deadline = b.refundSignatureDeadline!;
      const nowS = Math.floor(deps.clock.now() / 1000);
      if (deadline < nowS) throw new Unauthorized('`refundSignatureDeadline` has passed; sign again with a later deadline.');
      if (deadline > nowS + MAX_DEADLINE_AHEAD_S) throw new Unauthorized(`\`refundSignatureDeadline\` is more than ${MAX_DEADLINE_AHEAD_S} seconds ahead.`);
      const typed = { domain: CANCEL_DOMAIN, types: CANCEL_TYPES, primaryType: 'CancelOrder' as const, message: { orderId, gateway: deps.gatewayId, deadline: BigInt(deadline) } };
      const valid = await verifyTypedData({ ...typed, address: auth.authorizer as Hex, signature: b.refundSignature as Hex }).catch(() => false);
      if (!valid) throw new Unauthorized('The signature is not a CancelOrder for this order signed by its refundAuthorizer.');
    }
    let cancelled;
    try {
      cancelled = await deps.bus.request({ kind: 'order', id: orderId }, { type: 'order.unwind', reason: 'cancelled by the client (Family B)' }, opts);
    } catch (err) {
      if (!(err instanceof OrderNotCancellable)) throw err;
      const now = await deps.bus.request({ kind: 'order', id: orderId }, { type: 'order.get' }, opts);
      const status = bStatusOf(now);
      throw new BError(409, 'conflict', `Order ${orderId} is ${status}: it can be cancelled only before it executes.`, { status });
    }
    log.info({ order_id: orderId }, 'order cancelled by the client');
    const quote = await deps.bus.request({ kind: 'quote', id: order.quoteId }, { type: 'quote.get' }, opts);
    ctx.status = 200;
    ctx.body = rendered(() => renderBOrder(cancelled, quote, { amountFormat, orderType: orderTypeOf(order.quoteId) }));
  };
}
