// What a step and the final delivery cost, in base units of the asset they are paid from (bigint only), and how a
// step executes (spec 2.3 `execution`). The one table of figures is COST_TABLE; every cost is rounded up.
import { ASSETS } from '../assets/registry.js';
import type { Asset, ChainName } from '../assets/types.js';
import { CHAINS } from '../assets/chains.js';
import { RouterError } from '../errors.js';
import type { Execution, Market } from '../venues/types.js';

/** All costing needs from a market: the USD reference price of an asset (8 decimals per whole unit). */
export type UsdPrices = Pick<Market, 'usdPrice'>;

/** Kind of source-chain transaction a step needs: a swap in place, or handing the asset to a bridge/intent. */
export type StepKind = 'swap' | 'bridge';

const GWEI = 1_000_000_000n;
const BPS = 10_000n;

/**
 * The cost table. Figures are deliberately round, realistic upper estimates (mid 2025), because an under-estimated
 * cost turns into a shortfall at execution, while an over-estimate only loses a little output:
 * - gasUnits.swap 180k: an aggregator swap through one or two pools costs 120k–250k gas.
 * - gasUnits.bridge 120k: a bridge deposit (Across spokepool deposit, CCTP depositForBurn, an intent's escrow) is
 *   100k–150k gas on the source chain; the destination side is paid by the relayer/solver out of the venue's fee.
 * - gasUnits.approve 46k: every order has a fresh vault, so an ERC-20 step first approves the venue's spender.
 * - gasUnits.nativeTransfer 21k (protocol constant), tokenTransfer 65k (ERC-20 transfer into an address that may
 *   not hold the token yet: a fresh storage slot costs 20k more than an update).
 * - gasPriceWei: effective price per gas unit including the L1 data fee of rollups. Ethereum mainnet (a few gwei)
 *   is two orders of magnitude dearer than the L2s (hundredths of a gwei); what breaks if these are too low is
 *   the gas desk being under-reimbursed, so they sit above the usual medians.
 * - gasDeskMarkupBps 500: the router advances gas in ETH and is repaid in the token; 5% covers the ETH/token price
 *   moving between quote and execution and the desk's own transaction.
 * - bitcoin: a P2WPKH spend with one input and up to two outputs is at most 141 vbytes; 10 sat/vB is a fee rate
 *   that confirms within a few blocks outside of fee spikes.
 * - hyperliquid: HyperCore charges no gas; an order action is priced at 0.10 USD (the router's own action cost),
 *   and a spot send into a fresh address at 1 USD (HyperCore's fee for activating a new account).
 */
export const COST_TABLE = {
  gasUnits: { swap: 180_000n, bridge: 120_000n, approve: 46_000n, nativeTransfer: 21_000n, tokenTransfer: 65_000n },
  gasPriceWei: {
    ethereum: 5n * GWEI,
    base: GWEI / 50n, // 0.02 gwei
    arbitrum: GWEI / 20n, // 0.05 gwei
    robinhood: GWEI / 20n, // 0.05 gwei (Arbitrum Orbit chain)
    ink: GWEI / 50n, // 0.02 gwei (OP stack, like base)
  } as Readonly<Partial<Record<ChainName, bigint>>>,
  gasDeskMarkupBps: 500n,
  bitcoin: { vbytes: 141n, satPerVbyte: 10n },
  /** USD with 8 decimals, as Market.usdPrice. */
  hyperliquidUsd: { step: 10_000_000n, delivery: 100_000_000n },
} as const;

/** How a step starting from `asset` runs: decided by the chain it starts on and whether the asset is its native coin. */
export function executionFor(asset: Asset): Execution {
  const chain = CHAINS[asset.chain];
  switch (chain.kind) {
    case 'bitcoin':
      return { mode: 'bitcoin' };
    case 'hyperliquid':
      return { mode: 'hyperliquid' };
    case 'evm': {
      const id = evmChainId(asset.chain);
      // A native coin pays its own gas from the vault; a token cannot, so the gas desk advances it.
      return asset.native ? { mode: 'evm', chain: id } : { mode: 'evm_gas_desk', chain: id };
    }
  }
}

/** A step that leaves its chain hands the asset to a bridge or intent network; one that stays swaps in place. */
export function stepKind(from: Asset, to: Asset): StepKind {
  return from.chain === to.chain ? 'swap' : 'bridge';
}

/** Cost of executing one step, base units of `from` (the asset at hand pays it). */
export function stepCost(prices: UsdPrices, from: Asset, to: Asset): bigint {
  const kind = CHAINS[from.chain].kind;
  if (kind === 'bitcoin') return bitcoinCost(prices, from);
  if (kind === 'hyperliquid') return usdToAsset(prices, COST_TABLE.hyperliquidUsd.step, from);
  const g = COST_TABLE.gasUnits;
  const gas = (stepKind(from, to) === 'swap' ? g.swap : g.bridge) + (from.native ? 0n : g.approve);
  return evmGasCost(prices, from, gas);
}

/** Cost of the final transfer of `asset` into the order's to_address, base units of `asset` (the delivered asset pays). */
export function deliveryCost(prices: UsdPrices, asset: Asset): bigint {
  const kind = CHAINS[asset.chain].kind;
  if (kind === 'bitcoin') return bitcoinCost(prices, asset);
  if (kind === 'hyperliquid') return usdToAsset(prices, COST_TABLE.hyperliquidUsd.delivery, asset);
  const g = COST_TABLE.gasUnits;
  return evmGasCost(prices, asset, asset.native ? g.nativeTransfer : g.tokenTransfer);
}

/**
 * Cost of refunding `asset` from an order's deposit address, base units of `asset`. On an EVM chain a refund is two
 * sends from the deposit address, the cost to the fee account and the rest to the refund address, each after the gas
 * desk gave the address the ETH for it (a native coin's deposit address lends its own ETH, and its second send then
 * needs the top-up all the same): 2 × (transfer + top-up) gas. One send elsewhere: the delivery's cost.
 */
export function refundCost(prices: UsdPrices, asset: Asset): bigint {
  if (CHAINS[asset.chain].kind !== 'evm') return deliveryCost(prices, asset);
  const g = COST_TABLE.gasUnits;
  return evmGasCost(prices, asset, 2n * ((asset.native ? g.nativeTransfer : g.tokenTransfer) + g.nativeTransfer));
}

function evmChainId(chain: ChainName): number {
  const id = CHAINS[chain].evmChainId;
  if (id === undefined) throw new RouterError(`Chain ${chain} has no EVM chain id.`);
  return id;
}

/** The native coin of each chain, looked up once: every step cost of a token on an EVM chain needs it. */
const NATIVES = new Map<ChainName, Asset>();
for (const a of ASSETS) if (a.native && !NATIVES.has(a.chain)) NATIVES.set(a.chain, a);

function nativeOf(chain: ChainName): Asset {
  const a = NATIVES.get(chain);
  if (!a) throw new RouterError(`The asset registry has no native coin on ${chain}.`);
  return a;
}

/** 10^d for every decimals an asset can have, computed once rather than per cost. */
const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, d) => 10n ** BigInt(d));
const pow10 = (d: number): bigint => POW10[d] ?? 10n ** BigInt(d);

/** Gas paid in the native coin; a token reimburses the gas desk the same value plus the markup. */
function evmGasCost(prices: UsdPrices, payer: Asset, gasUnits: bigint): bigint {
  const gasPrice = COST_TABLE.gasPriceWei[payer.chain];
  if (gasPrice === undefined) throw new RouterError(`No gas price for chain ${payer.chain} in the cost table.`);
  const wei = gasUnits * gasPrice;
  return payer.native ? wei : nativeToAsset(prices, nativeOf(payer.chain), wei, payer, COST_TABLE.gasDeskMarkupBps);
}

function bitcoinCost(prices: UsdPrices, payer: Asset): bigint {
  const sats = COST_TABLE.bitcoin.vbytes * COST_TABLE.bitcoin.satPerVbyte;
  // Bitcoin's only asset is BTC itself; the conversion stays for safety should the registry ever grow.
  return payer.native ? sats : nativeToAsset(prices, nativeOf('bitcoin'), sats, payer, 0n);
}

/** ceil(a / b) for positive b. */
function ceilDiv(a: bigint, b: bigint): bigint {
  return a <= 0n ? 0n : (a + b - 1n) / b;
}

/** `units` of `native` expressed in `asset` through their USD prices, plus a markup, rounded up in one division. */
function nativeToAsset(prices: UsdPrices, native: Asset, units: bigint, asset: Asset, markupBps: bigint): bigint {
  const num = units * prices.usdPrice(native) * pow10(asset.decimals) * (BPS + markupBps);
  const den = pow10(native.decimals) * prices.usdPrice(asset) * BPS;
  return ceilDiv(num, den);
}

/** A USD amount (8 decimals) in base units of `asset`, rounded up. */
function usdToAsset(prices: UsdPrices, usd: bigint, asset: Asset): bigint {
  return ceilDiv(usd * pow10(asset.decimals), prices.usdPrice(asset));
}
