// The internal language of assets: a canonical id per asset, chains by name, formats of the wire.

/** Chain names of the spec. EVM chains also answer to `evm:<chain id>`. */
export const CHAIN_NAMES = ['ethereum', 'base', 'arbitrum', 'robinhood', 'ink', 'bitcoin', 'hyperliquid'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];
/** True for a chain of the registry, by its name. */
export const isChainName = (v: unknown): v is ChainName => typeof v === 'string' && (CHAIN_NAMES as readonly string[]).includes(v);

export type ChainKind = 'evm' | 'bitcoin' | 'hyperliquid';

export interface Chain {
  name: ChainName;
  kind: ChainKind;
  /** EVM chain id; only on kind 'evm'. */
  evmChainId?: number;
  /** Symbol of the native coin (ETH, BTC, HYPE). */
  nativeSymbol: string;
  /** An OP Stack rollup: every transaction also pays an L1 data fee beside its gas, read from the chain's gas price
   *  oracle (Arbitrum-style chains fold theirs into the gas used instead). */
  opStack?: true;
}

/**
 * Canonical asset id, the only way the core names an asset:
 * - EVM token: `evm:<chain id>.<lowercase address>`; EVM native coin: `evm:<chain id>.0x0000000000000000000000000000000000000000`
 * - Bitcoin: `bitcoin.btc`
 * - Hyperliquid spot (HyperCore): `hyperliquid.<lowercase token id>` (the 16-byte token id of spotMeta)
 */
export type AssetId = string;

export interface Asset {
  id: AssetId;
  chain: ChainName;
  /** Presentation symbol, upper case as the issuer writes it (USDC, WETH, cbBTC...). */
  symbol: string;
  decimals: number;
  /** Contract address (EVM, lowercase) or token id (Hyperliquid, HYPE included); null for ETH and BTC natives. */
  address: string | null;
  native: boolean;
  /** Key into the USD reference price table (ETH, BTC, USD, HYPE). */
  priceKey: string;
}

export type AmountFormat = 'formatted' | 'raw';
