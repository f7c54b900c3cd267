// An order as the core shows it (what `order.create` and `order.get` answer), and the commands about orders.
import type { AmountFormat, AssetId } from '../assets/types.js';
import type { VenueId } from '../venues/types.js';

export type OrderStatus =
  | 'awaiting_deposit' | 'funded' | 'underfunded' | 'expired' | 'executing' | 'delivered' | 'stalled' | 'frozen';

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
