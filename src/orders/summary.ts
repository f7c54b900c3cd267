// What the order list shows of an order, written beside its snapshot on every save (the store's order index), so a
// page of the list is read from the index alone, never by loading actors. Family-neutral: Family C renders it.
import type { AssetId } from '../assets/types.js';
import type { PricedRoute } from '../routing/types.js';

/** The list's coarse statuses, one per internal state (listStatusOf). */
export const LIST_STATUSES = ['unfilled', 'filled', 'cancelled', 'settled', 'refunded', 'failed'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

/** What each coarse status means to a client (the OpenAPI description of the filter and the item field). */
export const LIST_STATUS_MEANINGS: Readonly<Record<ListStatus, string>> = {
  unfilled: 'waiting for the deposit (or the rest of it), funded, or executing the route',
  filled: 'the route has run and the output is being delivered',
  settled: 'the output was delivered to the destination address',
  refunded: 'the order closed without delivering and what it received was paid back (or is being paid back)',
  cancelled: 'cancelled before anything arrived, or expired with nothing received',
  failed: 'execution stopped (stalled or frozen); the operator must be contacted',
};

export interface OrderSummary {
  quoteId: string;
  from: AssetId;
  to: AssetId;
  /** The route as the core priced it. */
  route: PricedRoute;
  quoteMode: 'exact_input' | 'exact_output';
  /** Quoted amounts: base units of `from` (sell) and `to` (buy). */
  quotedIn: bigint;
  quotedOut: bigint;
  /** The least the order may deliver (the slippage guard), or null when it has none. */
  minOut: bigint | null;
  /** The most the order accepts as input (exact output), or null. */
  maxIn: bigint | null;
  /** Executed amounts, null until known: what the route took from the deposits, what reached the destination. */
  executedIn: bigint | null;
  executedOut: bigint | null;
  /** Every cost the order paid so far (steps, delivery, refunds), valued in base units of `from` at the quoted
   *  route's own rates; null before anything was paid. */
  executedFees: bigint | null;
  depositTxId: string | null;
  payoutTxId: string | null;
  /** The last refund paid with a transaction, or null. */
  refundTxId: string | null;
  /** The sender the client named, else the first deposit's sender. */
  sender: string | null;
  integrator: string | null;
  /** When the source chain last told something about the order's deposits (epoch ms), or null. */
  lastSourceUpdateAt: number | null;
  /** When the order reached a terminal state (settled, refunded, cancelled), or null. */
  terminalAt: number | null;
}

/** A closed order that never refunded anything (nothing ever arrived, also not after its deadline) is `cancelled`; one
 *  paying or having paid back what it received is `refunded`. */
const closedStatus = (o: ListStatusInput): ListStatus => (o.refunds.length === 0 && !o.refundPending ? 'cancelled' : 'refunded');

/**
 * First matching rule wins; `stage` is the lifecycle state path (`executing.delivering`, `refunding.cancelled`...), and
 * a rule names a state or a state with all its children.
 */
const RULES: ReadonlyArray<readonly [stage: string, status: ListStatus | ((o: ListStatusInput) => ListStatus)]> = [
  ['opening', 'unfilled'],
  ['awaiting_deposit', 'unfilled'],
  ['underfunded', 'unfilled'],
  ['funded', 'unfilled'],
  ['executing.delivering', 'filled'],
  ['executing', 'unfilled'],
  ['delivered', 'settled'],
  ['expired', closedStatus],
  ['refunding', 'refunded'],
  ['unwinding', 'refunded'],
  ['refunded', closedStatus],
  ['stalled', 'failed'],
  ['frozen', 'failed'],
];

export interface ListStatusInput {
  id: string;
  stage: string;
  refunds: readonly unknown[];
  refundPending: boolean;
}

export function listStatusOf(o: ListStatusInput): ListStatus {
  for (const [stage, status] of RULES) {
    if (o.stage === stage || o.stage.startsWith(`${stage}.`)) return typeof status === 'function' ? status(o) : status;
  }
  throw new Error(`order ${o.id} is in a lifecycle stage the list has no status for: ${o.stage}`);
}

/** Whether the list status is one an order does not leave (late deposits aside, which are refunded on their own). */
export function isTerminalListStatus(o: ListStatusInput): boolean {
  return o.stage === 'delivered' || o.stage === 'expired' || o.stage === 'refunded';
}
