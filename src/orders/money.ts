// The money records an order keeps (deposits, legs, delivery, refunds) and what follows from them alone: where the
// order's funds sit now and the flows per chain and asset that the audit sums. Every record names its chain, asset
// and account, so an order's holdings are computed from its own records and can be checked against the ledger.
import { assetById } from '../assets/registry.js';
import type { AssetId, ChainName } from '../assets/types.js';
import { isPoolAccount } from '../chains/accounts.js';
import type { VenueId } from '../venues/types.js';

/** Why a refund is paid. Every refund of every kind goes through one path of the order machine. */
export type RefundReason = 'underfunded' | 'excess' | 'late_deposit' | 'cancelled' | 'unwind' | 'slippage';
export const REFUND_REASONS: readonly RefundReason[] = ['underfunded', 'excess', 'late_deposit', 'cancelled', 'unwind', 'slippage'];

/** Where the order's money sits between steps: an internal account of the router, one per order and chain. */
export const holdingAccount = (orderId: string) => `order:${orderId}`;

/** Where execution, delivery and refund costs are collected on each chain (the router's fee account). */
export const FEES_ACCOUNT = 'fees';

/** Ledger keys: an order's delivery, and the cost a payment (a step, a delivery, a refund) moves before it. */
export const deliveryKey = (orderId: string) => `${orderId}:deliver`;
/** The order a money movement belongs to: every one of an order's keys (steps, delivery, refunds, unwinds, their
 *  costs and a chain's gas top-ups for them) starts with `<order id>:`. */
export const orderOfKey = (key: string): string => key.split(':', 1)[0]!;
export const costKey = (paymentKey: string) => `${paymentKey}:cost`;

/** The router's internal accounts on its ledgers: orders' holding accounts, the fee account and venue pools. */
export function isInternalAccount(address: string): boolean {
  return address.startsWith(holdingAccount('')) || address === FEES_ACCOUNT || isPoolAccount(address);
}

export interface DepositRecord {
  txId: string;
  /** The sender: receives this deposit's unspent part when the order has no refund address of its own. */
  from: string;
  /** The sender is one of the router's own accounts (see OrderDeposit): never paid back; without the client's refund
   *  address the deposit's unspent part stays held at the deposit address for an operator. Absent: false. */
  fromRouter?: boolean;
  amount: bigint;
  confirmations: number;
  /** Confirmations the source chain needs before the deposit may be spent or refunded. */
  required: number;
  at: number;
  /** Arrived after the order committed its funds to execution or closed: all of it is refunded. */
  late: boolean;
  /** The part execution spends, fixed when execution starts (deposits in arrival order); 0 otherwise. */
  spent: bigint;
  /** Taken from this deposit by refunds so far (what reached the refund address plus the refunds' costs). */
  refunded: bigint;
}

export interface LegRecord {
  /** Position in its route (the quoted route, or the route back when unwinding). */
  index: number;
  unwind: boolean;
  venue: VenueId;
  from: AssetId;
  to: AssetId;
  /** Account the step's input was taken from (the deposit address for the first step, else the holding account). */
  holder: string;
  /** Taken from `holder`: the venue's input plus `cost`. */
  amountIn: bigint;
  cost: bigint;
  /** Arrived in the holding account. */
  amountOut: bigint;
  txId: string;
  at: number;
}

export interface DeliveryRecord {
  asset: AssetId;
  /** Taken from the holding account: `amountOut` plus `cost`. */
  amountIn: bigint;
  cost: bigint;
  amountOut: bigint;
  to: string;
  txId: string;
  at: number;
}

/** A refund decided and about to be paid (the key makes its transfers happen once). */
export interface PlannedRefund {
  key: string;
  reason: RefundReason;
  chain: ChainName;
  asset: AssetId;
  /** Account paying it: the deposit address, or the holding account for the proceeds of an unwind. */
  from: string;
  to: string;
  /** Taken from `from`: what reaches `to` plus the cost. */
  amount: bigint;
  /** The refund transfer's own cost, at most `amount`; all of `amount` when it does not exceed the cost. */
  cost: bigint;
  /** The deposit whose unspent part this is; null for unwind proceeds. */
  depositTxId: string | null;
}

export interface RefundRecord extends PlannedRefund {
  /** `amount − cost`, what reached `to`. */
  sent: bigint;
  /** Null when nothing was sent (the amount did not exceed the refund's cost). */
  txId: string | null;
  at: number;
}

export interface Holding {
  chain: ChainName;
  asset: AssetId;
  address: string;
  amount: bigint;
}

/** The records `holdings` and `moneyFlows` read: a structural part of the order machine's context, and what the
 *  audit adds from the ledger. */
export interface MoneyRecords {
  id: string;
  sourceChain: ChainName;
  route: { from: AssetId };
  vault: { address: string } | null;
  deposits: DepositRecord[];
  legs: LegRecord[];
  delivery: DeliveryRecord | null;
  refunds: RefundRecord[];
  /** Costs a delivery or refund not recorded yet has already moved: its cost goes first, and its payment failed (and
   *  waits for its retry) or is on its way. Not in the order's context: the audit reads them from the ledger by key. */
  costsAhead?: Holding[];
}

export interface ChainAmount {
  chain: ChainName;
  asset: AssetId;
  amount: bigint;
}

/** Sums per chain and asset of one order (or many): each term the audit reads. */
export interface MoneyFlows {
  deposited: ChainAmount[];
  /** Handed to venues (step inputs less their costs). */
  swappedOut: ChainAmount[];
  /** Received from venues. */
  swappedIn: ChainAmount[];
  costs: ChainAmount[];
  delivered: ChainAmount[];
  refunded: ChainAmount[];
  held: Holding[];
}

const chainOf = (asset: AssetId): ChainName => assetById(asset).chain;

class Sums<K extends { chain: ChainName; asset: AssetId }> {
  private readonly m = new Map<string, K & { amount: bigint }>();
  constructor(private readonly keyOf: (k: K) => string) {}
  add(k: K, amount: bigint): void {
    if (amount === 0n) return;
    const key = this.keyOf(k);
    const prior = this.m.get(key);
    this.m.set(key, { ...k, amount: (prior?.amount ?? 0n) + amount });
  }
  list(): Array<K & { amount: bigint }> {
    return [...this.m.values()].filter((v) => v.amount !== 0n);
  }
}

const byAsset = () => new Sums<{ chain: ChainName; asset: AssetId }>((k) => `${k.chain}|${k.asset}`);

/** Balances of the order's own accounts as its records say: what each deposit, leg, delivery and refund moved. */
export function holdings(r: MoneyRecords): Holding[] {
  const s = new Sums<{ chain: ChainName; asset: AssetId; address: string }>((k) => `${k.chain}|${k.asset}|${k.address}`);
  const holding = holdingAccount(r.id);
  if (r.vault) for (const d of r.deposits) s.add({ chain: r.sourceChain, asset: r.route.from, address: r.vault.address }, d.amount);
  for (const l of r.legs) {
    s.add({ chain: chainOf(l.from), asset: l.from, address: l.holder }, -l.amountIn);
    s.add({ chain: chainOf(l.to), asset: l.to, address: holding }, l.amountOut);
  }
  if (r.delivery) s.add({ chain: chainOf(r.delivery.asset), asset: r.delivery.asset, address: holding }, -r.delivery.amountIn);
  for (const f of r.refunds) s.add({ chain: f.chain, asset: f.asset, address: f.from }, -f.amount);
  for (const c of r.costsAhead ?? []) s.add(c, -c.amount);
  return s.list();
}

export function moneyFlows(r: MoneyRecords): MoneyFlows {
  const deposited = byAsset();
  const swappedOut = byAsset();
  const swappedIn = byAsset();
  const costs = byAsset();
  const delivered = byAsset();
  const refunded = byAsset();
  const src = { chain: r.sourceChain, asset: r.route.from };
  for (const d of r.deposits) deposited.add(src, d.amount);
  for (const l of r.legs) {
    const from = { chain: chainOf(l.from), asset: l.from };
    swappedOut.add(from, l.amountIn - l.cost);
    costs.add(from, l.cost);
    swappedIn.add({ chain: chainOf(l.to), asset: l.to }, l.amountOut);
  }
  if (r.delivery) {
    const k = { chain: chainOf(r.delivery.asset), asset: r.delivery.asset };
    costs.add(k, r.delivery.cost);
    delivered.add(k, r.delivery.amountOut);
  }
  for (const f of r.refunds) {
    costs.add(f, f.cost);
    refunded.add(f, f.sent);
  }
  for (const c of r.costsAhead ?? []) costs.add(c, c.amount);
  return {
    deposited: deposited.list(),
    swappedOut: swappedOut.list(),
    swappedIn: swappedIn.list(),
    costs: costs.list(),
    delivered: delivered.list(),
    refunded: refunded.list(),
    held: holdings(r),
  };
}
