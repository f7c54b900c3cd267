// The FeeBreakdown of a Family C quote (spec 2.7): who keeps what between the client's input and the destination,
// each part in the currency it is naturally paid in and valued in USD at the quote's own reference prices
// (Quote.usdPrices: the market's USD oracle, 8-decimal fixed point per whole unit, read when the quote was priced).
import { assetById } from '../../src/assets/index.js';
import type { Asset, AssetId } from '../../src/assets/types.js';
import type { Quote } from '../../src/quotes/types.js';
import { USD_ONE } from '../../src/venues/prices.js';
import { renderCurrency } from './currency.js';
import type { WireFee, WireFeeBreakdown } from './wire.js';

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
const unit = (a: Asset): bigint => 10n ** BigInt(a.decimals);

/** USD cents per whole dollar of the 8-decimal fixed point. */
const CENT = USD_ONE / 100n;

class Prices {
  constructor(private readonly table: Record<AssetId, bigint>) {}
  of(asset: Asset): bigint {
    const p = this.table[asset.id];
    // The quote actor prices every asset a step starts or ends in: a gap is a core bug, not the caller's.
    if (p === undefined || p <= 0n) throw new Error(`the quote carries no USD price for ${asset.id}`);
    return p;
  }
  /** `amount` of `from` in base units of `to` at the oracle rate, rounded up (a cost is never understated). */
  convertUp(amount: bigint, from: Asset, to: Asset): bigint {
    if (from.id === to.id || amount === 0n) return amount;
    return ceilDiv(amount * this.of(from) * unit(to), unit(from) * this.of(to));
  }
  /** The same, rounded down (a venue's fair output is never overstated). */
  convertDown(amount: bigint, from: Asset, to: Asset): bigint {
    if (from.id === to.id || amount === 0n) return amount;
    return (amount * this.of(from) * unit(to)) / (unit(from) * this.of(to));
  }
  /** Whole USD cents of `amount`, rounded half up. */
  cents(amount: bigint, asset: Asset): bigint {
    const fixed = amount * this.of(asset);
    const scale = unit(asset) * CENT;
    return (2n * fixed + scale) / (2n * scale);
  }
}

export interface FeeParts {
  /** Base units of the route's `from`. */
  preswap: bigint;
  /** Base units of the route's `to`. */
  postswap: bigint;
  /** Base units of `from`. */
  network: bigint;
  /** Base units of `to`. */
  liquidity: bigint;
  /** Base units of `to`. */
  protocol: bigint;
}

/**
 * - preswap: the first step's execution cost when it is paid out of the source asset on the source chain (a plain
 *   network fee; a gas-desk step's gas is advanced by the router instead), in `from`;
 * - postswap: the delivery cost, plus for exact output what the route returns above the exact amount (kept as a
 *   delivery cost, so `to.expected` is exactly what arrives), in `to`;
 * - network: the costs the router advances (gas-desk steps and every step after the first), each converted to `from`
 *   through the USD prices and rounded up;
 * - liquidity: per step, the oracle value of what the venue received (in the step's `to`) less what it gave, never
 *   negative, converted to `to` and rounded up;
 * - protocol: 0 (the router charges no fee of its own).
 */
export function feeParts(quote: Quote): FeeParts {
  const route = quote.route;
  const prices = new Prices(quote.usdPrices);
  const from = assetById(route.from);
  const to = assetById(route.to);
  let preswap = 0n;
  let network = 0n;
  let liquidity = 0n;
  route.steps.forEach((s, i) => {
    const stepFrom = assetById(s.from);
    const stepTo = assetById(s.to);
    const cost = s.stepAmountIn - s.venueAmountIn;
    if (i === 0 && s.execution.mode !== 'evm_gas_desk') preswap += cost;
    else network += prices.convertUp(cost, stepFrom, from);
    const fair = prices.convertDown(s.venueAmountIn, stepFrom, stepTo);
    if (fair > s.venueAmountOut) liquidity += prices.convertUp(fair - s.venueAmountOut, stepTo, to);
  });
  const exactOut = quote.request.exactOut;
  const surplus = exactOut !== undefined && route.estimatedAmountOut > exactOut ? route.estimatedAmountOut - exactOut : 0n;
  return { preswap, postswap: route.delivery.executionCost + surplus, network, liquidity, protocol: 0n };
}

export function renderFees(quote: Quote): WireFeeBreakdown {
  const prices = new Prices(quote.usdPrices);
  const from = assetById(quote.route.from);
  const to = assetById(quote.route.to);
  const parts = feeParts(quote);
  let totalCents = 0n;
  const fee = (amount: bigint, asset: Asset): WireFee => {
    const cents = prices.cents(amount, asset);
    totalCents += cents;
    return { amount: amount.toString(), currency: renderCurrency(asset), usd: Number(cents) / 100 };
  };
  const preswap = fee(parts.preswap, from);
  const postswap = fee(parts.postswap, to);
  const rift = { network: fee(parts.network, from), liquidity: fee(parts.liquidity, to), protocol: fee(parts.protocol, to) };
  return { totalUsd: Number(totalCents) / 100, preswap, postswap, rift };
}
