// The protocol's values checked at run time, field by field, where they arrive off the wire: a command as an actor host
// receives it and a reply as the edge receives it. Processes of two versions meet during a rolling deploy, and one may
// send what the other does not read; a command or reply of another shape is then refused where it arrives (the
// sender gets MalformedMessage) instead of reaching an actor, or a client's answer, without a field it needs.
// `shapeOf` needs a check for every field of its type, so a field added to the protocol cannot go unchecked.
import { isChainName, type AmountFormat } from '../assets/types.js';
import {
  anything, arrayOf, describeWrongAt, isBigint, isBoolean, isInteger, isNumber, isString, mapOf, nullable, oneOf, optional, shapeOf, variantsOf, type Guard,
} from '../checks.js';
import type { ErrorData } from '../errors.js';
import { REFUND_REASONS, type Holding } from '../orders/money.js';
import { ORDER_STATUSES, type OrderTerms, type OrderView, type RefundAuthorization, type RefundView } from '../orders/types.js';
import type { Quote, QuoteRequest } from '../quotes/types.js';
import type {
  Delivery, MultiHopAttempt, MultiHopRoute, PricedRoute, QuoteAudit, RouteStep, SingleHopCandidate,
} from '../routing/types.js';
import { VENUE_IDS, type Execution } from '../venues/types.js';
import type { Command, CommandType, Protocols, ReplyTo } from './kinds.js';
import { TIMER_DUE, type TimerDue } from './protocol.js';
import type { QuoteBound, QuoteOrdered } from './quote.js';

export const isVenue = oneOf(VENUE_IDS);
export const isFormat: Guard<AmountFormat> = oneOf(['formatted', 'raw']);
const isMillis = isNumber;

export const isErrorData = shapeOf<ErrorData>({ code: isString, message: isString, retriable: isBoolean, details: anything });

const isExecution = variantsOf<Execution, 'mode'>('mode', {
  evm: shapeOf<Extract<Execution, { mode: 'evm' }>>({ mode: oneOf(['evm']), chain: isInteger }),
  evm_gas_desk: shapeOf<Extract<Execution, { mode: 'evm_gas_desk' }>>({ mode: oneOf(['evm_gas_desk']), chain: isInteger }),
  bitcoin: shapeOf<Extract<Execution, { mode: 'bitcoin' }>>({ mode: oneOf(['bitcoin']) }),
  hyperliquid: shapeOf<Extract<Execution, { mode: 'hyperliquid' }>>({ mode: oneOf(['hyperliquid']) }),
});

const isRouteStep = shapeOf<RouteStep>({
  venue: isVenue, from: isString, to: isString, execution: isExecution,
  stepAmountIn: isBigint, venueAmountIn: isBigint, venueAmountOut: isBigint, stepAmountOut: isBigint,
});

const isDelivery = shapeOf<Delivery>({ amountIn: isBigint, executionCost: isBigint, amountOut: isBigint });

export const isPricedRoute = shapeOf<PricedRoute>({
  from: isString, to: isString, amountIn: isBigint, steps: arrayOf(isRouteStep), delivery: isDelivery, estimatedAmountOut: isBigint,
});

const isCandidateStatus = oneOf(['quoted', 'failed', 'timed_out']);

const isSingleHop = shapeOf<SingleHopCandidate>({
  venue: isVenue, elapsedMs: isMillis, best: isBoolean, status: isCandidateStatus, route: optional(isPricedRoute),
  costing: optional(shapeOf<NonNullable<SingleHopCandidate['costing']>>({ venue: isVenue, observedAmountIn: isBigint, observedAmountOut: isBigint })),
  error: optional(isString),
});

const isMultiHopAttempt = shapeOf<MultiHopAttempt>({
  round: isInteger, from: isString, to: isString, amountIn: isBigint, venue: isVenue, elapsedMs: isMillis, status: isCandidateStatus,
  step: optional(isRouteStep), error: optional(isString),
});

const isMultiHopRoute = shapeOf<MultiHopRoute>({
  assets: arrayOf(isString), venues: arrayOf(isVenue), best: isBoolean, status: oneOf(['quoted', 'failed']),
  route: optional(isPricedRoute), error: optional(isString),
});

export const isQuoteAudit = shapeOf<QuoteAudit>({
  singleHop: arrayOf(isSingleHop),
  multiHop: shapeOf<QuoteAudit['multiHop']>({
    paths: isInteger, complete: isBoolean, hops: nullable(isInteger), attempts: arrayOf(isMultiHopAttempt), routes: arrayOf(isMultiHopRoute),
    setupError: nullable(isString),
  }),
});

export const isQuoteRequest = shapeOf<QuoteRequest>({
  from: isString, to: isString, amountIn: isBigint, mode: oneOf(['fast', 'optimal']), allowlist: arrayOf(isVenue), blocklist: arrayOf(isVenue),
  format: isFormat, returnFullRoute: isBoolean, includeCandidates: isBoolean, exactOut: optional(isBigint), slippageBps: optional(isNumber),
});

export const isQuote = shapeOf<Quote>({
  id: isString, request: isQuoteRequest, route: isPricedRoute, refundCost: isBigint, audit: nullable(isQuoteAudit), quotedAt: isMillis,
  expiresAt: isMillis, usdPrices: mapOf(isBigint), rounds: isInteger,
});

const isRefundAuthorization = variantsOf<RefundAuthorization, 'mode'>('mode', {
  evmSignature: shapeOf<Extract<RefundAuthorization, { mode: 'evmSignature' }>>({ mode: oneOf(['evmSignature']), authorizer: isString }),
  token: shapeOf<Extract<RefundAuthorization, { mode: 'token' }>>({ mode: oneOf(['token']) }),
});

export const isOrderTerms = shapeOf<OrderTerms>({
  family: oneOf(['a', 'b', 'c']), minOut: nullable(isBigint), maxSlippageBps: nullable(isNumber), cancelAfter: nullable(isMillis),
  refundAuthorization: nullable(isRefundAuthorization), fromAddress: nullable(isString), integrator: nullable(isString),
  idempotencyKey: nullable(isString), maxIn: nullable(isBigint), exactOut: nullable(isBigint), approvalMode: nullable(oneOf(['full', 'partial'])),
});

const isRefundView = shapeOf<RefundView>({
  reason: oneOf(REFUND_REASONS), asset: isString, amount: isBigint, cost: isBigint, to: isString, txId: nullable(isString), at: isMillis,
});

const isHolding = shapeOf<Holding>({ chain: isChainName, asset: isString, address: isString, amount: isBigint });

export const isOrderView = shapeOf<OrderView>({
  id: isString, quoteId: isString, vaultId: isString, format: isFormat, from: isString, to: isString, fromAmount: isBigint,
  depositAddress: isString, toAddress: isString, refundAddress: nullable(isString), allowlist: arrayOf(isVenue), blocklist: arrayOf(isVenue),
  status: oneOf(ORDER_STATUSES), depositDeadline: isMillis, createdAt: isMillis, amountOut: nullable(isBigint), refunds: arrayOf(isRefundView),
  held: arrayOf(isHolding), haltReason: nullable(isString), terms: isOrderTerms, stage: isString,
  closeReason: nullable(oneOf(['underfunded', 'cancelled', 'unwind', 'slippage'])), refundPending: isBoolean,
});

const isQuoteBound = shapeOf<QuoteBound>({ orderId: isString });
const isQuoteOrdered = shapeOf<QuoteOrdered>({ orderId: isString, order: isOrderView });

type CommandChecks = { readonly [K in keyof Protocols]: { readonly [T in CommandType<K>]: Guard<Command<K, T>> } };
type ReplyChecks = { readonly [K in keyof Protocols]: { readonly [T in CommandType<K>]: Guard<ReplyTo<K, T>> } };

/** Each command's check, by kind and type: the compiler fails the build when a command of a protocol has none. */
const COMMANDS: CommandChecks = {
  quote: {
    'quote.request': shapeOf<Command<'quote', 'quote.request'>>({ type: oneOf(['quote.request']), request: isQuoteRequest }),
    'quote.get': shapeOf<Command<'quote', 'quote.get'>>({ type: oneOf(['quote.get']) }),
    'quote.bind': shapeOf<Command<'quote', 'quote.bind'>>({
      type: oneOf(['quote.bind']), orderId: isString, toAddress: isString, refundAddress: nullable(isString),
    }),
    'quote.order': shapeOf<Command<'quote', 'quote.order'>>({
      type: oneOf(['quote.order']), orderId: isString, toAddress: isString, refundAddress: nullable(isString), terms: optional(isOrderTerms),
    }),
  },
  order: {
    'order.create': shapeOf<Command<'order', 'order.create'>>({
      type: oneOf(['order.create']), quote: isQuote, toAddress: isString, refundAddress: nullable(isString), terms: optional(isOrderTerms),
    }),
    'order.get': shapeOf<Command<'order', 'order.get'>>({ type: oneOf(['order.get']) }),
    deposit: shapeOf<Command<'order', 'deposit'>>({
      type: oneOf(['deposit']), txId: isString, from: isString, amount: isBigint, confirmations: isInteger, required: isInteger, fromRouter: optional(isBoolean),
    }),
    'deposit.vanished': shapeOf<Command<'order', 'deposit.vanished'>>({ type: oneOf(['deposit.vanished']), txId: isString }),
    'order.unwind': shapeOf<Command<'order', 'order.unwind'>>({ type: oneOf(['order.unwind']), reason: optional(isString) }),
  },
};

/** Each reply's check, by the kind and type of the command it answers. */
const REPLIES: ReplyChecks = {
  quote: { 'quote.request': isQuote, 'quote.get': isQuote, 'quote.bind': isQuoteBound, 'quote.order': isQuoteOrdered },
  order: { 'order.create': isOrderView, 'order.get': isOrderView, deposit: isOrderView, 'deposit.vanished': isOrderView, 'order.unwind': isOrderView },
};

const isTimerDue = shapeOf<TimerDue>({ type: oneOf([TIMER_DUE]), at: isMillis });

/**
 * Where `message` fails, when it names a command of `kind` (or the runtime's own wake-up) but its fields are not that
 * command's: the first field that does not read, described (`describeWrongAt`); null when it reads. A type the kind
 * does not know is not malformed here: the runtime refuses it as UnknownCommand.
 */
export function malformedCommandAt(kind: keyof Protocols, message: { readonly type: string; readonly [field: string]: unknown }): string | null {
  const checks: Readonly<Record<string, Guard<unknown>>> = COMMANDS[kind];
  const check = message.type === TIMER_DUE ? isTimerDue : Object.hasOwn(checks, message.type) ? checks[message.type]! : null;
  return check === null || check(message) ? null : describeWrongAt(check, message);
}

/** The check of the reply to a command of `kind` and `type`. */
export function replyCheck<K extends keyof Protocols, T extends CommandType<K>>(kind: K, type: T): Guard<ReplyTo<K, T>> {
  return REPLIES[kind][type];
}
