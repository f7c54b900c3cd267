// The money audit: what the ledger says arrived at the orders' deposit addresses and still sits in their accounts,
// beside what the orders' own records say they received, swapped, delivered, refunded, paid in costs and hold.
// Pure (no I/O): the caller reads the store and the ledger (audit-run.ts) and hands both here.
//
// Per chain and asset:
//   difference   = arrived + swappedIn − swappedOut − delivered − refunded − costs − held
//   unrecorded   = arrived − foreign − pending − recorded
//   heldMismatch = ledgerHeld − held
// `arrived` and `ledgerHeld` come from the ledger, every other term from the records, so a difference of 0 says that
// every unit that reached a deposit address from outside (or from another order, as a deposit its order recorded) is
// accounted for by the records, and a heldMismatch of 0
// says that what the records leave in the orders' accounts is what the ledger has there (so what left them, to
// venues, fees, recipients and refund addresses, adds up to what the records say left). Beside the sums, every
// recorded leg output, delivery and refund is looked up on the ledger by its transaction id: a record that is
// consistent with itself but not with what the ledger moved (a delivery recorded larger than it was) is a finding.
//
// Two kinds of arrival are counted as held where they arrived instead of as recorded deposits, and listed: a deposit
// of another asset than the order's, or on another chain sharing the address (`foreign`: the deposit feed leaves it
// for an operator), and one still pending in
// a block not mined yet (`pending`: no order can have seen it; it is recorded once mined).
//
// On a real chain (hybrid-chains.ts) the ledger is the router's books, and the chain itself is read beside them:
// every deposit address's on-chain balance of its order's asset (`onChain`, read by the caller) must equal its balance
// in the books, else an `onchain_mismatch` finding names both. Only the order's asset: a deposit address also holds
// the gas top-ups (ETH) the router sends it for its sweeps, and what is left of them, which the books never hold. For
// the same reason an order paid in the chain's native asset (ETH) may hold more on chain than in its books, by at
// most what the gas account sent it (`toppedUp` of its gas row): less than the books, or more beyond that dust (ETH
// that reached the address unseen, as a contract's payment while the node serves no call tracer), is a finding. A deposit mined but
// not yet booked (the feed waits for its confirmations) shows as the chain holding more than the books until it is
// booked.
//
// Gas on real chains: the gas the router paid for each order's sends from its deposit address (`gasDesk`, per send
// key) is summed per order beside what the order was charged for it (its steps' and refunds' costs taken from the
// deposit address, converted to the native coin at its quote's prices); spending more than was charged is a
// `gas_undercharged` finding.
import { chainsSharingAddresses } from '../assets/chains.js';
import { ASSETS, assetById } from '../assets/registry.js';
import { CHAIN_NAMES, isChainName, type AssetId, type ChainName } from '../assets/types.js';
import { isObject } from '../checks.js';
import { accountKey } from '../chains/accounts.js';
import type { AccountReconciliation, Balance, GasDeskSpend, Transfer } from '../chains/types.js';
import { holdingAccount, holdings, isInternalAccount, moneyFlows, type ChainAmount, type MoneyRecords } from './money.js';

/** Prefix of the holding accounts (`holdingAccount(id)`): any such account belongs to an order. */
const HOLDING_PREFIX = holdingAccount('');

export interface AuditInput {
  orders: readonly MoneyRecords[];
  /** Ledger transfers: those into the orders' deposit addresses (the arrivals) and those the records name by
   *  transaction id (leg outputs, deliveries, refunds); any other transfer is ignored. */
  transfers: readonly Transfer[];
  /** Ledger balances; only those of the orders' deposit addresses (on their source chains) and of holding accounts
   *  (`order:<id>`, on any chain) are read. */
  balances: readonly Balance[];
  /** Orders whose stored state is not readable as money records: listed, and the report is not clean. */
  unreadable?: readonly UnreadableOrder[];
  /** Chain heights when the ledger was read: an arrival in a later block is pending. Absent: none is. */
  heights?: Partial<Record<ChainName, number>>;
  /** On-chain balances of deposit addresses on real chains (see `depositAccounts`), each compared with the books'
   *  balance of the same account. Absent or empty (simulated chains): nothing is compared. */
  onChain?: readonly OnChainBalance[];
  /** The router's own accounts on real chains (treasury, gas account), each read beside its records by the chains
   *  adapter; any whose `onChain` is not its `expected` makes the report unclean. Absent: none is checked. */
  accounts?: readonly AccountReconciliation[];
  /** The gas paid for sends from deposit addresses on real chains, per send key (`Chains.gasDesk`). Absent: no gas
   *  row is made. */
  gasDesk?: readonly GasDeskSpend[];
  /** Per order id, the USD prices stored with its quote: the gas charged in the order's asset is converted to the
   *  chain's native coin with them (the prices the quote converted it with). */
  quotePrices?: ReadonlyMap<string, Readonly<Record<string, bigint>>>;
}

/**
 * One order's gas on a real chain: what the router paid for the sends from its deposit address (their fees and
 * their top-ups' fees, `spentWei`) beside what the order was charged for them (the costs of its steps and refunds
 * taken from the deposit address, `charged` in the order's asset, and `chargedWei` converted at its quote's prices;
 * null when the quote has no price for either). `toppedUp` is what the gas account sent the deposit address; the
 * part not burnt (`toppedUp − topUps' share of the sweeps' fees`) stays there as dust, the gas account's money, so
 * the gas account's own change is `−(toppedUp + top-ups' fees)`, and its spend for the order is `spentWei`.
 */
export interface GasDeskRow {
  order: string;
  chain: ChainName;
  asset: AssetId;
  address: string;
  charged: bigint;
  chargedWei: bigint | null;
  spentWei: bigint;
  /** `spentWei` in the order's asset at the quote's prices (rounded up); null when `chargedWei` is. */
  spent: bigint | null;
  toppedUp: bigint;
}

/** What a real chain's node answers for one deposit address and its order's asset. */
export interface OnChainBalance {
  chain: ChainName;
  address: string;
  asset: AssetId;
  amount: bigint;
}

/** A deposit address to reconcile with its chain: the order's vault on its source chain, in the order's asset
 *  (`route.from`; not ETH, see the header). One entry per account, in the orders' order. */
export interface DepositAccount {
  order: string;
  chain: ChainName;
  address: string;
  asset: AssetId;
}

export function depositAccounts(orders: readonly MoneyRecords[]): DepositAccount[] {
  const seen = new Set<string>();
  const out: DepositAccount[] = [];
  for (const o of orders) {
    if (!o.vault) continue;
    const id = accountId(o.sourceChain, o.vault.address, o.route.from);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ order: o.id, chain: o.sourceChain, address: o.vault.address, asset: o.route.from });
  }
  return out;
}

export interface UnreadableOrder {
  id: string;
  reason: string;
}

export interface AuditRow {
  chain: ChainName;
  asset: AssetId;
  /** Ledger: transfers into deposit addresses from accounts that are not the router's own. */
  arrived: bigint;
  /** Records: the orders' deposits. */
  recorded: bigint;
  /** Ledger: the part of `arrived` in another asset than the order's (left at the deposit address for an operator). */
  foreign: bigint;
  /** Ledger: the part of `arrived` of the order's asset, not recorded, in a block not mined yet. */
  pending: bigint;
  swappedIn: bigint;
  swappedOut: bigint;
  delivered: bigint;
  refunded: bigint;
  costs: bigint;
  /** Records: what the orders' accounts hold (their `holdings`), plus foreign and pending deposits where they arrived. */
  held: bigint;
  /** Ledger: balances of the orders' deposit addresses and holding accounts. */
  ledgerHeld: bigint;
  difference: bigint;
  unrecorded: bigint;
  heldMismatch: bigint;
}

/** A deposit counted as held at `place` where it arrived (not as a recorded deposit), so it makes no difference:
 *  of another asset than its order's (foreign), or not mined yet (pending). */
export interface PlacedDeposit {
  order: string;
  chain: ChainName;
  asset: AssetId;
  address: string;
  txId: string;
  from: string;
  amount: bigint;
  /** `foreign deposit at <address>` or `pending deposit at <address>`. */
  place: string;
}

/** One order's disagreement between its records and the ledger: what an operator looks at first. */
export type AuditFinding =
  /** On the ledger, not in the order's deposits. */
  | { kind: 'unrecorded_deposit'; order: string; chain: ChainName; asset: AssetId; address: string; txId: string; amount: bigint }
  /** In the order's deposits (or recorded twice), not on the ledger as an arrival at its deposit address. */
  | { kind: 'missing_deposit'; order: string; chain: ChainName; asset: AssetId; address: string; txId: string; amount: bigint }
  /** The same transaction on both sides with different amounts. */
  | { kind: 'deposit_amount'; order: string; chain: ChainName; asset: AssetId; address: string; txId: string; amount: bigint; recorded: bigint }
  /** One account of the order holds another amount on the ledger than its records leave there. */
  | { kind: 'held_mismatch'; order: string; chain: ChainName; asset: AssetId; address: string; held: bigint; ledgerHeld: bigint }
  /** A recorded leg output (to the holding account), delivery or refund (to `address`) whose transaction the ledger
   *  has with another amount, asset or destination, or not at all (`ledger` null). */
  | { kind: 'flow_mismatch'; order: string; chain: ChainName; asset: AssetId; address: string; txId: string; what: string; amount: bigint; ledger: bigint | null }
  /** A deposit address on a real chain whose on-chain balance of the order's asset is not its balance in the books. */
  | { kind: 'onchain_mismatch'; order: string; chain: ChainName; asset: AssetId; address: string; onChain: bigint; books: bigint }
  /** The gas the router paid for the order's sends from its deposit address exceeds what the order was charged for
   *  it (both in wei, the charge converted at the quote's prices): the gas desk lost money on this order. */
  | { kind: 'gas_undercharged'; order: string; chain: ChainName; asset: AssetId; address: string; spentWei: bigint; chargedWei: bigint; charged: bigint };

/** A router account on a real chain: its reconciliation and `difference = onChain − expected` (must be 0). */
export interface AccountRow extends AccountReconciliation {
  difference: bigint;
}

export interface AuditReport {
  /** Orders audited (readable ones). */
  orders: number;
  /** The treasury (per asset) and the gas account of every real chain; empty on simulated chains. */
  accounts: AccountRow[];
  /** Per order with a send from its deposit address on a real chain: its gas spent beside its gas charged. */
  gas: GasDeskRow[];
  /** One row per chain and asset any term touches, by chain (registry order), then asset id. */
  rows: AuditRow[];
  foreign: PlacedDeposit[];
  pending: PlacedDeposit[];
  findings: AuditFinding[];
  unreadable: UnreadableOrder[];
  /** Rows with a non-zero difference, unrecorded or heldMismatch. */
  differing: number;
  /** No row differs, no finding, no unreadable order, no router account differs. */
  clean: boolean;
}

const TERMS = [
  'arrived', 'recorded', 'foreign', 'pending', 'swappedIn', 'swappedOut', 'delivered', 'refunded', 'costs', 'held', 'ledgerHeld',
] as const;
type Term = (typeof TERMS)[number];

export const foreignPlace = (address: string) => `foreign deposit at ${address}`;
export const pendingPlace = (address: string) => `pending deposit at ${address}`;

const chainRank = (c: ChainName) => CHAIN_NAMES.indexOf(c);
const chainOf = (asset: AssetId): ChainName => assetById(asset).chain;

class Rows {
  private readonly m = new Map<string, Record<Term, bigint> & { chain: ChainName; asset: AssetId }>();
  add(term: Term, k: { chain: ChainName; asset: AssetId }, amount: bigint): void {
    const key = `${k.chain}|${k.asset}`;
    let row = this.m.get(key);
    if (!row) {
      row = { chain: k.chain, asset: k.asset, ...(Object.fromEntries(TERMS.map((t) => [t, 0n])) as Record<Term, bigint>) };
      this.m.set(key, row);
    }
    row[term] += amount;
  }
  addAll(term: Term, list: readonly ChainAmount[]): void {
    for (const a of list) this.add(term, a, a.amount);
  }
  rows(): AuditRow[] {
    return [...this.m.values()]
      .map((r) => ({
        ...r,
        difference: r.arrived + r.swappedIn - r.swappedOut - r.delivered - r.refunded - r.costs - r.held,
        unrecorded: r.arrived - r.foreign - r.pending - r.recorded,
        heldMismatch: r.ledgerHeld - r.held,
      }))
      .sort((a, b) => chainRank(a.chain) - chainRank(b.chain) || (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
  }
}

export const rowDiffers = (r: AuditRow): boolean => r.difference !== 0n || r.unrecorded !== 0n || r.heldMismatch !== 0n;

/** Balances per account, keyed `<chain>|<account key>|<asset>`. */
type AccountMap = Map<string, { chain: ChainName; asset: AssetId; address: string; amount: bigint }>;
const accountId = (chain: ChainName, address: string, asset: AssetId) => `${chain}|${accountKey(chain, address)}|${asset}`;

function addTo(m: AccountMap, chain: ChainName, asset: AssetId, address: string, amount: bigint): void {
  const id = accountId(chain, address, asset);
  const prior = m.get(id);
  m.set(id, { chain, asset, address: prior?.address ?? address, amount: (prior?.amount ?? 0n) + amount });
}

export function auditMoney(input: AuditInput): AuditReport {
  const rows = new Rows();
  const foreign: PlacedDeposit[] = [];
  const pending: PlacedDeposit[] = [];
  const findings: AuditFinding[] = [];

  // The router's own accounts: money moving between them is not an arrival. The mint is not one of them: it is
  // external money, as a simulated deposit sent straight from it would be.
  const depositOwner = new Map<string, MoneyRecords>();
  // A deposit address is the same account on every chain sharing its addresses: what arrives on another one than the
  // order's is the order's foreign deposit.
  for (const o of input.orders) {
    if (o.vault) for (const chain of chainsSharingAddresses(o.sourceChain)) depositOwner.set(`${chain}|${accountKey(chain, o.vault.address)}`, o);
  }
  const isOwn = (chain: ChainName, address: string): boolean =>
    isInternalAccount(address) ||
    depositOwner.has(`${chain}|${accountKey(chain, address)}`);

  // Arrivals per order, oldest first (as the ledger lists them).
  const arrivals = new Map<string, Transfer[]>();
  const byTx = new Map<string, Transfer>();
  // Each transfer once (a transfer can be both an arrival and named by a record), by its key: on a real chain one
  // transaction may pay two deposit addresses, two bookings under one transaction id.
  const seen = new Set<string>();
  for (const t of input.transfers) {
    const id = `${t.key}|${t.txId}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (!byTx.has(t.txId)) byTx.set(t.txId, t);
    const owner = depositOwner.get(`${t.chain}|${accountKey(t.chain, t.to)}`);
    // A transfer from the router's own accounts is no arrival (gas for the address, a reversal), unless the order
    // recorded it as its deposit: another order delivering or refunding into this address.
    if (!owner || (isOwn(t.chain, t.from) && !owner.deposits.some((d) => d.txId === t.txId))) continue;
    const list = arrivals.get(owner.id) ?? [];
    list.push(t);
    arrivals.set(owner.id, list);
  }

  // What the records leave in each account (foreign deposits included), to compare with the ledger per account.
  const expected: AccountMap = new Map();
  const accountOrder = new Map<string, string>();
  for (const o of input.orders) {
    const flows = moneyFlows(o);
    rows.addAll('recorded', flows.deposited);
    rows.addAll('swappedIn', flows.swappedIn);
    rows.addAll('swappedOut', flows.swappedOut);
    rows.addAll('delivered', flows.delivered);
    rows.addAll('refunded', flows.refunded);
    rows.addAll('costs', flows.costs);
    for (const h of holdings(o)) {
      rows.add('held', h, h.amount);
      addTo(expected, h.chain, h.asset, h.address, h.amount);
    }
    if (o.vault) accountOrder.set(`${o.sourceChain}|${accountKey(o.sourceChain, o.vault.address)}`, o.id);

    // Deposits matched by transaction id; the rest is listed on its side.
    const recorded = new Map<string, bigint[]>();
    for (const d of o.deposits) recorded.set(d.txId, [...(recorded.get(d.txId) ?? []), d.amount]);
    const address = o.vault?.address ?? '';
    const own = { order: o.id, chain: o.sourceChain, address };
    for (const t of arrivals.get(o.id) ?? []) {
      rows.add('arrived', t, t.amount);
      if (t.asset !== o.route.from) {
        rows.add('foreign', t, t.amount);
        rows.add('held', t, t.amount);
        addTo(expected, t.chain, t.asset, address, t.amount);
        foreign.push({ ...own, chain: t.chain, asset: t.asset, txId: t.txId, from: t.from, amount: t.amount, place: foreignPlace(address) });
        continue;
      }
      const amounts = recorded.get(t.txId);
      const amount = amounts?.shift();
      const height = input.heights?.[t.chain];
      if (amount === undefined && height !== undefined && t.block > height) {
        rows.add('pending', t, t.amount);
        rows.add('held', t, t.amount);
        addTo(expected, t.chain, t.asset, address, t.amount);
        pending.push({ ...own, asset: t.asset, txId: t.txId, from: t.from, amount: t.amount, place: pendingPlace(address) });
      } else if (amount === undefined) findings.push({ kind: 'unrecorded_deposit', ...own, asset: t.asset, txId: t.txId, amount: t.amount });
      else if (amount !== t.amount) findings.push({ kind: 'deposit_amount', ...own, asset: t.asset, txId: t.txId, amount: t.amount, recorded: amount });
    }
    for (const [txId, amounts] of recorded) {
      for (const amount of amounts) findings.push({ kind: 'missing_deposit', ...own, asset: o.route.from, txId, amount });
    }

    // Flows out of the order's accounts, each against the ledger transfer its record names.
    const flow = (what: string, asset: AssetId, to: string, txId: string | null, amount: bigint): void => {
      if (txId === null) return; // nothing was sent (a refund that its cost took whole)
      const chain = chainOf(asset);
      const t = byTx.get(txId);
      const same = t && t.chain === chain && t.asset === asset && accountKey(chain, t.to) === accountKey(chain, to) && t.amount === amount;
      if (!same) findings.push({ kind: 'flow_mismatch', order: o.id, chain, asset, address: to, txId, what, amount, ledger: t ? t.amount : null });
    };
    for (const l of o.legs) if (l.amountOut > 0n) flow(`leg ${l.index}${l.unwind ? ' (unwind)' : ''} output`, l.to, holdingAccount(o.id), l.txId, l.amountOut);
    if (o.delivery && o.delivery.amountOut > 0n) flow('delivery', o.delivery.asset, o.delivery.to, o.delivery.txId, o.delivery.amountOut);
    for (const f of o.refunds) if (f.sent > 0n) flow(`refund ${f.reason}`, f.asset, f.to, f.txId, f.sent);
  }

  // The ledger's side: balances of deposit addresses and of every holding account (one without a readable order
  // is money no record explains, so it is counted and shows as a mismatch).
  const ledger: AccountMap = new Map();
  for (const b of input.balances) {
    const isDeposit = depositOwner.has(`${b.chain}|${accountKey(b.chain, b.address)}`);
    if (!isDeposit && !b.address.startsWith(HOLDING_PREFIX)) continue;
    rows.add('ledgerHeld', b, b.amount);
    addTo(ledger, b.chain, b.asset, b.address, b.amount);
  }
  // Addresses as the orders spell them (a vault's checksummed form), not as the ledger keys them.
  const spelt = (chain: ChainName, address: string): string => depositOwner.get(`${chain}|${accountKey(chain, address)}`)?.vault?.address ?? address;
  const orderOf = (chain: ChainName, address: string): string =>
    address.startsWith(HOLDING_PREFIX) ? address.slice(HOLDING_PREFIX.length) : (accountOrder.get(`${chain}|${accountKey(chain, address)}`) ?? '?');
  for (const id of new Set([...expected.keys(), ...ledger.keys()])) {
    const e = expected.get(id);
    const l = ledger.get(id);
    const held = e?.amount ?? 0n;
    const ledgerHeld = l?.amount ?? 0n;
    if (held === ledgerHeld) continue;
    const a = (e ?? l)!;
    findings.push({ kind: 'held_mismatch', order: orderOf(a.chain, a.address), chain: a.chain, asset: a.asset, address: spelt(a.chain, a.address), held, ledgerHeld });
  }

  // The chain beside the books, per deposit account read (real chains only).
  const gas = gasRows(input);
  if (input.onChain?.length) {
    const books: AccountMap = new Map();
    for (const b of input.balances) addTo(books, b.chain, b.asset, b.address, b.amount);
    // An ETH order's address may hold more than its books by the dust of the gas top-ups it was sent, never more.
    const toppedUp = new Map(gas.map((g) => [`${g.chain}|${accountKey(g.chain, g.address)}`, g.toppedUp]));
    for (const c of input.onChain) {
      const inBooks = books.get(accountId(c.chain, c.address, c.asset))?.amount ?? 0n;
      const dust = assetById(c.asset).native ? (toppedUp.get(`${c.chain}|${accountKey(c.chain, c.address)}`) ?? 0n) : 0n;
      if (c.amount >= inBooks && c.amount - inBooks <= dust) continue;
      findings.push({ kind: 'onchain_mismatch', order: orderOf(c.chain, c.address), chain: c.chain, asset: c.asset, address: spelt(c.chain, c.address), onChain: c.amount, books: inBooks });
    }
  }

  for (const g of gas) {
    if (g.chargedWei === null || g.spentWei <= g.chargedWei) continue;
    findings.push({ kind: 'gas_undercharged', order: g.order, chain: g.chain, asset: g.asset, address: g.address, spentWei: g.spentWei, chargedWei: g.chargedWei, charged: g.charged });
  }

  const all = rows.rows();
  const differing = all.filter(rowDiffers).length;
  const unreadable = [...(input.unreadable ?? [])];
  const accounts = (input.accounts ?? []).map((a) => ({ ...a, difference: a.onChain - a.expected }));
  findings.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  return {
    orders: input.orders.length,
    accounts,
    gas,
    rows: all,
    foreign,
    pending,
    findings,
    unreadable,
    differing,
    clean: differing === 0 && findings.length === 0 && unreadable.length === 0 && accounts.every((a) => a.difference === 0n),
  };
}

/** The gas rows of `GasDeskRow`: the sends keyed `<order id>:…` grouped per order. */
function gasRows(input: AuditInput): GasDeskRow[] {
  if (!input.gasDesk?.length) return [];
  const out: GasDeskRow[] = [];
  for (const o of input.orders) {
    if (!o.vault) continue;
    const mine = input.gasDesk.filter((g) => g.chain === o.sourceChain && g.key.startsWith(`${o.id}:`));
    if (mine.length === 0) continue;
    const vault = accountKey(o.sourceChain, o.vault.address);
    const fromVault = (address: string) => accountKey(o.sourceChain, address) === vault;
    const asset = o.route.from;
    // Every cost taken from the deposit address pays for a send from it: the steps' (the first step's, the route
    // back's from there) and the refunds', those of a payment still waiting for its retry included (costs ahead).
    const charged =
      o.legs.filter((l) => fromVault(l.holder) && l.from === asset).reduce((a, l) => a + l.cost, 0n) +
      o.refunds.filter((r) => fromVault(r.from) && r.asset === asset).reduce((a, r) => a + r.cost, 0n) +
      (o.costsAhead ?? []).filter((c) => fromVault(c.address) && c.asset === asset).reduce((a, c) => a + c.amount, 0n);
    const prices = input.quotePrices?.get(o.id);
    const spentWei = mine.reduce((a, g) => a + g.fee, 0n);
    out.push({
      order: o.id, chain: o.sourceChain, asset, address: o.vault.address, charged,
      chargedWei: inNative(charged, asset, prices),
      spentWei,
      spent: fromNative(spentWei, asset, prices),
      toppedUp: mine.reduce((a, g) => a + g.toppedUp, 0n),
    });
  }
  return out;
}

/** The USD prices of `asset` and of its chain's native coin, with their decimals; null without both. */
function pricePair(asset: AssetId, prices: Readonly<Record<string, bigint>> | undefined) {
  const a = assetById(asset);
  const native = ASSETS.find((x) => x.chain === a.chain && x.native);
  const pa = prices?.[asset];
  const pn = native ? prices?.[native.id] : undefined;
  if (!native || pa === undefined || pn === undefined || pa <= 0n || pn <= 0n) return null;
  return { pa, pn, da: 10n ** BigInt(a.decimals), dn: 10n ** BigInt(native.decimals) };
}

/** `amount` of `asset` in base units of its chain's native coin at the given USD prices (rounded down: the charge is
 *  never overstated); null without both prices. */
function inNative(amount: bigint, asset: AssetId, prices: Readonly<Record<string, bigint>> | undefined): bigint | null {
  if (assetById(asset).native) return amount;
  const p = pricePair(asset, prices);
  return p ? (amount * p.pa * p.dn) / (p.da * p.pn) : null;
}

/** `wei` of the chain's native coin in base units of `asset` (rounded up: the spend is never understated). */
function fromNative(wei: bigint, asset: AssetId, prices: Readonly<Record<string, bigint>> | undefined): bigint | null {
  if (assetById(asset).native) return wei;
  const p = pricePair(asset, prices);
  if (!p) return null;
  const num = wei * p.pn * p.da;
  const den = p.dn * p.pa;
  return num === 0n ? 0n : (num + den - 1n) / den;
}

// ---- reading stored contexts ----

type FieldType = 'string' | 'bigint' | 'number' | 'chain' | 'asset' | 'string|null';
const isAsset = (v: unknown): boolean => {
  if (typeof v !== 'string') return false;
  try {
    assetById(v);
    return true;
  } catch {
    return false;
  }
};
const KIND_NAMES: Record<FieldType, string> = {
  string: 'a string', bigint: 'a bigint', number: 'a number', chain: 'a chain', asset: 'a known asset id', 'string|null': 'a string or null',
};

/** Why `v` is not money records, or null when it is. Checks every field `holdings`, `moneyFlows` and the audit read,
 *  so a stored context of another shape (an older machine) is reported instead of mis-summed. */
export function moneyRecordsProblem(v: unknown): string | null {
  if (!isObject(v)) return 'the context is not an object';
  if (typeof v.id !== 'string') return 'id is not a string';
  if (!isChainName(v.sourceChain)) return 'sourceChain is not a chain';
  if (!isObject(v.route) || !isAsset(v.route.from)) return 'route.from is not a known asset id';
  if (v.vault !== null && !(isObject(v.vault) && typeof v.vault.address === 'string')) return 'vault is neither null nor {address}';
  const fields = (list: unknown, name: string, shape: Record<string, FieldType>): string | null => {
    if (!Array.isArray(list)) return `${name} is not a list`;
    for (const [i, item] of list.entries()) {
      const p = fieldsProblem(item, shape);
      if (p) return `${name}[${i}] ${p}`;
    }
    return null;
  };
  return (
    fields(v.deposits, 'deposits', { txId: 'string', amount: 'bigint' }) ??
    fields(v.legs, 'legs', { index: 'number', from: 'asset', to: 'asset', holder: 'string', amountIn: 'bigint', cost: 'bigint', amountOut: 'bigint', txId: 'string' }) ??
    (v.delivery === null ? null : fieldsProblem(v.delivery, { asset: 'asset', amountIn: 'bigint', cost: 'bigint', amountOut: 'bigint', to: 'string', txId: 'string' }, 'delivery')) ??
    fields(v.refunds, 'refunds', { chain: 'chain', asset: 'asset', from: 'string', to: 'string', amount: 'bigint', cost: 'bigint', sent: 'bigint', txId: 'string|null' })
  );
}

function fieldsProblem(v: unknown, shape: Record<string, FieldType>, name = ''): string | null {
  const where = name ? `${name} ` : '';
  if (!isObject(v)) return `${where}is not an object`.trim();
  for (const [field, type] of Object.entries(shape)) {
    const x = v[field];
    const ok =
      type === 'chain' ? isChainName(x) : type === 'asset' ? isAsset(x) : type === 'string|null' ? x === null || typeof x === 'string' : typeof x === type;
    if (!ok) return `${where}${field} is not ${KIND_NAMES[type]}`;
  }
  return null;
}

export function isMoneyRecords(v: unknown): v is MoneyRecords {
  return moneyRecordsProblem(v) === null;
}

// ---- the wire form: amounts as decimal strings (--json and the admin subject answer the same JSON) ----

type Wire<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K] };
export type AuditRowJson = Wire<AuditRow>;
export type PlacedDepositJson = Wire<PlacedDeposit>;
type WireEach<T> = T extends unknown ? Wire<T> : never;
export type AuditFindingJson = WireEach<AuditFinding>;
export type AccountRowJson = Wire<AccountRow>;
export type GasDeskRowJson = Wire<GasDeskRow>;
export interface AuditReportJson {
  orders: number;
  accounts: AccountRowJson[];
  gas: GasDeskRowJson[];
  rows: AuditRowJson[];
  foreign: PlacedDepositJson[];
  pending: PlacedDepositJson[];
  findings: AuditFindingJson[];
  unreadable: UnreadableOrder[];
  differing: number;
  clean: boolean;
}

function wire<T extends object>(v: T): Wire<T> {
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'bigint' ? x.toString() : x])) as Wire<T>;
}

export function auditJson(r: AuditReport): AuditReportJson {
  return {
    orders: r.orders,
    accounts: r.accounts.map(wire),
    gas: r.gas.map(wire),
    rows: r.rows.map(wire),
    foreign: r.foreign.map(wire),
    pending: r.pending.map(wire),
    findings: r.findings.map((f) => wire(f) as AuditFindingJson),
    unreadable: r.unreadable,
    differing: r.differing,
    clean: r.clean,
  };
}
