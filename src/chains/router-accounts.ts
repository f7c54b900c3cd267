// The router's own accounts on a real chain beside the books: the treasury (which every internal account of the books
// stands for: holdings, venue pools, `fees`) per asset and the gas account in its native coin. A baseline of what they
// held is stored before the router's first send on the chain; the reconciliation then reads
// `on chain = float + booked − fees + in flight` (src/chains/README.md has the rule), which the money audit reports.
import { erc20Abi, type Address } from 'viem';
import { assetById, assetsOn } from '../assets/registry.js';
import type { AssetId, ChainName } from '../assets/types.js';
import type { Logger } from '../log.js';
import { FEES_ACCOUNT, holdingAccount } from '../orders/money.js';
import type { ActorStore } from '../store/types.js';
import { MINT_ACCOUNT, isUnbounded } from './accounts.js';
import type { EvmChain } from './evm/ledger.js';
import type { AccountReconciliation, SimChains } from './types.js';
import { isInteger, isUnits, mapOf, shapeOf } from '../checks.js';
import { getEntry } from '../store/stored-entry.js';

/** Per real chain: the router accounts' balances and the books' internal sums when the router first used the chain
 *  (`Baseline`, JSON), the starting point of the accounts' reconciliation. */
export const BASELINE_SPACE = 'evm-account-baseline';

/** What the router's accounts held on a real chain before its first send, and what the books' internal accounts
 *  (not `mint`) summed to then; amounts as decimal strings (JSON). */
interface Baseline {
  block: number;
  treasury: Record<string, string>;
  gas: string;
  books: Record<string, string>;
}

// The books' sums may be negative (an internal account paid out more than it took in): digits with an optional sign.
const isSigned = (v: unknown): boolean => typeof v === 'string' && /^-?[0-9]+$/.test(v);
const isBaseline = shapeOf<Baseline>({ block: isInteger, treasury: mapOf(isUnits), gas: isUnits, books: mapOf(isSigned) });

const HOLDING_PREFIX = holdingAccount('');

/** Internal accounts are bookkeeping names (holdings, pools, `fees`, `mint`); on a real chain the treasury holds them. */
export function isInternalAccount(address: string): boolean {
  return isUnbounded(address) || address === FEES_ACCOUNT || (address.startsWith(HOLDING_PREFIX) && address.length > HOLDING_PREFIX.length);
}

export interface RouterAccountsDeps {
  /** The books. */
  sim: Pick<SimChains, 'balances' | 'transfers'>;
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  treasury: Address;
  gasAccount: Address;
  logger?: Logger;
}

export interface RouterAccounts {
  /** Stored before the router's first send on the chain, read back after. */
  baseline(evm: EvmChain): Promise<Baseline>;
  /** The chain's treasury per asset and its gas account beside the records; none before the first send. */
  reconcile(evm: EvmChain): Promise<AccountReconciliation[]>;
}

export function routerAccounts(deps: RouterAccountsDeps): RouterAccounts {
  const { sim, store, treasury, gasAccount, logger } = deps;

  /** The assets the treasury is reconciled in: the chain's native coin and its registry tokens. */
  const assetsOf = (evm: EvmChain): AssetId[] => assetsOn(evm.chain).filter((a) => a.native || a.address !== null).map((a) => a.id);

  async function balanceAt(evm: EvmChain, address: Address, asset: AssetId, block: number): Promise<bigint> {
    const a = assetById(asset);
    const blockNumber = BigInt(block);
    if (a.native) return evm.client.getBalance({ address, blockNumber });
    return evm.client.readContract({ address: a.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address], blockNumber });
  }

  /** The books' internal accounts that the treasury stands for (holdings, pools, fees; `mint` is money from outside),
   *  summed per asset. */
  async function internalSums(chain: ChainName): Promise<Map<AssetId, bigint>> {
    const sums = new Map<AssetId, bigint>();
    for (const b of await sim.balances({ chain })) {
      if (b.address === MINT_ACCOUNT || !isInternalAccount(b.address)) continue;
      sums.set(b.asset, (sums.get(b.asset) ?? 0n) + b.amount);
    }
    return sums;
  }

  const baselines = new Map<ChainName, Promise<Baseline>>();

  /**
   * The chain's baseline, read and stored before the router's first send on it (so nothing the router did is in it),
   * then read back from the store on every later call and after restarts.
   */
  function baseline(evm: EvmChain): Promise<Baseline> {
    let p = baselines.get(evm.chain);
    if (!p) {
      p = (async () => {
        const stored = await getEntry(store, BASELINE_SPACE, evm.chain, isBaseline);
        if (stored) return stored;
        const block = await evm.height();
        const treasuryHeld: Record<string, string> = {};
        for (const asset of assetsOf(evm)) treasuryHeld[asset] = String(await balanceAt(evm, treasury, asset, block));
        const gas = String(await evm.client.getBalance({ address: gasAccount, blockNumber: BigInt(block) }));
        const books = Object.fromEntries([...(await internalSums(evm.chain))].map(([a, v]) => [a, String(v)]));
        const b: Baseline = { block, treasury: treasuryHeld, gas, books };
        await store.putKey(BASELINE_SPACE, evm.chain, JSON.stringify(b));
        logger?.info({ chain: evm.chain, block, treasury: treasuryHeld, gas }, 'router accounts baseline stored');
        return b;
      })();
      // A node that did not answer is asked again next time.
      p.catch(() => baselines.delete(evm.chain));
      baselines.set(evm.chain, p);
    }
    return p;
  }

  /**
   * The treasury per asset and the gas account (native coin) of one real chain at its current height, beside what
   * the records say (see `AccountReconciliation`); none before the router's first send on the chain. Read while the router runs, it can catch a send between its
   * receipt and its booking or reads taken around a new block: the audit reads again before it reports.
   */
  async function reconcileChain(evm: EvmChain): Promise<AccountReconciliation[]> {
    // Read, never written here: the audit only reads. No baseline yet means the router never sent on this chain, so
    // its accounts hold only what they held before it: nothing to reconcile.
    const base = await getEntry(store, BASELINE_SPACE, evm.chain, isBaseline);
    if (!base) return [];
    const block = await evm.height();
    const signed = await evm.signed();
    const sums = await internalSums(evm.chain);
    const native = evm.nativeAsset;
    const minedBy = (m: { block: number } | null): boolean => m !== null && m.block <= block;
    const out: AccountReconciliation[] = [];

    // The treasury's sends in flight: those mined (successfully) by `block` but not booked, and those booked but
    // mined after it, each counted by what it does to the treasury.
    // A send a reorg removed and the router does not restore is no move in flight: the books have it, the chain
    // never will, and the difference stands for an operator.
    const unrestored = new Set((await evm.unrestoredSends()).map((u) => u.key));
    const unrestoredOf = new Map<AssetId, string[]>();
    const inFlight = new Map<AssetId, bigint>();
    let treasuryFees = 0n;
    for (const { entry, mined } of signed) {
      if (entry.from === treasury && minedBy(mined)) treasuryFees += mined!.fee;
      const sign = (entry.to === treasury ? 1n : 0n) - (entry.from === treasury ? 1n : 0n);
      if (sign === 0n || entry.key.startsWith('nonce-filler:')) continue;
      if (unrestored.has(entry.key)) {
        unrestoredOf.set(entry.asset, [...(unrestoredOf.get(entry.asset) ?? []), entry.key]);
        continue;
      }
      const onChainNow = minedBy(mined) && mined!.success;
      const [booking] = await sim.transfers({ key: entry.key });
      const inBooks = booking !== undefined;
      if (onChainNow === inBooks) continue;
      const amount = BigInt(entry.amount) * sign * (onChainNow ? 1n : -1n);
      inFlight.set(entry.asset, (inFlight.get(entry.asset) ?? 0n) + amount);
    }
    for (const asset of assetsOf(evm)) {
      const float = BigInt(base.treasury[asset] ?? '0');
      const booked = (sums.get(asset) ?? 0n) - BigInt(base.books[asset] ?? '0');
      const fees = asset === native ? treasuryFees : 0n;
      const flying = inFlight.get(asset) ?? 0n;
      out.push({
        chain: evm.chain, role: 'treasury', address: treasury, asset, block,
        onChain: await balanceAt(evm, treasury, asset, block), expected: float + booked - fees + flying, float, booked, fees, inFlight: flying,
        ...(unrestoredOf.has(asset) ? { unrestored: unrestoredOf.get(asset)! } : {}),
      });
    }

    // The gas account's books are its own sends: the top-ups it paid and the gas of every transaction it signed.
    let toppedUp = 0n;
    let gasFees = 0n;
    for (const { entry, mined } of signed) {
      if (entry.from !== gasAccount || !minedBy(mined)) continue;
      gasFees += mined!.fee;
      if (mined!.success) toppedUp += BigInt(entry.amount);
    }
    const gasFloat = BigInt(base.gas);
    out.push({
      chain: evm.chain, role: 'gas', address: gasAccount, asset: native, block,
      onChain: await balanceAt(evm, gasAccount, native, block), expected: gasFloat - toppedUp - gasFees, float: gasFloat, booked: -toppedUp, fees: gasFees, inFlight: 0n,
    });
    return out;
  }

  return { baseline, reconcile: reconcileChain };
}
