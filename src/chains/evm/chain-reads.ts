// What a send needs to know of one EVM chain before it signs: the call a transfer makes, balances, the fees to offer
// (held to what the quotes charge per gas), an OP Stack chain's L1 fee, and the preflight that refuses a send its
// sender cannot pay. Reads only: nothing here signs or stores.
import { encodeFunctionData, erc20Abi, isAddress, type Address, type Hex, type PublicClient } from 'viem';
import { CHAINS } from '../../assets/chains.js';
import { assetById } from '../../assets/registry.js';
import type { AssetId, ChainName } from '../../assets/types.js';
import { InvalidAddress, InvalidRequest, UnknownAsset, Unavailable } from '../../errors.js';
import type { Logger } from '../../log.js';
import { InsufficientFunds } from '../errors.js';
import { opStackL1Fee } from './l1-fee.js';
import { lowerAddress, rpcError, rpcReason } from './rpc.js';

/** A send to preflight: `keep` is native coin at `from` the send must leave in place (see EvmSendRequest). */
export interface SendToCheck {
  asset: AssetId;
  from: string;
  to: string;
  amount: bigint;
  keep?: bigint;
}

export interface ChainReadsOptions {
  client: PublicClient;
  chain: ChainName;
  chainId: number;
  /** The price per gas the quotes charge on this chain; absent: the node's suggestion (see `feesPerGas`). */
  pricedGasWei?: bigint;
  logger?: Logger;
}

export interface ChainReads {
  /** What the transaction does: a value transfer, or a token `transfer(to, amount)` call. */
  call(asset: AssetId, to: Address, amount: bigint): { to: Address; value: bigint; data?: Hex };
  balanceOf(address: string, asset: AssetId): Promise<bigint>;
  l1Fee(tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint>;
  feesPerGas(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  /** The gas the send gets, once its sender can pay it at `fees`. @throws InsufficientFunds, InvalidRequest, Unavailable */
  preflight(req: SendToCheck, fees: { maxFeePerGas: bigint }): Promise<bigint>;
}

export function chainReads(opts: ChainReadsOptions): ChainReads {
  const { client, chain, chainId, pricedGasWei, logger } = opts;

  /** What the transaction does: a value transfer, or a token `transfer(to, amount)` call. */
  function call(asset: AssetId, to: Address, amount: bigint): { to: Address; value: bigint; data?: Hex } {
    const a = assetById(asset);
    if (a.native) return { to, value: amount };
    return { to: a.address as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) };
  }

  async function balanceOf(address: string, asset: AssetId): Promise<bigint> {
    const a = assetById(asset);
    if (a.chain !== chain) throw new UnknownAsset(`Asset ${asset} is not on chain ${chain}.`, 'asset');
    if (!isAddress(address, { strict: false })) throw new InvalidAddress('address must be an EVM address.', 'address');
    if (a.native) return client.getBalance({ address: lowerAddress(address) });
    return client.readContract({ address: a.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [lowerAddress(address)] });
  }

  function l1Fee(tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint> {
    return CHAINS[chain].opStack ? opStackL1Fee(client, chainId, tx) : Promise.resolve(0n);
  }

  /**
   * The fees a new transaction offers. With a priced gas price (what the quotes charge per gas) and a base fee at or
   * below it: a fee cap of exactly the priced price and a priority fee of at most what is left of it above the base
   * fee, so what any send pays per gas (min(cap, base fee + priority)) never exceeds what the order was charged for
   * it. With the base fee above the priced price, waiting would hold the user's money for as long as fees stay high,
   * so the send pays the node's current fees (its suggestion) and the real cost shows on the order's gas row in the
   * money audit, which names an order charged less than it cost. Without a priced price: the node's suggestion.
   */
  async function feesPerGas(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const suggested = await client.estimateFeesPerGas();
    const priced = pricedGasWei;
    if (priced === undefined) return suggested;
    const block = await client.getBlock({ blockTag: 'latest' });
    const base = block.baseFeePerGas ?? 0n;
    if (base > priced) {
      logger?.warn({ chain, baseFee: String(base), priced: String(priced) }, 'base fee above the priced gas price: sending at the node\'s fees');
      return suggested;
    }
    const room = priced - base;
    return { maxFeePerGas: priced, maxPriorityFeePerGas: suggested.maxPriorityFeePerGas < room ? suggested.maxPriorityFeePerGas : room };
  }

  /**
   * Checks before anything is signed: a refusal here moves nothing and the key is not remembered (as on the simulated
   * ledger). The balance may still change before mining, so the receipt's status stays the real verdict.
   */
  async function preflight(req: SendToCheck, fees: { maxFeePerGas: bigint }): Promise<bigint> {
    const from = lowerAddress(req.from);
    const tx = call(req.asset, lowerAddress(req.to), req.amount);
    const insufficient = (balance: bigint, needed: bigint) =>
      new InsufficientFunds(`${from} holds ${balance} of ${req.asset} on ${chain}, the transfer needs ${needed}.`, {
        chain, asset: req.asset, address: from, balance: String(balance), amount: String(needed),
      });
    if (tx.data) {
      const balance = await balanceOf(from, req.asset);
      if (balance < req.amount) throw insufficient(balance, req.amount);
    }
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: from, ...tx });
    } catch (err) {
      if (!rpcError(err)) throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
      throw new InvalidRequest(`${chain}: the node refuses to estimate the transfer: ${rpcReason(err)}`);
    }
    // Plain value transfers cost exactly their estimate; contract calls get headroom for state that changes before mining.
    if (gas !== 21_000n) gas = (gas * 6n) / 5n;
    const eth = await client.getBalance({ address: from });
    const needed = gas * fees.maxFeePerGas + tx.value + (await l1Fee({ ...tx, gas })) + (req.keep ?? 0n);
    if (eth < needed) throw insufficient(eth, needed);
    return gas;
  }

  return { call, balanceOf, l1Fee, feesPerGas, preflight };
}
