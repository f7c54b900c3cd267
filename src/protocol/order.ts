// Commands of the order actor and the replies they answer with. Every order command answers the order as it is
// after the command (OrderView); on an order that does not exist, every command but `order.create` fails with
// OrderNotFound. POST /order sends `quote.order` (src/protocol/quote.ts) to the quote's host, which sends `quote.bind`
// to the quote and then `order.create` here.
import type { OrderTerms, OrderView } from '../orders/types.js';
import type { Quote } from '../quotes/types.js';
import type { CommandOf } from './protocol.js';

/** Creates the order (issuing its deposit address) and answers once it awaits its deposit. On an order that exists
 *  it answers that order unchanged, so a retry after a crash between `quote.bind` and `order.create` completes the
 *  creation. Addresses are normalised by the edge; `refundAddress` null means "the first deposit's sender". */
export interface OrderCreate {
  type: 'order.create';
  quote: Quote;
  toAddress: string;
  refundAddress: string | null;
  /** Family B's terms (slippage guard, durable cancel, refund authorization); absent for Family A. */
  terms?: OrderTerms;
}

/** Reads the order. */
export interface OrderGet {
  type: 'order.get';
}

/** A deposit to the order's address, told by the deposit feed at least once per pass ("seen" with any number of
 *  confirmations, then "confirmed" with `required`); the order deduplicates by `txId`. */
export interface OrderDeposit {
  type: 'deposit';
  txId: string;
  from: string;
  /** Base units of the order's `from` asset. */
  amount: bigint;
  confirmations: number;
  /** Confirmations the source chain needs before the deposit is spent. */
  required: number;
  /** The sender is one of the router's own accounts (an order's deposit address or holding account, the fee account,
   *  a venue pool): one order delivering or refunding into another's address. Such a sender is never paid back, or
   *  two orders could refund each other forever. Absent: false. */
  fromRouter?: boolean;
}

/** A deposit told before whose transaction a reorg removed from its chain, told by the deposit feed at least once;
 *  the order deduplicates (an unknown or already removed `txId` changes nothing). A deposit not yet spent or refunded
 *  is removed from the order (a funded order goes back to underfunded or awaiting_deposit); one already spent or
 *  refunded stays, and the order records it for an operator in `haltReason`. */
export interface OrderDepositVanished {
  type: 'deposit.vanished';
  txId: string;
}

/** Cancels an order that has not started executing, or unwinds a stalled or frozen one: what it holds goes back
 *  through the machine's one refund path. An order in another state (executing, done) fails with
 *  OrderNotCancellable; otherwise the reply shows the order as it is afterwards (closing or unwinding). */
export interface OrderUnwind {
  type: 'order.unwind';
  /** Why, for the operator's record. */
  reason?: string;
}

export interface OrderProtocol {
  'order.create': { command: OrderCreate; reply: OrderView };
  'order.get': { command: OrderGet; reply: OrderView };
  deposit: { command: OrderDeposit; reply: OrderView };
  'deposit.vanished': { command: OrderDepositVanished; reply: OrderView };
  'order.unwind': { command: OrderUnwind; reply: OrderView };
}

export type OrderCommand = CommandOf<OrderProtocol>;
