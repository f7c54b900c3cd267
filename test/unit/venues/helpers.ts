// Shared helpers of the venue tests: asset lookups by chain and symbol and a never-aborted signal.
import { assetById, findAsset } from '../../../src/assets/registry.js';
import type { Asset, ChainName } from '../../../src/assets/types.js';

export function asset(chain: ChainName, symbol: string): Asset {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`test asset ${chain} ${symbol} missing`);
  return a;
}

export { assetById };

/** A signal nobody aborts: quotes on it settle by themselves (or, for a timeout, never). */
export function never(): AbortSignal {
  return new AbortController().signal;
}
