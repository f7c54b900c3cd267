// Deposits on real chains booked in the router's books: a transfer from outside into a deposit address, read from the
// node's blocks, is booked (`mint` → address) before the deposit feed hears of it, so the address's bookkeeping
// balance exists when the order spends it; one a reorg removes is booked back (address → `mint`) when the feed asks
// for the vanished deposits, so the books match the chain again.
import type { Hex } from 'viem';
import type { AssetId, ChainName } from '../assets/types.js';
import { arrayOf, isBoolean, isInteger, isString, isUnits, nullable, optional, shapeOf } from '../checks.js';
import type { Logger } from '../log.js';
import { getEntry } from '../store/stored-entry.js';
import type { ActorStore } from '../store/types.js';
import { MINT_ACCOUNT } from './accounts.js';
import { depositPlace, type EvmDeposit } from './evm/deposit-scan.js';
import type { EvmChain } from './evm/ledger.js';
import type { RealTxMap } from './real-tx.js';
import type { Deposit, SimChains } from './types.js';

/** Per chain: the deposits booked in the last blocks a reorg check can reach (JSON array of `BookedDeposit`). */
export const RECENT_DEPOSITS_SPACE = 'evm-recent-deposits';
/** Per deposit (`<chain>:<txId>:<place>`, `depositPlace`): how many times a reorg took it back (its booking keys' suffix). */
export const DEPOSIT_REVERSALS_SPACE = 'evm-deposit-reversals';
/** Booked deposits older than this many blocks below the height are out of any reorg check's reach. */
const RECENT_BLOCKS = 256;

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
export function portDeposit(d: EvmDeposit): Deposit {
  const { blockHash: _hash, transferIndex: _index, callIndex: _call, ...deposit } = d;
  return deposit;
}

export interface RealDepositsOptions {
  sim: SimChains;
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  txs: RealTxMap;
  depositAddresses: { has(address: string): Promise<boolean> };
  treasury: string;
  gasAccount: string;
  logger?: Logger;
}

export class RealDeposits {
  constructor(private readonly opts: RealDepositsOptions) {}

  /**
   * Transfers in the blocks, from the node. A transfer from outside into a deposit address is booked (`mint` →
   * address, key `deposit:<chain>:<txId>:<place>` (`depositPlace`), then `…:<n>` once a reorg took it back n times;
   * idempotent) before it is answered, and remembered among the chain's recent deposits for the reorg check.
   * The router's own sends (from the treasury, the gas account or a deposit address) are booked by `transfer` and
   * never here. Gas top-ups are left out; the other sends are answered only when they pay into a deposit address (one
   * order delivering or refunding into another's), so that order hears them: a treasury send with the internal
   * account the books moved it from as its sender, flagged `fromRouter`.
   */
  async scan(evm: EvmChain, fromBlock: number, toBlock?: number): Promise<Deposit[]> {
    const { sim, store, txs, depositAddresses, treasury, gasAccount } = this.opts;
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
        out.push(d.from === treasury ? { ...deposit, from: (await this.bookedSender(d)) ?? treasury, fromRouter: true, txId: id } : { ...deposit, txId: id });
        continue;
      }
      if (intoDeposit) {
        const base = `deposit:${evm.chain}:${transferId(d)}`;
        const n = Number((await store.getKey(DEPOSIT_REVERSALS_SPACE, base)) ?? '0');
        const key = n === 0 ? base : `${base}:${n}`;
        await txs.remember(key, { txId: id, block: d.block });
        await sim.transfer({ key, chain: evm.chain, asset: d.asset, from: MINT_ACCOUNT, to: d.to, amount: d.amount });
        booked.push({
          base, key, id, txId: d.txId, block: d.block, blockHash: d.blockHash, transferIndex: d.transferIndex, callIndex: d.callIndex, from: d.from, to: d.to, asset: d.asset,
          amount: String(d.amount), vanished: false,
        });
      }
      out.push({ ...deposit, txId: id });
    }
    if (booked.length > 0) await this.rememberDeposits(evm, booked);
    return out;
  }

  /** Deposits booked from `fromBlock` on that a reorg removed: each booked back once, then answered until scanned
   *  again. */
  async vanished(evm: EvmChain, fromBlock: number): Promise<Deposit[]> {
    const recent = await this.recentDeposits(evm.chain);
    const candidates = recent.filter((d) => d.block >= fromBlock && !d.vanished);
    const asEvm = (d: BookedDeposit): EvmDeposit => ({
      txId: d.txId, chain: evm.chain, asset: d.asset, from: d.from, to: d.to, amount: BigInt(d.amount), block: d.block, confirmations: 0,
      blockHash: d.blockHash as Hex, transferIndex: d.transferIndex, callIndex: d.callIndex,
    });
    const gone = new Set((await evm.vanished(candidates.map(asEvm))).map(transferId));
    const now = candidates.filter((d) => gone.has(transferId(d)));
    for (const d of now) {
      await this.reverseBooking(evm.chain, d);
      d.vanished = true;
    }
    if (now.length > 0) {
      await this.opts.store.putKey(RECENT_DEPOSITS_SPACE, evm.chain, JSON.stringify(recent));
      this.opts.logger?.warn({ chain: evm.chain, fromBlock, vanished: now.map((d) => d.txId) }, 'deposits removed by a reorg; booked back');
    }
    return recent
      .filter((d) => d.block >= fromBlock && d.vanished)
      .map((d) => {
        return { ...portDeposit(asEvm(d)), txId: d.id ?? d.txId };
      });
  }

  /** The internal account the books moved a treasury send from (a payout's holding account), or null while the send
   *  is mined but not booked yet. */
  private async bookedSender(d: { txId: string; to: string; asset: AssetId }): Promise<string | null> {
    for (const key of await this.opts.txs.keysOf(d.txId)) {
      const [t] = await this.opts.sim.transfers({ key });
      if (t && t.to.toLowerCase() === d.to && t.asset === d.asset) return t.from;
    }
    return null;
  }

  private async recentDeposits(chain: ChainName): Promise<BookedDeposit[]> {
    return (await getEntry(this.opts.store, RECENT_DEPOSITS_SPACE, chain, isBookedDeposits)) ?? [];
  }

  /** Adds (or, mined again, replaces) deposits among the chain's recent ones, dropping those beyond any reorg check. */
  private async rememberDeposits(evm: EvmChain, deposits: BookedDeposit[]): Promise<void> {
    const bottom = (await evm.height()) - RECENT_BLOCKS;
    const fresh = new Set(deposits.map((d) => d.base));
    const kept = (await this.recentDeposits(evm.chain)).filter((d) => !fresh.has(d.base) && d.block > bottom);
    await this.opts.store.putKey(RECENT_DEPOSITS_SPACE, evm.chain, JSON.stringify([...kept, ...deposits]));
  }

  /**
   * Books a vanished deposit back (deposit address → `mint`, key `<booking key>:vanished`, idempotent) and counts the
   * reversal, so the transaction mined again is booked anew. When the deposit address no longer holds the amount
   * in the books, the order spent or refunded it (a reorg deeper than the confirmations it waited for): nothing is
   * booked back, the order keeps it and names it for an operator, and so do these books.
   */
  private async reverseBooking(chain: ChainName, d: BookedDeposit): Promise<void> {
    const { sim, store, txs, logger } = this.opts;
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
      await txs.markVanished(d.key, { txId: d.id ?? d.txId, block: d.block });
      await txs.markVanished(reversal, { txId: d.id ?? d.txId, block: d.block });
      await sim.transfer({ key: reversal, chain, asset: d.asset, from: d.to, to: MINT_ACCOUNT, amount });
    }
    const n = d.key === d.base ? 1 : Number(d.key.slice(d.base.length + 1)) + 1;
    await store.putKey(DEPOSIT_REVERSALS_SPACE, d.base, String(n));
  }
}
