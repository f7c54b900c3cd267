// The USD reference table of the simulated market, keyed by Asset.priceKey, and the bigint conversion between
// two assets through it. Fixed point with 8 decimals: 1 USD = 100000000n.
import type { Asset } from '../assets/types.js';
import { RouterError } from '../errors.js';

export const USD_DECIMALS = 8;
export const USD_ONE = 10n ** BigInt(USD_DECIMALS);

/** Reference prices of one whole unit, 8 decimals. Round numbers so expected outputs are easy to check by hand. */
export const REFERENCE_USD_PRICES: Readonly<Record<string, bigint>> = {
  USD: 1n * USD_ONE,
  ETH: 3_000n * USD_ONE,
  BTC: 90_000n * USD_ONE,
  HYPE: 25n * USD_ONE,
};

/** A mutable copy of the table owned by one market, so tests can move a price without touching other markets. */
export class PriceTable {
  private readonly prices = new Map<string, bigint>(Object.entries(REFERENCE_USD_PRICES));

  usdPrice(asset: Asset): bigint {
    return this.byKey(asset.priceKey);
  }
  byKey(priceKey: string): bigint {
    const p = this.prices.get(priceKey);
    // A missing key is a registry/table mismatch, a bug rather than a request error.
    if (p === undefined) throw new RouterError(`No USD reference price for price key ${priceKey}.`);
    return p;
  }
  set(priceKey: string, price: bigint): void {
    if (price <= 0n) throw new RangeError(`USD price of ${priceKey} must be positive, got ${price}.`);
    this.prices.set(priceKey, price);
  }
}

/** USD value (8 decimals) of `amount` base units of `asset`, rounded down. */
export function usdValue(amount: bigint, asset: Asset, price: bigint): bigint {
  return (amount * price) / 10n ** BigInt(asset.decimals);
}
