// An order's context as stored, checked field by field before XState restores it: a snapshot another version wrote,
// or a damaged one, is refused naming its field instead of failing later on a field it lacks, perhaps halfway through
// moving money. The check follows OrderContext: the fields it marks optional are the ones the machine defaults when a
// snapshot lacks them, and `shapeOf` needs a check for every field, so a field added to the context is checked too.
import type { OrderContext, OrderPolicy, OrderVault, UnwindState } from '../../machines/order.machine.js';
import { isChainName } from '../../src/assets/types.js';
import {
  arrayOf, describeWrongAt, isBigint, isBoolean, isInteger, isNumber, isString, nullable, oneOf, optional, shapeOf,
} from '../../src/checks.js';
import { moneyRecordsProblem } from '../../src/orders/audit.js';
import { REFUND_REASONS, type DeliveryRecord, type DepositRecord, type LegRecord, type PlannedRefund, type RefundRecord } from '../../src/orders/money.js';
import { ORDER_STATUSES } from '../../src/orders/types.js';
import { isFormat, isOrderTerms, isPricedRoute, isVenue } from '../../src/protocol/checks.js';

const isDeposit = shapeOf<DepositRecord>({
  txId: isString, from: isString, fromRouter: optional(isBoolean), amount: isBigint, confirmations: isInteger, required: isInteger,
  at: isNumber, late: isBoolean, spent: isBigint, refunded: isBigint,
});

const isLeg = shapeOf<LegRecord>({
  index: isInteger, unwind: isBoolean, venue: isVenue, from: isString, to: isString, holder: isString, amountIn: isBigint, cost: isBigint,
  amountOut: isBigint, txId: isString, at: isNumber,
});

const isDeliveryRecord = shapeOf<DeliveryRecord>({
  asset: isString, amountIn: isBigint, cost: isBigint, amountOut: isBigint, to: isString, txId: isString, at: isNumber,
});

const plannedRefund = {
  key: isString, reason: oneOf(REFUND_REASONS), chain: isChainName, asset: isString, from: isString, to: isString, amount: isBigint,
  cost: isBigint, depositTxId: nullable(isString),
};
const isPlannedRefund = shapeOf<PlannedRefund>(plannedRefund);
const isRefundRecord = shapeOf<RefundRecord>({ ...plannedRefund, sent: isBigint, txId: nullable(isString), at: isNumber });

const isPolicy = shapeOf<OrderPolicy>({
  maxAttempts: isInteger, backoffMs: isNumber, shortfallToleranceBps: isNumber, maxAmountIn: nullable(isBigint),
});

const isVault = shapeOf<OrderVault>({ vaultId: isString, chain: isChainName, index: isInteger, address: isString });

const isUnwind = shapeOf<UnwindState>({ route: nullable(isPricedRoute), step: isInteger });

export const isStoredOrderContext = shapeOf<OrderContext>({
  id: isString, quoteId: isString, format: isFormat, route: isPricedRoute, allowlist: arrayOf(isVenue), blocklist: arrayOf(isVenue),
  sourceChain: isChainName, toAddress: isString, refundAddress: nullable(isString), refundCost: isBigint, createdAt: isNumber,
  policy: isPolicy, terms: isOrderTerms,
  depositDeadline: isNumber, vault: nullable(isVault), givenRefundAddress: nullable(isString), deposits: arrayOf(isDeposit),
  phase: oneOf(['open', 'committed', 'closed']), closeReason: nullable(oneOf(['underfunded', 'cancelled', 'unwind', 'slippage'])),
  step: isInteger, legs: arrayOf(isLeg), attempt: isInteger, retryAt: nullable(isNumber), lastError: nullable(isString),
  partMoved: optional(isBoolean), haltReason: nullable(isString), delivery: nullable(isDeliveryRecord), refundQueue: arrayOf(isPlannedRefund),
  paying: nullable(isPlannedRefund), refundAttempt: isInteger, refundRetryAt: nullable(isNumber), refundError: optional(nullable(isString)), terminalAt: optional(nullable(isNumber)),
  refunds: arrayOf(isRefundRecord), unwind: nullable(isUnwind), unwindReason: oneOf(['unwind', 'slippage']),
  history: arrayOf(shapeOf<OrderContext['history'][number]>({ status: oneOf(ORDER_STATUSES), at: isNumber })),
});

/** Why `context` is not an order's context as this version stores it, or null when it is. The money records are
 *  read first, through the audit's own check (known assets and chains), so both name a money field the same way. */
export function orderContextProblem(context: unknown): string | null {
  const money = moneyRecordsProblem(context);
  if (money) return money;
  return isStoredOrderContext(context) ? null : `its context is not an order's: it fails at ${describeWrongAt(isStoredOrderContext, context)}`;
}
