// The chains the router serves (spec 2.1). EVM chains are also addressed as `evm:<chain id>`.
// Chain ids are mainnet ids; a changed id changes every canonical asset id of that chain.
import { CHAIN_NAMES, type Chain, type ChainName } from './types.js';

export const CHAINS: Readonly<Record<ChainName, Chain>> = {
  ethereum: { name: 'ethereum', kind: 'evm', evmChainId: 1, nativeSymbol: 'ETH' },
  base: { name: 'base', kind: 'evm', evmChainId: 8453, nativeSymbol: 'ETH', opStack: true },
  arbitrum: { name: 'arbitrum', kind: 'evm', evmChainId: 42161, nativeSymbol: 'ETH' },
  // Robinhood Chain mainnet, an Arbitrum Orbit L2 with ETH for gas (docs.robinhood.com/chain/connecting lists
  // mainnet 4663; 46630 is its testnet, not this chain).
  robinhood: { name: 'robinhood', kind: 'evm', evmChainId: 4663, nativeSymbol: 'ETH' },
  // Ink (Kraken's OP Stack L2).
  ink: { name: 'ink', kind: 'evm', evmChainId: 57073, nativeSymbol: 'ETH', opStack: true },
  bitcoin: { name: 'bitcoin', kind: 'bitcoin', nativeSymbol: 'BTC' },
  // HyperCore (Hyperliquid's L1 order book), not HyperEVM: assets are spot token ids.
  hyperliquid: { name: 'hyperliquid', kind: 'hyperliquid', nativeSymbol: 'HYPE' },
};

/** The chains on which an address of `chain` is the same account: every EVM chain for an EVM one (one key, one
 *  address on each), else `chain` alone. */
export function chainsSharingAddresses(chain: ChainName): ChainName[] {
  return CHAINS[chain].kind === 'evm' ? CHAIN_NAMES.filter((c) => CHAINS[c].kind === 'evm') : [chain];
}

export function chainByEvmId(id: number): Chain | undefined {
  return Object.values(CHAINS).find((c) => c.evmChainId === id);
}
