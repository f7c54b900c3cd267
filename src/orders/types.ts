// An order as the core shows it (what every order command answers); the commands themselves are in src/protocol/.
import type { AmountFormat, AssetId } from '../assets/types.js';
import type { VenueId } from '../venues/types.js';
import type { Holding, RefundReason } from './money.js';

/** Family A's eight order statuses (spec 3.1); every internal state of an order shows as one of them. */
export const ORDER_STATUSES = ['awaiting_deposit', 'funded', 'underfunded', 'expired', 'executing', 'delivered', 'stalled', 'frozen'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** How a refund or cancel of the order is authorised (Family B); null for Family A orders. */
export type RefundAuthorization =
  /** An EIP-712 signature by `authorizer` (an EVM address). */
  | { mode: 'evmSignature'; authorizer: string }
  /** A bearer token derived from a server secret and the order id: never stored, so nothing to leak here. */
  | { mode: 'token' };

/** What the client agreed beyond the quote (Family B's and C's order terms); Family A orders carry `ORDER_TERMS_A`. */
export interface OrderTerms {
  family: 'a' | 'b' | 'c';
  /** The least the order may deliver (base units of `to`); a route re-priced below it refunds instead. */
  minOut: bigint | null;
  /** The slippage `minOut` was derived from, in basis points of the quoted output. */
  maxSlippageBps: number | null;
  /** An order still without its confirmed full deposit at this instant is cancelled (durable timer). */
  cancelAfter: number | null;
  refundAuthorization: RefundAuthorization | null;
  /** The sender the client named (Family B `fromAddress`). */
  fromAddress: string | null;
  integrator: string | null;
  idempotencyKey: string | null;
  /** Exact output (Family C): the order accepts deposits up to this (base units of `from`) and refunds what the
   *  route did not need once it delivered; null: it takes exactly the quoted input and refunds any excess at once. */
  maxIn: bigint | null;
  /** Exact output (Family C): the order delivers exactly this to the destination (base units of `to`); what the
   *  route returned above it is kept as a delivery cost. Null: it delivers the whole output. */
  exactOut: bigint | null;
  /** Family C's `approvalMode`: the allowance a route needing an ERC-20 approval would grant (`full`: max uint256,
   *  `partial`: the sell amount). Deposit-address routes need none, so it is recorded only. */
  approvalMode: 'full' | 'partial' | null;
}

export const ORDER_TERMS_A: OrderTerms = {
  family: 'a', minOut: null, maxSlippageBps: null, cancelAfter: null, refundAuthorization: null, fromAddress: null, integrator: null, idempotencyKey: null,
  maxIn: null, exactOut: null, approvalMode: null,
};

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
  terms: OrderTerms;
  /** The lifecycle state in the machine's words (`awaiting_deposit`, `refunding.cancelled`, `unwinding.quoting`...),
   *  for families whose statuses are finer or coarser than Family A's. */
  stage: string;
  /** Why the order closed without delivering, once it did: the deadline, a cancel, an unwind, the slippage guard. */
  closeReason: 'underfunded' | 'cancelled' | 'unwind' | 'slippage' | null;
  /** A refund is owed (also of a deposit still confirming, once the order stopped taking deposits) or being paid now. */
  refundPending: boolean;
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
