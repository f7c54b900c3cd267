// The one table from the core's order (its lifecycle stage, close reason and refunds) to Family B's statuses. The
// OpenAPI enum is B_ORDER_STATUSES, so the document and the mapping cannot drift apart.
import type { OrderView } from '../../src/orders/types.js';

export const B_ORDER_STATUSES = [
  'quoted', 'funded', 'executing', 'completed', 'cancelled', 'refund_pending', 'refunded', 'expired', 'failed',
] as const;
export type BOrderStatus = (typeof B_ORDER_STATUSES)[number];

/** What each status means to a client (the OpenAPI description of `status`). */
export const B_STATUS_MEANINGS: Readonly<Record<BOrderStatus, string>> = {
  quoted: 'waiting for the deposit (nothing yet, or less than `amountToSend` so far)',
  funded: 'the full deposit was seen; execution starts once it is confirmed',
  executing: 'the route is running',
  completed: 'the output was delivered to `toAddress`',
  cancelled: 'cancelled (by the client or `cancelAfter`) before anything arrived: nothing to refund',
  refund_pending: 'the order closed without delivering and a refund is owed or being paid (also while converted funds are swapped back)',
  refunded: 'the order closed without delivering and every refund was paid',
  expired: 'nothing arrived by the deposit deadline',
  failed: 'execution stopped (stalled or frozen); the operator must be contacted',
};

/**
 * First matching rule wins; `stage` is the lifecycle state path (`executing.step`, `refunding.cancelled`...), and a
 * rule names a state or a state with all its children. `refunded` splits on whether anything was ever paid back.
 */
const RULES: ReadonlyArray<readonly [stage: string, status: BOrderStatus | ((o: OrderView) => BOrderStatus)]> = [
  ['opening', 'quoted'],
  ['awaiting_deposit', 'quoted'],
  ['underfunded', 'quoted'],
  ['funded', 'funded'],
  ['executing', 'executing'],
  ['delivered', 'completed'],
  ['expired', 'expired'],
  ['refunding', 'refund_pending'],
  ['unwinding', 'refund_pending'],
  ['refunded', (o) => (o.refundPending ? 'refund_pending' : o.refunds.length === 0 && o.closeReason === 'cancelled' ? 'cancelled' : 'refunded')],
  ['stalled', 'failed'],
  ['frozen', 'failed'],
];

export function bStatusOf(order: OrderView): BOrderStatus {
  for (const [stage, status] of RULES) {
    if (order.stage === stage || order.stage.startsWith(`${stage}.`)) return typeof status === 'function' ? status(order) : status;
  }
  throw new Error(`order ${order.id} is in a lifecycle stage Family B has no status for: ${order.stage}`);
}
