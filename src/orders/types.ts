// An order as the core shows it (what every order command answers); the commands themselves are in src/protocol/.
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
