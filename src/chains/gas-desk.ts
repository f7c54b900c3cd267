// The gas desk of deposit addresses on a real chain: before a send from a deposit address holding a token, the gas
// account tops it up with exactly what the send can cost (its gas limit × fee cap), keyed so a retried send never tops
// up twice; and, per send, what its gas cost (its own fee and its top-ups'), which the money audit sets beside what
// each order was charged (src/chains/README.md, gas desk).
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { assetById } from '../assets/registry.js';
import type { AssetId } from '../assets/types.js';
import { InvalidRequest, RouterError, Unavailable } from '../errors.js';
import type { Logger } from '../log.js';
import { InsufficientFunds } from './errors.js';
import type { EvmChain } from './evm/ledger.js';
import { rpcError, rpcReason } from './evm/rpc.js';
import type { GasDeskSpend } from './types.js';

/** Top-ups of one send's gas before it gives up (each follows a fee rise between a top-up and the signing). */
const MAX_GAS_TOPUPS = 5;

/** A gas top-up's key: the key of the send it funds, then `:gas` or `:gas:<n>`. */
const TOP_UP_KEY = /^(.+):gas(?::\d+)?$/;

export interface GasDeskDeps {
  treasury: Address;
  gasAccount: Address;
  logger?: Logger;
}

export interface GasDesk {
  /** Per send from a deposit address on the chain, the gas it cost. */
  spend(evm: EvmChain): Promise<GasDeskSpend[]>;
  /** Tops `from` up with the ETH its send of `amount` to `to` needs, once per shortfall (keys `<key>:gas`…); `ethHeld`
   *  is what the books hold of the native coin at `from` (orders' money, which gas is never paid out of). */
  fund(evm: EvmChain, key: string, asset: AssetId, from: Address, to: Address, amount: bigint, ethHeld: bigint): Promise<void>;
}

export function gasDesk(deps: GasDeskDeps): GasDesk {
  const { treasury, gasAccount, logger } = deps;

  /**
   * Per send from a deposit address, the gas it cost: its own transaction's fee and its top-ups' (from the signed
   * list, so after a restart too). A deposit address's nonce filler belongs to no send and is left out.
   */
  async function gasDeskOf(evm: EvmChain): Promise<GasDeskSpend[]> {
    const bySend = new Map<string, GasDeskSpend>();
    const add = (key: string, fee: bigint, toppedUp: bigint) => {
      const prior = bySend.get(key) ?? { chain: evm.chain, key, fee: 0n, toppedUp: 0n };
      bySend.set(key, { ...prior, fee: prior.fee + fee, toppedUp: prior.toppedUp + toppedUp });
    };
    for (const { entry, mined } of await evm.signed()) {
      if (entry.from === treasury || entry.key.startsWith('nonce-filler:')) continue;
      const fee = mined?.fee ?? 0n;
      if (entry.from === gasAccount) {
        const topUp = TOP_UP_KEY.exec(entry.key);
        if (!topUp) continue;
        add(topUp[1]!, fee, mined?.success ? BigInt(entry.amount) : 0n);
      } else {
        add(entry.key, fee, 0n);
      }
    }
    return [...bySend.values()];
  }

  /**
   * Gives a deposit address the ETH its send needs (its gas limit, the estimate + 20 % the send's own preflight
   * signs with, × the fee cap it will offer) from the gas account, keyed `<key>:gas` (then `<key>:gas:2`… should
   * fees rise between a top-up and the signing), so a retried send never tops up twice for one shortfall.
   *
   * Accounting: this ETH is the router's execution cost. The order already paid for it in the bookkeeping: every step
   * moves its `cost` to `fees` (the quote's execution cost), which on a real chain is money in the treasury; the
   * gas account's spend is the matching expense, outside the bookkeeping ledger (it is not an order's asset), and
   * the dust a send leaves unspent stays on the deposit address as the gas account's money. `gasDesk()` answers the
   * spend per send, which the money audit sets beside what each order was charged.
   */
  async function fundGas(evm: EvmChain, key: string, asset: AssetId, from: Address, to: Address, amount: bigint, ethHeld: bigint): Promise<void> {
    const native = evm.nativeAsset;
    // Of the address's ETH, what the books hold there is orders' money: gas is paid above it, never out of it, or a
    // later send from the address (the step's input after its cost, a refund) would find less than it moves.
    const kept = assetById(asset).native && amount > ethHeld ? amount : ethHeld;
    for (let n = 1; n <= MAX_GAS_TOPUPS; n++) {
      const topUpKey = n === 1 ? `${key}:gas` : `${key}:gas:${n}`;
      const stored = await evm.outboxEntry(topUpKey);
      if (stored) {
        // An earlier attempt's top-up: wait for it (it may still be pending) before judging the balance again.
        await evm.send({ key: topUpKey, asset: native, from: gasAccount, to: from, amount: BigInt(stored.amount) });
        continue;
      }
      const { need, have } = await gasNeed(evm, asset, from, to, amount, kept);
      if (have >= need) return;
      // The top-up pays gas only: native money the books hold at the address and the chain does not (a deposit a
      // reorg has taken and the feed has not told yet) would otherwise be paid by the gas account.
      if (have < kept) {
        throw new InsufficientFunds(`${evm.chain}: ${from} holds ${have} on chain, less than the ${kept} its books hold; its deposit may have left the chain.`, {
          chain: evm.chain, asset, address: from, balance: String(have), amount: String(kept),
        });
      }
      await evm.send({ key: topUpKey, asset: native, from: gasAccount, to: from, amount: need - have });
      logger?.debug({ chain: evm.chain, key: topUpKey, address: from, amount: String(need - have) }, 'deposit address topped up with gas');
      return;
    }
    const { need, have } = await gasNeed(evm, asset, from, to, amount, kept);
    if (have < need) throw new Unavailable(`${evm.chain}: ${from} still lacks gas for ${key} after ${MAX_GAS_TOPUPS} top-ups; retry later.`);
  }

  /** What the address must hold for the send: its gas limit × fee cap (and an OP Stack chain's L1 data fee), above the
   *  native money `kept` for its order. */
  async function gasNeed(evm: EvmChain, asset: AssetId, from: Address, to: Address, amount: bigint, kept: bigint): Promise<{ need: bigint; have: bigint }> {
    const a = assetById(asset);
    const call: { to: Address; value: bigint; data?: Hex } = a.native
      ? { to, value: amount }
      : { to: a.address as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) };
    try {
      let gas = await evm.client.estimateGas({ account: from, ...call });
      // The send's preflight adds 20 % to contract calls; the top-up must cover what it will ask for.
      if (gas !== 21_000n) gas = (gas * 6n) / 5n;
      // The fees the send will offer: the top-up is its gas limit × fee cap, the most it can cost, plus an OP Stack
      // chain's L1 data fee with a quarter more, since it follows the L1's fees between the top-up and the signing.
      const fees = await evm.fees();
      const l1 = await evm.l1Fee({ ...call, gas });
      const have = await evm.client.getBalance({ address: from });
      return { need: gas * fees.maxFeePerGas + (l1 * 5n) / 4n + kept, have };
    } catch (err) {
      if (err instanceof RouterError) throw err;
      if (!rpcError(err)) throw new Unavailable(`${evm.chain}: RPC unreachable: ${rpcReason(err)}`);
      throw new InvalidRequest(`${evm.chain}: the node refuses to estimate the send from ${from}: ${rpcReason(err)}`);
    }
  }

  return { spend: gasDeskOf, fund: fundGas };
}
