// The chains port: ledgers of transfers per chain with blocks and balances, and deposit watching.
// Adapters: the simulated SQLite ledger (embedded mode, tests) now, an EVM JSON-RPC adapter (anvil) later; both pass one contract suite.
import type { AssetId, ChainName } from '../assets/types.js';

/** A transfer to make. `key` makes it idempotent: one key moves funds once, ever. */
export interface TransferRequest {
  /** Idempotency key, e.g. `<order id>:<step index>`; unique across all chains of one ledger. */
  key: string;
  chain: ChainName;
  asset: AssetId;
  from: string;
  to: string;
  /** Base units, > 0. */
  amount: bigint;
}

/** A transfer made. */
export interface Transfer {
  /** `0x` + 64 hex on EVM chains and Hyperliquid; 64 hex (no prefix) on Bitcoin. */
  txId: string;
  key: string;
  chain: ChainName;
  asset: AssetId;
  /** Addresses as the request spelt them (balances and matching use the normalised form, see `accountKey`). */
  from: string;
  to: string;
  amount: bigint;
  /** Block that includes it: the next block after the height at the time of the transfer (pending until then). */
  block: number;
  /** Epoch ms of the transfer, from the ledger's clock. */
  at: number;
}

/** An incoming transfer seen at an address, with its confirmations at the time of reading. */
export interface Deposit {
  txId: string;
  chain: ChainName;
  asset: AssetId;
  /** The sender: what a null `refund_address` becomes. */
  from: string;
  to: string;
  amount: bigint;
  block: number;
  /** `height − block + 1`, never below 0 (0 = sent, not yet in a mined block). */
  confirmations: number;
  /** The chain knows the sender for one of the router's own accounts (on a real chain, the treasury whose send the
   *  books name by an internal account): such money is never paid back to its sender. Absent: not known here. */
  fromRouter?: true;
}

export interface Balance {
  chain: ChainName;
  /** Normalised account (see `accountKey`). */
  address: string;
  asset: AssetId;
  amount: bigint;
}

export interface TransferFilter {
  chain?: ChainName;
  asset?: AssetId;
  /** Either side of the transfer (compared normalised). */
  address?: string;
  key?: string;
  txId?: string;
  /** Inclusive block bounds. */
  fromBlock?: number;
  toBlock?: number;
}

export type OnDeposit = (deposit: Deposit) => void | Promise<void>;

export interface WatchOptions {
  /** Report a deposit once it has at least this many confirmations; default `requiredConfirmations(chain)`. 0 reports pending ones. */
  minConfirmations?: number;
}

export interface DepositWatch {
  stop(): void;
}

/**
 * Deposit watching. Delivery is at least once: a watch reports each qualifying deposit once while it lives, a
 * callback that throws or rejects is called again on a later poll, and a new watch (after a restart) reports every
 * qualifying deposit again, so the receiver deduplicates by `txId`.
 */
export interface DepositWatcher {
  /** Confirmations after which a deposit counts as arrived (see README table). */
  requiredConfirmations(chain: ChainName): number;
  /** Every incoming transfer to `address` on `chain` (pending ones included, confirmations 0), oldest first. */
  depositsTo(chain: ChainName, address: string, sinceBlock?: number): Promise<Deposit[]>;
  /**
   * Every transfer on `chain` in blocks `fromBlock..toBlock` (inclusive; `toBlock` defaults to the height, i.e.
   * mined blocks only). A mined block never gains a transfer, so a scanner keeping `last toBlock + 1` as a durable
   * cursor sees every transfer exactly once per pass. On a real chain a `toBlock` above the height the node answers
   * now (a node behind the one that answered the caller's height, or one replacing blocks) is refused with a
   * retriable ChainMoved rather than answered short, which would move such a cursor over blocks never read.
   */
  scan(chain: ChainName, fromBlock: number, toBlock?: number): Promise<Deposit[]>;
  /** Calls `onDeposit` for deposits to `address` with enough confirmations, existing ones included. */
  watch(chain: ChainName, address: string, onDeposit: OnDeposit, opts?: WatchOptions): DepositWatch;
  /** Checks every watch now and resolves when their callbacks have settled (the timer does this on its own). */
  poll(): Promise<void>;
  /**
   * Chains whose mined blocks can be replaced (real ones; absent or null where blocks are final, as simulated ones
   * are): whether blocks up to `upTo`, the scanner's last scanned block, were replaced since `scan` read them. A
   * scanner rewinds to `from − 1` and scans again.
   */
  checkReorg?(chain: ChainName, upTo: number): Promise<Reorg | null>;
  /**
   * The deposits `scan` reported in blocks from `fromBlock` on whose transfer is no longer on the canonical chain,
   * their booking reversed (idempotent), answered again on every call until the transaction is scanned again, so a
   * caller that fails to tell them asks again. A deposit mined again is not among them.
   */
  vanished?(chain: ChainName, fromBlock: number): Promise<Deposit[]>;
  /**
   * Chains whose mined blocks can be replaced: broadcasts again the router's own sends that a reorg took off the
   * chain after they were booked (the same signed transactions), and books each at its new block once mined again.
   * The deposit scanner calls it after each pass, since a send's block is judged by the hashes the scan remembers,
   * with the height it scanned to.
   */
  restoreReorgedSends?(chain: ChainName, height: number): Promise<void>;
}

/** Blocks replaced since they were scanned. */
export interface Reorg {
  /** First replaced block: scan again from here. */
  from: number;
  /** The block the check started from. */
  upTo: number;
  /** `upTo − from + 1`. */
  depth: number;
  /** Every remembered block changed: the fork point may be lower still. */
  beyondWindow: boolean;
}

/** One chain's ledger. */
export interface ChainLedger {
  readonly chain: ChainName;
  /** Target time between blocks, ms. */
  readonly blockMs: number;
  height(): Promise<number>;
  transfer(t: Omit<TransferRequest, 'chain'>): Promise<Transfer>;
  balanceOf(address: string, asset: AssetId): Promise<bigint>;
  transfers(filter?: Omit<TransferFilter, 'chain'>): Promise<Transfer[]>;
  confirmations(tx: { block: number }): Promise<number>;
}

/** All chains behind one facade. */
export interface Chains extends DepositWatcher {
  ledger(chain: ChainName): ChainLedger;
  height(chain: ChainName): Promise<number>;
  /**
   * Moves `amount` once per `key`: the same key (also concurrently, also after a restart) answers the first transfer
   * and moves nothing again, whatever the later request says. Refuses with `InsufficientFunds` when `from` is a
   * bounded account without the balance; a refusal moves nothing and is not remembered, so the key may be retried.
   * Durable before it resolves.
   */
  transfer(t: TransferRequest): Promise<Transfer>;
  balanceOf(chain: ChainName, address: string, asset: AssetId): Promise<bigint>;
  /** Non-zero balances, every account kind included (mint and pools are negative or positive). */
  balances(filter?: { chain?: ChainName; asset?: AssetId; address?: string }): Promise<Balance[]>;
  /** Transfers in the order they were made. */
  transfers(filter?: TransferFilter): Promise<Transfer[]>;
  confirmations(tx: { chain: ChainName; block: number }): Promise<number>;
  /**
   * What the chain's own node says `address` holds of `asset`, on a real chain (where `balanceOf` answers the
   * books); null on a simulated chain, whose books are the chain. Optional: an adapter without real chains leaves it
   * out. Read by the money audit to reconcile the books with the chain.
   */
  onChainBalance?(chain: ChainName, address: string, asset: AssetId): Promise<bigint | null>;
  /**
   * The router's own accounts on every real chain (the treasury per asset, the gas account in the native coin), each
   * read from the chain beside what the router's records say it holds. Optional like `onChainBalance`; read by the
   * money audit.
   */
  reconcileAccounts?(): Promise<AccountReconciliation[]>;
  /**
   * The gas the router paid for sends from deposit addresses on real chains, per send key, from the transactions it
   * signed (see `GasDeskSpend`). Optional like `reconcileAccounts`; the money audit sets it beside what the orders
   * were charged for their steps' gas.
   */
  gasDesk?(): Promise<GasDeskSpend[]>;
  close(): Promise<void>;
}

/**
 * One router account on a real chain at one block: `onChain` is the node's balance at `block`, `expected` what the
 * records say, `expected = float + booked − fees + inFlight`:
 * - `float`: the account's balance when the router first used the chain (its baseline, stored once);
 * - `booked` (treasury): how the books' internal accounts the treasury stands for (holdings, pools, `fees`; not
 *   `mint`) changed since then; (gas account) minus the gas top-ups it sent, which are its books;
 * - `fees`: gas (gas used × effective price) of every transaction the account signed, mined by `block` (native only);
 * - `inFlight` (treasury): sends to or from it mined by `block` but not booked yet, minus booked ones mined after it.
 */
export interface AccountReconciliation {
  chain: ChainName;
  role: 'treasury' | 'gas';
  address: string;
  asset: AssetId;
  block: number;
  onChain: bigint;
  expected: bigint;
  float: bigint;
  booked: bigint;
  fees: bigint;
  inFlight: bigint;
  /** Keys of the sends of this asset to or from the account that a reorg removed and the router does not restore
   *  (mined again and reverted, nonce taken, held): in the books, not on chain, so part of any difference. */
  unrestored?: string[];
}

/** One send from a deposit address on a real chain and the gas it cost the router. */
export interface GasDeskSpend {
  chain: ChainName;
  /** The send's key (`<order id>:<step>:cost`, `<order id>:<step>:in`, a refund's key…); its top-ups from the gas
   *  account are keyed `<key>:gas`, `<key>:gas:<n>` and counted here under the send's key. */
  key: string;
  /** Wei burnt as gas by the send's transaction and its top-ups, mined ones (reverted included). */
  fee: bigint;
  /** Wei the gas account sent the deposit address for it (mined, successful top-ups): what of it the send did not
   *  burn stays there as the gas account's dust. */
  toppedUp: bigint;
}

/** What a user's deposit looks like to the simulation: external money sent from `from` to `to`. */
export interface SimulatedDeposit {
  chain: ChainName;
  asset: AssetId;
  /** The sender, an ordinary account: the amount is minted into it first, then sent. */
  from: string;
  to: string;
  amount: bigint;
  /** Makes the deposit idempotent; default a fresh uuid. The sending transfer has this key, the mint `mint:<key>`. */
  key?: string;
}

/** The simulated adapter: the port plus the dev listener's deposit hook. */
export interface SimChains extends Chains {
  /** Mints `amount` into the sender and transfers it to `to`; answers the sending transfer (the deposit). */
  simulateDeposit(d: SimulatedDeposit): Promise<Transfer>;
}
