// The chains port over the simulated ledger plus real EVM nodes: each chain named in `rpc` moves real money through
// its node (src/chains/evm/ledger.ts), every other chain stays simulated as before.
//
// On a real chain the simulated ledger stays the router's bookkeeping: holdings (`order:<id>`), venue pools, `fees`
// and `mint` are its accounts, and all of them stand for money the router's treasury address holds on that chain
// (venues stay simulated, so a pool is only a line in the books). A transfer whose two sides are the same real address
// (e.g. `pool:x` → `order:y`, both the treasury) is bookkeeping only; any other is first sent on chain with the same
// key (exactly once per key, the EVM outbox) and then booked with that key, and it answers the real transaction hash.
// Deposits are read from the node; one to a deposit address is booked as `mint` → deposit address before the
// deposit feed hears of it, so the address's bookkeeping balance exists when the order spends it. One a reorg removes
// is booked back (deposit address → `mint`) when the feed asks for the vanished deposits, and both bookings leave the
// transfers the facade lists, so the books match the chain again. The router's own accounts beside the books are in
// router-accounts.ts, deposit addresses' gas in gas-desk.ts.
import { confirmationsAt } from './blocks.js';
import { boundLedger } from './bound-ledger.js';
import { isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import type { AssetId, ChainName } from '../assets/types.js';
import { InvalidAddress, InvalidRequest } from '../errors.js';
import type { Logger } from '../log.js';
import { COST_TABLE } from '../routing/costing.js';
import type { ActorStore } from '../store/types.js';
import { orderOfKey } from '../orders/money.js';
import { MINT_ACCOUNT, accountKey, isUnbounded } from './accounts.js';
import { InsufficientFunds, simulatedDepositOnRealChain } from './errors.js';
import { ChainMoved } from './evm/errors.js';
import { blockHashOrNull, depositPlace, type EvmDeposit } from './evm/deposit-scan.js';
import { openEvmChain, type EvmChain, type EvmChainOptions } from './evm/ledger.js';
import { lowerAddress } from './evm/rpc.js';
import type { AccountReconciliation, ChainLedger, GasDeskSpend, Deposit, Reorg, SimChains, Transfer, TransferFilter, TransferRequest } from './types.js';
import { gasDesk } from './gas-desk.js';
import { isInternalAccount, routerAccounts } from './router-accounts.js';
import { WatchHub } from './watch-hub.js';
import { arrayOf, isBoolean, isInteger, isString, isUnits, nullable, optional, shapeOf } from '../checks.js';
import { getEntry } from '../store/stored-entry.js';

/** Bookkeeping key → the real transaction it was booked for: `{ txId, block }`. */
export const REAL_TX_SPACE = 'evm-real-tx';
/** Real transaction hash → the bookkeeping keys booked for it (JSON array), so a filter by hash finds them. */
export const REAL_KEYS_SPACE = 'evm-real-keys';

/** Per chain: the deposits booked in the last blocks a reorg check can reach (JSON array of `BookedDeposit`). */
export const RECENT_DEPOSITS_SPACE = 'evm-recent-deposits';
/** Per deposit (`<chain>:<txId>:<place>`, `depositPlace`): how many times a reorg took it back (its booking keys' suffix). */
export const DEPOSIT_REVERSALS_SPACE = 'evm-deposit-reversals';
/** Booked deposits older than this many blocks below the height are out of any reorg check's reach. */
const RECENT_BLOCKS = 256;

export interface HybridChainsOptions {
  /** The bookkeeping of every chain, and the whole ledger of the simulated ones. */
  sim: SimChains;
  /** JSON-RPC URL per real chain (registry EVM chains only). */
  rpc: Partial<Record<ChainName, string>>;
  /** The EVM outbox, nonces, block hashes and the real-transaction map live here (the ActorStore's key space). */
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  /** Signs for the treasury: the real address behind every internal account. */
  treasuryKey: Hex;
  /** Signs the gas top-ups of deposit addresses. */
  gasKey: Hex;
  /** The router's deposit addresses (issued by its vaults) and their keys. */
  depositAddresses: {
    has(address: string): Promise<boolean>;
    keyOf(address: string): Promise<Hex | null>;
  };
  logger?: Logger;
  /** How often real-chain watches poll; default 1000 ms, 0 = only on `poll()`. */
  pollMs?: number;
  /** Confirmations a deposit needs per real chain before it is spent; absent = the registry's figure. */
  requiredConfirmations?: Partial<Record<ChainName, number>>;
  /** Passed to every `openEvmChain` (timeouts, polling; tests shorten them). */
  evm?: Partial<Omit<EvmChainOptions, 'chain' | 'rpcUrl' | 'store' | 'signers' | 'logger'>>;
}

export interface HybridChains extends SimChains {
  /** The real chains and their EVM adapters. */
  readonly real: ReadonlyMap<ChainName, EvmChain>;
  /** The address holding the router's money on every real chain. */
  readonly treasury: Address;
  /** The address paying deposit addresses' gas. */
  readonly gasAccount: Address;
}

interface RealTx {
  txId: string;
  block: number;
  /** The transaction left the chain in a reorg: the booking (and its reversal) are no longer listed. */
  vanished?: true;
}

/** A deposit booked from a scan, as the reorg check needs it (amount as a decimal string: JSON). */
interface BookedDeposit {
  /** `deposit:<chain>:<txId>:<place>` (`depositPlace`), the same for every time the transaction is mined. */
  base: string;
  /** The bookkeeping key of the current booking: `base`, then `base:<n>` after the n-th reversal. */
  key: string;
  /** The deposit's id as orders know it (`depositIds`); absent in records written before it was kept: the hash. */
  id?: string;
  /** The transaction hash. */
  txId: string;
  block: number;
  blockHash: string;
  transferIndex: number | null;
  /** ETH a contract moved: its place among the transaction's internal value transfers. */
  callIndex?: number;
  from: string;
  to: string;
  asset: AssetId;
  amount: string;
  /** Gone from the chain: answered by `vanished` until scanned again. */
  vanished: boolean;
}

const isRealTx = shapeOf<RealTx>({ txId: isString, block: isInteger, vanished: optional((v) => v === true) });
const isKeyList = arrayOf(isString);
const isBookedDeposits = arrayOf(
  shapeOf<BookedDeposit>({
    base: isString, key: isString, id: optional(isString), txId: isString, block: isInteger, blockHash: isString,
    transferIndex: nullable(isInteger), callIndex: optional(isInteger), from: isString, to: isString, asset: isString,
    amount: isUnits, vanished: isBoolean,
  }),
);

/**
 * The ids of deposits read from a real chain (in scan order, whole blocks: within a transaction its own value, its
 * token transfers, then the ETH its contracts moved), what orders deduplicate deposits by: the
 * transaction hash, except that a transaction's second and later transfers to the same address are
 * `<txHash>:<place>` (`depositPlace`: its place among the transaction's token transfers, or `call<n>` among the ETH its
 * contracts moved), so one transaction paying a deposit address twice (a multicall, a batch payout) makes two
 * deposits, while the usual deposit (one transfer per transaction) keeps the plain hash that explorers show.
 */
export function depositIds(deposits: readonly { txId: string; to: string; transferIndex: number | null; callIndex?: number }[]): string[] {
  const seen = new Set<string>();
  return deposits.map((d) => {
    const pair = `${d.txId}|${d.to}`;
    const again = seen.has(pair);
    seen.add(pair);
    return again ? transferId(d) : d.txId;
  });
}

/** One transfer of a transaction: `<txHash>:<place>` (`depositPlace`). */
function transferId(d: { txId: string; transferIndex: number | null; callIndex?: number }): string {
  return `${d.txId}:${depositPlace(d)}`;
}

/** The deposit as the port answers it: without where the EVM scan read it. */
function portDeposit(d: EvmDeposit): Deposit {
  const { blockHash: _hash, transferIndex: _index, callIndex: _call, ...deposit } = d;
  return deposit;
}

export function openHybridChains(opts: HybridChainsOptions): HybridChains {
  const { sim, store, depositAddresses, logger } = opts;
  const treasury = privateKeyToAddress(opts.treasuryKey).toLowerCase() as Address;
  const gasAccount = privateKeyToAddress(opts.gasKey).toLowerCase() as Address;

  const signers = async (address: string): Promise<Hex | null> => {
    const a = address.toLowerCase();
    if (a === treasury) return opts.treasuryKey;
    if (a === gasAccount) return opts.gasKey;
    return depositAddresses.keyOf(a);
  };

  const real = new Map<ChainName, EvmChain>();
  for (const [chain, rpcUrl] of Object.entries(opts.rpc) as Array<[ChainName, string | undefined]>) {
    if (!rpcUrl) continue;
    const required = opts.requiredConfirmations?.[chain];
    const priced = COST_TABLE.gasPriceWei[chain];
    real.set(chain, openEvmChain({ ...opts.evm, chain, rpcUrl, store, signers, sendFamily: orderOfKey, ...(priced !== undefined ? { pricedGasWei: priced } : {}), ...(required !== undefined ? { requiredConfirmations: required } : {}), ...(logger ? { logger } : {}) }));
  }
  // Chain names and public addresses only: an RPC URL may carry an API key.
  logger?.info({ chains: [...real.keys()], treasury, gasAccount }, 'real EVM chains; the others stay simulated');

  const evmOf = (chain: ChainName): EvmChain | undefined => real.get(chain);

  const accounts = routerAccounts({ sim, store, treasury, gasAccount, ...(logger ? { logger } : {}) });
  const desk = gasDesk({ treasury, gasAccount, ...(logger ? { logger } : {}) });

  /** Internal accounts stand for the treasury; anything else on an EVM chain must be an EVM address. */
  function onChain(address: string, field: 'from' | 'to'): Address {
    if (typeof address === 'string' && isInternalAccount(address)) return treasury;
    if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
      throw new InvalidAddress(`${field} must be an EVM address or an internal account of the router.`, field);
    }
    return lowerAddress(address);
  }

  // ------------------------------------------------------------------ real transaction map

  async function realTxOf(key: string): Promise<RealTx | null> {
    return getEntry(store, REAL_TX_SPACE, key, isRealTx);
  }

  async function keysOf(txId: string): Promise<string[]> {
    return (await getEntry(store, REAL_KEYS_SPACE, txId.toLowerCase(), isKeyList)) ?? [];
  }

  /** Written before the bookkeeping transfer, so a booked transfer on a real chain always finds its transaction. */
  async function remember(key: string, tx: RealTx): Promise<void> {
    await store.putKey(REAL_TX_SPACE, key, JSON.stringify(tx));
    const keys = await keysOf(tx.txId);
    if (!keys.includes(key)) await store.putKey(REAL_KEYS_SPACE, tx.txId.toLowerCase(), JSON.stringify([...keys, key]));
  }

  /** A bookkeeping transfer as the chain knows it: the real hash and block when it was sent or deposited for real;
   *  null for a deposit a reorg removed and its reversal (the chain has neither). */
  async function withRealTx(t: Transfer): Promise<Transfer | null> {
    if (!real.has(t.chain)) return t;
    const r = await realTxOf(t.key);
    if (r?.vanished) return null;
    return r ? { ...t, txId: r.txId, block: r.block } : t;
  }

  // ------------------------------------------------------------------ transfers

  async function transfer(req: TransferRequest): Promise<Transfer> {
    const evm = evmOf(req.chain);
    if (!evm) return sim.transfer(req);
    // A booked key answers what it booked, whatever this request says (the port's idempotency), without the node.
    if (typeof req.key === 'string' && req.key.length > 0) {
      const [booked] = await sim.transfers({ key: req.key });
      // A vanished deposit's key is never a send's: answered as booked.
      if (booked) return (await withRealTx(booked)) ?? booked;
    }
    const from = onChain(req.from, 'from');
    const to = onChain(req.to, 'to');
    if (from === to) return sim.transfer(req);
    // Signed before a crash and not booked: the send settles the stored transaction, which is booked below as this
    // request's. Its amount is taken from the transaction; accounts that differ cannot be, so they are refused, loudly,
    // rather than booked where the money did not go.
    const signed = await evm.outboxEntry(req.key);
    if (signed && (signed.from !== from || signed.to !== to)) {
      throw new InvalidRequest(`${req.chain}: key ${req.key} was signed for a send from ${signed.from} to ${signed.to}, not from ${from} to ${to}.`, 'key');
    }
    // The books must allow it before real money moves: the treasury on chain holds more than any one holding owns.
    // One order's transfers run one at a time, so this check and the booking below do not race for its accounts.
    let held: bigint | null = null;
    if (!isUnbounded(accountKey(req.chain, req.from))) {
      const balance = await sim.balanceOf(req.chain, req.from, req.asset);
      held = balance;
      if (typeof req.amount === 'bigint' && balance < req.amount) {
        throw new InsufficientFunds(`${req.from} holds ${balance} of ${req.asset} on ${req.chain}, less than the ${req.amount} to send.`, {
          chain: req.chain, asset: req.asset, address: req.from, balance: String(balance), amount: String(req.amount),
        });
      }
    }
    // Before the router's first send on the chain, what its accounts held (the reconciliation's starting point).
    await accounts.baseline(evm);
    // The router's own accounts hold ETH; a deposit address holds only what the user sent, and its native coin in the
    // books is orders' money: gas is topped up above it and the send may not reach into what stays after it.
    const fromDeposit = from !== treasury && from !== gasAccount;
    const native = evm.nativeAsset;
    const ethHeld = !fromDeposit ? 0n : req.asset === native && held !== null ? held : await sim.balanceOf(req.chain, req.from, native);
    // Signed already: the send only waits for its transaction, whose gas was settled before it was signed.
    if (!signed && fromDeposit) await desk.fund(evm, req.key, req.asset, from, to, req.amount, ethHeld);
    const keep = ethHeld - (req.asset === native ? req.amount : 0n);
    const sent = await evm.send({ key: req.key, asset: req.asset, from, to, amount: req.amount, ...(keep > 0n ? { keep } : {}) });
    await remember(req.key, { txId: sent.txId, block: sent.block });
    // Booked as sent: after a crash between the two, the outbox's transaction is the truth for this key.
    const booked = await sim.transfer({ ...req, asset: sent.asset, amount: sent.amount });
    return { ...booked, txId: sent.txId, block: sent.block };
  }

  async function transfers(filter: TransferFilter = {}): Promise<Transfer[]> {
    if (real.size === 0) return sim.transfers(filter);
    // Block bounds and hashes are those of the real chain on real chains, so both are applied after the translation.
    const { fromBlock, toBlock, txId, ...rest } = filter;
    let list: Transfer[];
    const keys = txId === undefined ? [] : await keysOf(txId);
    if (keys.length > 0) {
      const wanted = rest.key === undefined ? keys : keys.filter((k) => k === rest.key);
      list = (await Promise.all(wanted.map((key) => sim.transfers({ ...rest, key })))).flat();
    } else {
      list = await sim.transfers(txId === undefined ? rest : { ...rest, txId });
    }
    const out = await Promise.all(list.map(withRealTx));
    return out.filter(
      (t): t is Transfer =>
        t !== null &&
        (txId === undefined || t.txId.toLowerCase() === txId.toLowerCase()) &&
        (fromBlock === undefined || t.block >= fromBlock) &&
        (toBlock === undefined || t.block <= toBlock),
    );
  }

  // ------------------------------------------------------------------ deposits

  /**
   * Transfers in the blocks, from the node. A transfer from outside into a deposit address is booked (`mint` →
   * address, key `deposit:<chain>:<txId>:<place>` (`depositPlace`), then `…:<n>` once a reorg took it back n times;
   * idempotent) before it is answered, and remembered among the chain's recent deposits for the reorg check.
   * The router's own sends (from the treasury, the gas account or a deposit address) are booked by `transfer` and
   * never here. Gas top-ups are left out; the other sends are answered only when they pay into a deposit address (one
   * order delivering or refunding into another's), so that order hears them: a treasury send with the internal
   * account the books moved it from as its sender, flagged `fromRouter`.
   */
  async function scanReal(evm: EvmChain, fromBlock: number, toBlock?: number): Promise<Deposit[]> {
    const found = await evm.scan(fromBlock, toBlock);
    const ids = depositIds(found);
    const out: Deposit[] = [];
    const booked: BookedDeposit[] = [];
    for (const [i, d] of found.entries()) {
      const id = ids[i]!;
      if (d.from === gasAccount) continue;
      const deposit = portDeposit(d);
      // One lookup of the recipient per transfer; the sender's only for a transfer into a deposit address.
      const intoDeposit = await depositAddresses.has(d.to);
      if (d.from === treasury || (intoDeposit && (await depositAddresses.has(d.from)))) {
        if (!intoDeposit) continue;
        out.push(d.from === treasury ? { ...deposit, from: (await bookedSender(d)) ?? treasury, fromRouter: true, txId: id } : { ...deposit, txId: id });
        continue;
      }
      if (intoDeposit) {
        const base = `deposit:${evm.chain}:${transferId(d)}`;
        const n = Number((await store.getKey(DEPOSIT_REVERSALS_SPACE, base)) ?? '0');
        const key = n === 0 ? base : `${base}:${n}`;
        await remember(key, { txId: id, block: d.block });
        await sim.transfer({ key, chain: evm.chain, asset: d.asset, from: MINT_ACCOUNT, to: d.to, amount: d.amount });
        booked.push({
          base, key, id, txId: d.txId, block: d.block, blockHash: d.blockHash, transferIndex: d.transferIndex, callIndex: d.callIndex, from: d.from, to: d.to, asset: d.asset,
          amount: String(d.amount), vanished: false,
        });
      }
      out.push({ ...deposit, txId: id });
    }
    if (booked.length > 0) await rememberDeposits(evm, booked);
    return out;
  }

  /** The internal account the books moved a treasury send from (a payout's holding account), or null while the send
   *  is mined but not booked yet. */
  async function bookedSender(d: { txId: string; to: string; asset: AssetId }): Promise<string | null> {
    for (const key of await keysOf(d.txId)) {
      const [t] = await sim.transfers({ key });
      if (t && t.to.toLowerCase() === d.to && t.asset === d.asset) return t.from;
    }
    return null;
  }

  // ------------------------------------------------------------------ reorgs

  async function recentDeposits(chain: ChainName): Promise<BookedDeposit[]> {
    return (await getEntry(store, RECENT_DEPOSITS_SPACE, chain, isBookedDeposits)) ?? [];
  }

  /** Adds (or, mined again, replaces) deposits among the chain's recent ones, dropping those beyond any reorg check. */
  async function rememberDeposits(evm: EvmChain, deposits: BookedDeposit[]): Promise<void> {
    const bottom = (await evm.height()) - RECENT_BLOCKS;
    const fresh = new Set(deposits.map((d) => d.base));
    const kept = (await recentDeposits(evm.chain)).filter((d) => !fresh.has(d.base) && d.block > bottom);
    await store.putKey(RECENT_DEPOSITS_SPACE, evm.chain, JSON.stringify([...kept, ...deposits]));
  }

  /**
   * Books a vanished deposit back (deposit address → `mint`, key `<booking key>:vanished`, idempotent) and counts the
   * reversal, so the transaction mined again is booked anew. When the deposit address no longer holds the amount
   * in the books, the order spent or refunded it (a reorg deeper than the confirmations it waited for): nothing is
   * booked back, the order keeps it and names it for an operator, and so do these books.
   */
  async function reverseBooking(chain: ChainName, d: BookedDeposit): Promise<void> {
    const amount = BigInt(d.amount);
    const reversal = `${d.key}:vanished`;
    const [done] = await sim.transfers({ key: reversal });
    if (!done) {
      const balance = await sim.balanceOf(chain, d.to, d.asset);
      if (balance < amount) {
        logger?.error({ chain, txId: d.txId, address: d.to, amount: d.amount, balance: String(balance) }, 'a deposit spent or refunded vanished in a reorg; left booked for an operator');
        return;
      }
      // Marked before the reversal is booked, so a listing never shows the reversal without the deposit it undoes.
      await store.putKey(REAL_TX_SPACE, d.key, JSON.stringify({ txId: d.id ?? d.txId, block: d.block, vanished: true } satisfies RealTx));
      await store.putKey(REAL_TX_SPACE, reversal, JSON.stringify({ txId: d.id ?? d.txId, block: d.block, vanished: true } satisfies RealTx));
      await sim.transfer({ key: reversal, chain, asset: d.asset, from: d.to, to: MINT_ACCOUNT, amount });
    }
    const n = d.key === d.base ? 1 : Number(d.key.slice(d.base.length + 1)) + 1;
    await store.putKey(DEPOSIT_REVERSALS_SPACE, d.base, String(n));
  }

  async function vanishedReal(evm: EvmChain, fromBlock: number): Promise<Deposit[]> {
    const recent = await recentDeposits(evm.chain);
    const candidates = recent.filter((d) => d.block >= fromBlock && !d.vanished);
    const asEvm = (d: BookedDeposit): EvmDeposit => ({
      txId: d.txId, chain: evm.chain, asset: d.asset, from: d.from, to: d.to, amount: BigInt(d.amount), block: d.block, confirmations: 0,
      blockHash: d.blockHash as Hex, transferIndex: d.transferIndex, callIndex: d.callIndex,
    });
    const gone = new Set((await evm.vanished(candidates.map(asEvm))).map(transferId));
    const now = candidates.filter((d) => gone.has(transferId(d)));
    for (const d of now) {
      await reverseBooking(evm.chain, d);
      d.vanished = true;
    }
    if (now.length > 0) {
      await store.putKey(RECENT_DEPOSITS_SPACE, evm.chain, JSON.stringify(recent));
      logger?.warn({ chain: evm.chain, fromBlock, vanished: now.map((d) => d.txId) }, 'deposits removed by a reorg; booked back');
    }
    return recent
      .filter((d) => d.block >= fromBlock && d.vanished)
      .map((d) => {
        return { ...portDeposit(asEvm(d)), txId: d.id ?? d.txId };
      });
  }

  /** Per real chain, the transfers of blocks 0..upTo read so far and the hash of block upTo. A block's hash commits
   *  to every block before it, so while block upTo is still canonical nothing read is stale and only the blocks since
   *  are read; when it is not (a reorg), everything is read again. A watch asks on every new block, and a dev node
   *  grows by hundreds of blocks per simulated bitcoin block: reading the whole chain each time grew without end. */
  const transfersRead = new Map<ChainName, { upTo: number; upToHash: string; found: EvmDeposit[] }>();
  /** Reads of the transfers in a row a moving chain may take before the caller hears ChainMoved and asks later. */
  const MAX_READS = 3;

  async function transfersOn(evm: EvmChain, attempt = 1): Promise<{ tip: number; found: EvmDeposit[] }> {
    const tip = await evm.height();
    let read = transfersRead.get(evm.chain);
    // A node answering below the blocks read already is behind its peers (or replacing blocks): it proves no reorg,
    // and reading the whole chain again on its word would be for nothing.
    if (read && tip < read.upTo) {
      throw new ChainMoved(`${evm.chain}: the node answers height ${tip}, below block ${read.upTo} read before (a node behind, or one replacing blocks); read again.`);
    }
    const tipHash = await blockHashOrNull(evm.client, tip);
    // No new block: block upTo is the tip, whose hash was just read.
    const upToHash = read ? (read.upTo === tip ? tipHash : await blockHashOrNull(evm.client, read.upTo)) : null;
    if (read && upToHash !== read.upToHash) read = undefined;
    if (read && read.upTo === tip) return { tip, found: read.found };
    const more = await evm.scan(read ? read.upTo + 1 : 0, tip);
    // Block `tip` the same before and after the scan: the blocks read are its ancestors, and so is block upTo, checked
    // in between. Otherwise the chain was replaced under the reads: read again.
    if (tipHash === null || (await blockHashOrNull(evm.client, tip)) !== tipHash) {
      if (attempt >= MAX_READS) throw new ChainMoved(`${evm.chain}: the chain moved under ${MAX_READS} reads in a row; read again.`);
      return transfersOn(evm, attempt + 1);
    }
    const found = [...(read?.found ?? []), ...more];
    transfersRead.set(evm.chain, { upTo: tip, upToHash: tipHash, found });
    return { tip, found };
  }

  /** Every transfer into `address` from block `sinceBlock` (default 0), read from the node (the blocks since the last
   *  call only). It books nothing. The gas account's top-ups are left out: they are no transfer of the port (nothing
   *  books them), so a watch on a deposit address must not report the router's own gas as a deposit. */
  async function depositsToReal(evm: EvmChain, address: string, sinceBlock = 0): Promise<Deposit[]> {
    const a = address.toLowerCase();
    const { tip, found } = await transfersOn(evm);
    const mine = found.filter((d) => d.block >= sinceBlock && d.to === a && d.from !== gasAccount);
    const ids = depositIds(mine);
    return mine.map((d, i) => ({ ...portDeposit(d), confirmations: confirmationsAt(tip, d.block), txId: ids[i]! }));
  }

  const realHub = new WatchHub(
    {
      depositsTo: (chain, address) => depositsToReal(real.get(chain)!, address),
      mark: async (chain) => String(await real.get(chain)!.height()),
    },
    opts.pollMs ?? 1000,
  );

  const ledgers = new Map<ChainName, ChainLedger>();

  const chains: HybridChains = {
    real,
    treasury,
    gasAccount,
    ledger(chain) {
      if (!real.has(chain)) return sim.ledger(chain);
      let l = ledgers.get(chain);
      if (!l) {
        // The nominal interval of the chain (the node's own blocks decide heights).
        l = boundLedger(chains, chain, sim.ledger(chain).blockMs);
        ledgers.set(chain, l);
      }
      return l;
    },
    async height(chain) {
      const evm = evmOf(chain);
      return evm ? evm.height() : sim.height(chain);
    },
    transfer,
    async simulateDeposit(d) {
      if (real.has(d.chain)) {
        throw simulatedDepositOnRealChain(d.chain);
      }
      return sim.simulateDeposit(d);
    },
    // Balances are the books: on a real chain the treasury's on-chain balance is the sum of its internal accounts.
    balanceOf: (chain, address, asset) => sim.balanceOf(chain, address, asset),
    balances: (filter) => sim.balances(filter),
    // The node's answer, beside the books: only the audit reads it (a real chain), null on a simulated one.
    async onChainBalance(chain, address, asset) {
      const evm = evmOf(chain);
      return evm ? evm.balanceOf(address, asset) : null;
    },
    async reconcileAccounts() {
      const out: AccountReconciliation[] = [];
      for (const evm of real.values()) out.push(...(await accounts.reconcile(evm)));
      return out;
    },
    async gasDesk() {
      const out: GasDeskSpend[] = [];
      for (const evm of real.values()) out.push(...(await desk.spend(evm)));
      return out;
    },
    transfers,
    async confirmations(tx) {
      const evm = evmOf(tx.chain);
      return evm ? evm.confirmations({ block: tx.block }) : sim.confirmations(tx);
    },
    requiredConfirmations(chain) {
      return evmOf(chain)?.requiredConfirmations ?? sim.requiredConfirmations(chain);
    },
    async depositsTo(chain, address, sinceBlock) {
      const evm = evmOf(chain);
      return evm ? depositsToReal(evm, address, sinceBlock) : sim.depositsTo(chain, address, sinceBlock);
    },
    async scan(chain, fromBlock, toBlock) {
      const evm = evmOf(chain);
      return evm ? scanReal(evm, fromBlock, toBlock) : sim.scan(chain, fromBlock, toBlock);
    },
    async checkReorg(chain, upTo): Promise<Reorg | null> {
      const evm = evmOf(chain);
      return evm ? evm.checkReorg(upTo) : null;
    },
    async vanished(chain, fromBlock) {
      const evm = evmOf(chain);
      return evm ? vanishedReal(evm, fromBlock) : [];
    },
    async restoreReorgedSends(chain, height) {
      const evm = evmOf(chain);
      if (!evm) return;
      for (const again of await evm.watchSends(height)) {
        // Gas top-ups are not in the books; a booked send is listed at the block it is mined in now.
        const booked = await realTxOf(again.key);
        if (booked && !booked.vanished) await remember(again.key, { txId: again.txId, block: again.block });
      }
    },
    watch(chain, address, onDeposit, watchOpts) {
      const evm = evmOf(chain);
      if (!evm) return sim.watch(chain, address, onDeposit, watchOpts);
      return realHub.watch(chain, accountKey(chain, address), onDeposit, watchOpts?.minConfirmations ?? evm.requiredConfirmations);
    },
    async poll() {
      await Promise.all([sim.poll(), realHub.poll()]);
    },
    async close() {
      realHub.close();
      await sim.close();
    },
  };
  return chains;
}

