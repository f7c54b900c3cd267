// Example pairs for tests and benchmarks: ones some venue serves directly, and ones no venue serves, so the
// multi-hop search decides the answer. Amounts are base units of `from`, sized well inside every depth.
import { findAsset } from '../assets/registry.js';
import type { AssetId, ChainName } from '../assets/types.js';

export interface ExamplePair {
  name: string;
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  /** Why the pair is direct (which venues), or through which intermediate asset it connects in two hops. */
  note: string;
}

function id(chain: ChainName, symbol: string): AssetId {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`EXAMPLE_PAIRS: asset ${chain} ${symbol} is missing from the registry.`);
  return a.id;
}

export const EXAMPLE_PAIRS: { readonly direct: readonly ExamplePair[]; readonly multiHopOnly: readonly ExamplePair[] } = {
  direct: [
    { name: 'base USDC -> arbitrum USDC', from: id('base', 'USDC'), to: id('arbitrum', 'USDC'), amountIn: 1_000_000_000n, note: 'cctp_fast, cctp_standard, across, relay, mayan, lifi_*, near_intents' },
    { name: 'ethereum ETH -> ethereum USDC', from: id('ethereum', 'ETH'), to: id('ethereum', 'USDC'), amountIn: 10n ** 18n, note: 'kyberswap, okx, velora, flytrade, chainflip' },
    { name: 'bitcoin BTC -> ethereum USDC', from: id('bitcoin', 'BTC'), to: id('ethereum', 'USDC'), amountIn: 10_000_000n, note: 'chainflip, near_intents' },
    { name: 'bitcoin BTC -> hyperliquid UBTC', from: id('bitcoin', 'BTC'), to: id('hyperliquid', 'UBTC'), amountIn: 10_000_000n, note: 'unit' },
    { name: 'hyperliquid USDC -> hyperliquid HYPE', from: id('hyperliquid', 'USDC'), to: id('hyperliquid', 'HYPE'), amountIn: 100_000_000_000n, note: 'hyperliquid_spot' },
    { name: 'arbitrum USDC -> hyperliquid USDC', from: id('arbitrum', 'USDC'), to: id('hyperliquid', 'USDC'), amountIn: 1_000_000_000n, note: 'cctp_hyperliquid_fast, cctp_hyperliquid_standard, nordstern' },
  ],
  multiHopOnly: [
    { name: 'bitcoin BTC -> arbitrum USDC', from: id('bitcoin', 'BTC'), to: id('arbitrum', 'USDC'), amountIn: 10_000_000n, note: 'via ethereum USDC (chainflip/near_intents, then cctp/across/...) or hyperliquid UBTC (unit, then nordstern)' },
    { name: 'bitcoin BTC -> arbitrum USDT', from: id('bitcoin', 'BTC'), to: id('arbitrum', 'USDT'), amountIn: 10_000_000n, note: 'via ethereum USDT or ETH (chainflip/near_intents, then across/mayan/transit/lifi_standard)' },
    { name: 'bitcoin BTC -> base ETH', from: id('bitcoin', 'BTC'), to: id('base', 'ETH'), amountIn: 10_000_000n, note: 'via ethereum ETH or USDC (chainflip/near_intents, then across/relay/mayan/...)' },
    { name: 'hyperliquid HYPE -> base ETH', from: id('hyperliquid', 'HYPE'), to: id('base', 'ETH'), amountIn: 10_000_000_000n, note: 'via hyperliquid USDC (hyperliquid_spot, then nordstern)' },
    { name: 'robinhood USDG -> bitcoin BTC', from: id('robinhood', 'USDG'), to: id('bitcoin', 'BTC'), amountIn: 1_000_000_000n, note: 'via ethereum USDC (lifi_standard, then chainflip/near_intents)' },
  ],
};
