// POST /order/market of Family C: body → schema → the quote (`quote.get`; only a quote made through Family C, which
// records its slippage) → addresses for its chains → refund viability → the Family A order path (`quote.order`:
// bind, then create) with Family C's terms → the Swap: the order id, the quote, and the steps that fund the order.
// Repeats: the quote binds once, so the same body again answers the same order (200; 201 the first time), and other
// addresses or terms answer 409.
import type Koa from 'koa';
import { assetById, CHAINS, validateAddress, type ChainName } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { InvalidRequest, RefundNotViable, Unavailable } from '../../src/errors.js';
import type { OrderTerms, OrderView } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import { BError } from '../family-b/errors.js';
import { canonicalUuid } from '../family-b/order.js';
import { rendered } from '../app-common.js';
import { readJsonBody } from '../json-body.js';
import { cSlippageOf, orderFromQuote, quoteNamed } from '../quote-orders.js';
import { edgeState } from '../request-id.js';
import { executionSteps } from './execution-steps.js';
import { C_BODY_LIMIT_BYTES } from './quote.js';
import { lessBps, plusBps } from '../../src/orders/bps.js';
import { renderCQuote } from './render.js';
import { assertShape } from './validate.js';
import type { WireCOrderRequest, WireSwap } from './wire.js';
import { type IssuedQuotes } from '../issued-quotes.js';

export interface COrderDeps {
  bus: Bus;
  quotes: IssuedQuotes;
  newId: () => string;
  clock: Clock;
}

/** The terms of a Family C order: its bounds derive from the quote's own slippage and mode. */
export function termsOf(quote: Quote, slippageBps: number, b: WireCOrderRequest, fromAddress: string | null): OrderTerms {
  const exactOut = quote.request.exactOut ?? null;
  return {
    family: 'c',
    minOut: exactOut ?? lessBps(quote.route.estimatedAmountOut, slippageBps),
    maxSlippageBps: slippageBps,
    cancelAfter: null,
    refundAuthorization: null,
    fromAddress,
    integrator: b.integratorName ?? null,
    idempotencyKey: null,
    maxIn: exactOut === null ? null : plusBps(quote.route.amountIn, slippageBps),
    exactOut,
    approvalMode: b.approvalMode ?? 'full',
  };
}

/** Whether an existing order was made by this very request (addresses normalised; client-given terms only). */
function sameRequest(o: OrderView, quoteId: string, toAddress: string, refundAddress: string, terms: OrderTerms): boolean {
  const t = o.terms;
  return (
    o.quoteId === quoteId && o.toAddress === toAddress && o.refundAddress === refundAddress && t.family === 'c' &&
    t.fromAddress === terms.fromAddress && t.integrator === terms.integrator && t.approvalMode === terms.approvalMode
  );
}

export function postOrderC(deps: COrderDeps): Koa.Middleware {
  return async (ctx) => {
    const { requestId, log } = edgeState(ctx);
    const body = await readJsonBody(ctx, C_BODY_LIMIT_BYTES);
    assertShape('OrderRequest', body);
    const b = body;
    const opts = { requestId };
    const quoteId = canonicalUuid(b.id);

    const named = { field: 'id', quoteId };
    const quote = await quoteNamed(deps, named, opts);
    const slippageBps = cSlippageOf(named, quote);
    const source = assetById(quote.route.from).chain;
    const toAddress = validateAddress(assetById(quote.route.to).chain, b.destinationAddress, 'destinationAddress');
    const refundAddress = validateAddress(source, b.refundAddress, 'refundAddress');
    const senderAddress = senderOf(source, b.senderAddress);
    if (quote.refundCost >= quote.route.amountIn) {
      throw new RefundNotViable(`\`id\` ${quote.id} is for an amount that would not cover what a refund costs on the source chain; quote a larger amount.`);
    }
    const terms = termsOf(quote, slippageBps, b, senderAddress);

    const proposed = deps.newId();
    const { orderId, order } = await orderFromQuote(deps, named, { orderId: proposed, toAddress, refundAddress, terms }, opts);
    if (!sameRequest(order, quoteId, toAddress, refundAddress, terms)) {
      throw new BError(409, 'conflict', `\`id\` ${quoteId} is already bound to an order with other terms.`, { orderId: order.id });
    }
    const created = orderId === proposed;
    log.info({ order_id: orderId, quote_id: quoteId, repeat: !created }, created ? 'order created' : 'order returned again');
    if (order.depositAddress === '') throw new Unavailable(`order ${order.id} has no deposit address yet`);
    ctx.status = created ? 201 : 200;
    ctx.body = rendered(() => swapOf(order, quote, deps.clock.now()));
  };
}

/**
 * `senderAddress`, the EVM account that sends the execution steps' transactions: required when selling on an EVM chain.
 * Selling elsewhere, no step is an EVM transaction and the field is optional; selling bitcoin, the client's EVM account
 * or the bitcoin address it pays from is taken, as what the order's list item shows as its sender.
 */
export function senderOf(source: ChainName, given: string | undefined): string | null {
  const kind = CHAINS[source].kind;
  if (given === undefined) {
    if (kind !== 'evm') return null;
    throw new InvalidRequest(`\`senderAddress\` is required when selling on ${source}, an EVM chain: the execution steps are transactions it sends.`, 'senderAddress');
  }
  if (kind === 'bitcoin' && /^0x/i.test(given)) return validateAddress('ethereum', given, 'senderAddress');
  return validateAddress(source, given, 'senderAddress');
}

/** The Swap: the quote as POST /quote answered it, and the one step funding the deposit address with its input. */
export function swapOf(order: OrderView, quote: Quote, now: number): WireSwap {
  return {
    orderId: order.id,
    quote: renderCQuote(quote),
    executionSteps: executionSteps({
      orderId: order.id,
      from: assetById(quote.route.from),
      depositAddress: order.depositAddress,
      amount: quote.route.amountIn,
      senderAddress: order.terms.fromAddress,
      approvalMode: order.terms.approvalMode ?? 'full',
      now,
    }),
  };
}

