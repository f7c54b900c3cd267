// How a simulated venue prices a trade, in bigint arithmetic only: convert through the two USD reference prices
// and decimals, take the fee and the venue's skew in bps, then constant-product-like impact depth / (depth + size).
import type { Asset } from '../assets/types.js';
import { VenueFailed } from '../errors.js';
import { USD_ONE, usdValue } from './prices.js';
import type { VenueSpec } from './catalog.js';

const BPS = 10_000n;
/** 10^d for every decimals an asset can have, computed once rather than per trade. */
const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, d) => 10n ** BigInt(d));
const pow10 = (d: number): bigint => POW10[d] ?? 10n ** BigInt(d);

export interface PriceInputs {
  spec: VenueSpec;
  from: Asset;
  to: Asset;
  amountIn: bigint;
  priceIn: bigint;
  priceOut: bigint;
  /** This venue's skew on this pair, bps, 0..spec.maxSkewBps. */
  skewBps: number;
}

/**
 * Output in base units of `to`, rounded down. Throws VenueFailed when the venue cannot fill: a trade whose USD
 * size exceeds the venue's depth, or one so small it rounds to nothing.
 * The whole product is divided once, so rounding loses at most one base unit of `to`.
 */
export function priceTrade(p: PriceInputs): bigint {
  const { spec, from, to, amountIn } = p;
  if (amountIn <= 0n) throw new VenueFailed(`${spec.id}: amount must be positive.`);
  const depth = spec.depthUsd * USD_ONE;
  const size = usdValue(amountIn, from, p.priceIn);
  if (size > depth) {
    throw new VenueFailed(`${spec.id}: insufficient liquidity, ${fmtUsd(size)} USD exceeds the depth of ${spec.depthUsd} USD.`);
  }
  const keep = BPS - BigInt(spec.feeBps) - BigInt(p.skewBps);
  const num = amountIn * p.priceIn * pow10(to.decimals) * keep * depth;
  const den = p.priceOut * pow10(from.decimals) * BPS * (depth + size);
  const out = num / den;
  if (out <= 0n) throw new VenueFailed(`${spec.id}: amount too small, the output rounds to zero.`);
  return out;
}

/**
 * An upper bound on priceTrade for the same inputs, whatever the skew and the size: the reference conversion less
 * the fee alone (skew is >= 0 and the impact factor depth / (depth + size) is <= 1). Rounded down like priceTrade,
 * whose numerator is never larger relative to its denominator, so the bound holds to the base unit.
 */
export function tradeBound(p: Omit<PriceInputs, 'skewBps'>): bigint {
  const keep = BPS - BigInt(p.spec.feeBps);
  if (p.amountIn <= 0n || keep <= 0n) return 0n;
  return (p.amountIn * p.priceIn * pow10(p.to.decimals) * keep) / (p.priceOut * pow10(p.from.decimals) * BPS);
}

function fmtUsd(v: bigint): string {
  return (v / USD_ONE).toString();
}
