// An order as the core shows it (what `order.create` and `order.get` answer), and the commands about orders.
import type { AmountFormat, AssetId } from '../assets/types.js';
import type { VenueId } from '../venues/types.js';
import type { Holding, RefundReason } from './money.js';

/** Family A's eight order statuses (spec 3.1); every internal state of an order shows as one of them. */
export const ORDER_STATUSES = ['awaiting_deposit', 'funded', 'underfunded', 'expired', 'executing', 'delivered', 'stalled', 'frozen'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderView {
  id: string;
  quoteId: string;
  vaultId: string;
  format: AmountFormat;
  from: AssetId;
  to: AssetId;
  fromAmount: bigint;
  depositAddress: string;
  toAddress: string;
  refundAddress: string | null;
  allowlist: VenueId[];
  blocklist: VenueId[];
  status: OrderStatus;
  depositDeadline: number;
  createdAt: number;
  /** Set once delivered. */
  amountOut: bigint | null;
  /** Every refund paid, in order, with its reason. */
  refunds: RefundView[];
  /** Where the order's funds sit now (empty once everything is delivered or refunded). */
  held: Holding[];
  /** Why the order is frozen or stalled, when it is. */
  haltReason: string | null;
}

export interface RefundView {
  reason: RefundReason;
  asset: AssetId;
  /** What reached `to` (the refund's own cost already taken). */
  amount: bigint;
  cost: bigint;
  to: string;
  /** Null when nothing was sent (the amount did not exceed the refund's cost). */
  txId: string | null;
  at: number;
}

/**
 * Commands (bus messages) of the order flow, in the order the edge sends them for POST /order:
 * 1. quote actor  `{ type: 'quote.get' }` → Quote; QuoteNotFound when absent or refused (400 "unknown quote").
 * 2. quote actor  `{ type: 'quote.bind', orderId, toAddress, refundAddress }` → `{ orderId }`: binds the quote to one
 *    order (the first orderId proposed wins); the same addresses again → the bound orderId; other addresses →
 *    QuoteAlreadyBound (409); past expires_at → QuoteExpired (410). Addresses must already be normalised
 *    (validateAddress) so that spellings of one address compare equal.
 * 3. order actor  `{ type: 'order.create', quote, toAddress, refundAddress }` → OrderView; creates the order when
 *    absent, else answers the existing one (so a retry after a crash between 2 and 3 completes the creation).
 * GET /order/{id}: order actor `{ type: 'order.get' }` → OrderView; OrderNotFound (404).
 */
export interface QuoteBindMessage {
  type: 'quote.bind';
  orderId: string;
  toAddress: string;
  refundAddress: string | null;
  [field: string]: unknown;
}
