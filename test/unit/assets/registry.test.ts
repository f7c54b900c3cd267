// The registry and chains of the assets module (spec 2.1 chain names; canonical ids of src/assets/types.ts): the
// exact asset list other modules build on, and the structural rules that make ChainAsset round trips possible.
import { describe, expect, it } from 'vitest';
import { ASSETS, CHAINS, CHAIN_NAMES, NATIVE_EVM_ADDRESS, assetById, assetsOn, chainByEvmId, findAsset } from '../../../src/assets/index.js';
import { UnknownAsset } from '../../../src/errors.js';

/** canonical id, formatted name, decimals: the published list (README) — a change here renames an asset. */
const EXPECTED: ReadonlyArray<readonly [string, string, number]> = [
  ['evm:1.0x0000000000000000000000000000000000000000', 'ethereum.ETH', 18],
  ['evm:1.0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 'ethereum.USDC', 6],
  ['evm:1.0xdac17f958d2ee523a2206206994597c13d831ec7', 'ethereum.USDT', 6],
  ['evm:1.0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', 'ethereum.WETH', 18],
  ['evm:1.0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', 'ethereum.WBTC', 8],
  ['evm:1.0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', 'ethereum.cbBTC', 8],
  ['evm:8453.0x0000000000000000000000000000000000000000', 'base.ETH', 18],
  ['evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 'base.USDC', 6],
  ['evm:8453.0xfde4c96c8593536e31f229ea8f37b2ada2699bb2', 'base.USDT', 6],
  ['evm:8453.0x4200000000000000000000000000000000000006', 'base.WETH', 18],
  ['evm:8453.0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', 'base.cbBTC', 8],
  ['evm:42161.0x0000000000000000000000000000000000000000', 'arbitrum.ETH', 18],
  ['evm:42161.0xaf88d065e77c8cc2239327c5edb3a432268e5831', 'arbitrum.USDC', 6],
  ['evm:42161.0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9', 'arbitrum.USDT', 6],
  ['evm:42161.0x82af49447d8a07e3bd95bd0d56f35241523fbab1', 'arbitrum.WETH', 18],
  ['evm:42161.0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f', 'arbitrum.WBTC', 8],
  ['evm:4663.0x0000000000000000000000000000000000000000', 'robinhood.ETH', 18],
  ['evm:4663.0x0bd7d308f8e1639fab988df18a8011f41eacad73', 'robinhood.WETH', 18],
  ['evm:4663.0x5fc5360d0400a0fd4f2af552add042d716f1d168', 'robinhood.USDG', 6],
  ['evm:57073.0x0000000000000000000000000000000000000000', 'ink.ETH', 18],
  ['evm:57073.0x4200000000000000000000000000000000000006', 'ink.WETH', 18],
  ['evm:57073.0x2d270e6886d130d724215a266106e6832161eaed', 'ink.USDC', 6],
  ['evm:57073.0x0200c29006150606b650577bbe7b6248f58470c1', 'ink.USDT0', 6],
  ['evm:57073.0x73e0c0d45e048d25fc26fa3159b0aa04bfa4db98', 'ink.kBTC', 8],
  ['bitcoin.btc', 'bitcoin.BTC', 8],
  ['hyperliquid.0x6d1e7cde53ba9467b783cb7c530ce054', 'hyperliquid.USDC', 8],
  ['hyperliquid.0x0d01dc56dcaaca66ad901c959b4011ec', 'hyperliquid.HYPE', 8],
  ['hyperliquid.0x8f254b963e8468305d409b33aa137c67', 'hyperliquid.UBTC', 10],
  ['hyperliquid.0xe1edd30daaf5caac3fe63569e24748da', 'hyperliquid.UETH', 9],
];

describe('Registry: the assets the router prices, with their real addresses and decimals', () => {
  it('holds exactly the published list, in order', () => {
    expect(ASSETS.map((a) => [a.id, `${a.chain}.${a.symbol}`, a.decimals])).toEqual(EXPECTED);
  });
  it('has at least native, USDC (USDG on Robinhood Chain) and WETH on every EVM chain, and a wrapped BTC where one exists', () => {
    for (const chain of ['ethereum', 'base', 'arbitrum', 'robinhood', 'ink'] as const) {
      expect(findAsset(chain, 'ETH')?.native, chain).toBe(true);
      expect(findAsset(chain, 'WETH')?.decimals, chain).toBe(18);
      expect(findAsset(chain, chain === 'robinhood' ? 'USDG' : 'USDC')?.decimals, chain).toBe(6);
    }
    for (const [chain, symbol] of [['ethereum', 'WBTC'], ['ethereum', 'cbBTC'], ['base', 'cbBTC'], ['arbitrum', 'WBTC'], ['ink', 'kBTC']] as const) {
      expect(findAsset(chain, symbol)?.priceKey, `${chain} ${symbol}`).toBe('BTC');
    }
  });
  it('every asset is frozen, so no consumer can rename or re-scale one for everybody else', () => {
    for (const a of ASSETS) expect(Object.isFrozen(a), a.id).toBe(true);
    expect(Object.isFrozen(ASSETS)).toBe(true);
  });
});

describe('Canonical id (types.ts): `evm:<chain id>.<lowercase address>`, natives at the zero address; `bitcoin.btc`; `hyperliquid.<token id>`', () => {
  it('EVM ids are the chain id and the lowercase contract address; natives carry the zero address and a null address', () => {
    for (const a of ASSETS.filter((x) => CHAINS[x.chain].kind === 'evm')) {
      const chainId = CHAINS[a.chain].evmChainId;
      expect(a.id).toMatch(/^evm:[0-9]+\.0x[0-9a-f]{40}$/);
      expect(a.id).toBe(`evm:${chainId}.${a.native ? NATIVE_EVM_ADDRESS : a.address}`);
      expect(a.address === null).toBe(a.native);
    }
  });
  it('HyperCore ids are the lowercase 16-byte spotMeta token id, HYPE included', () => {
    for (const a of assetsOn('hyperliquid')) {
      expect(a.address).toMatch(/^0x[0-9a-f]{32}$/);
      expect(a.id).toBe(`hyperliquid.${a.address}`);
    }
  });
  it('ids are unique, and every chain has exactly one native coin, named as the chain names it', () => {
    expect(new Set(ASSETS.map((a) => a.id)).size).toBe(ASSETS.length);
    for (const chain of CHAIN_NAMES) {
      const natives = assetsOn(chain).filter((a) => a.native);
      expect(natives.map((a) => a.symbol), chain).toEqual([CHAINS[chain].nativeSymbol]);
    }
  });
});

describe('Symbols are presentation only, and unique per chain (case-insensitively), so `<chain>.<symbol>` names one asset', () => {
  it('no two assets of a chain share a symbol in any case', () => {
    for (const chain of CHAIN_NAMES) {
      const symbols = assetsOn(chain).map((a) => a.symbol.toLowerCase());
      expect(new Set(symbols).size, chain).toBe(symbols.length);
    }
  });
  it('findAsset is case-insensitive and answers undefined for a symbol the chain lacks', () => {
    expect(findAsset('base', 'cbbtc')?.id).toBe('evm:8453.0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf');
    expect(findAsset('ink', 'usdt0')?.symbol).toBe('USDT0');
    expect(findAsset('robinhood', 'USDC')).toBeUndefined();
    expect(findAsset('bitcoin', 'ETH')).toBeUndefined();
  });
  it('decimals are whole numbers a uint8 ERC-20 `decimals()` could return', () => {
    for (const a of ASSETS) {
      expect(Number.isInteger(a.decimals) && a.decimals >= 0 && a.decimals <= 36, a.id).toBe(true);
    }
  });
});

describe('Chains (spec 2.1): ethereum, base, arbitrum, robinhood, ink, bitcoin, hyperliquid; EVM chains by chain id', () => {
  it('EVM chain ids are the mainnet ids', () => {
    expect(Object.fromEntries(CHAIN_NAMES.map((c) => [c, CHAINS[c].evmChainId ?? null]))).toEqual({
      ethereum: 1, base: 8453, arbitrum: 42161, robinhood: 4663, ink: 57073, bitcoin: null, hyperliquid: null,
    });
  });
  it('chainByEvmId finds the chain of a mainnet id and nothing for a testnet id', () => {
    expect(chainByEvmId(4663)?.name).toBe('robinhood');
    expect(chainByEvmId(57073)?.name).toBe('ink');
    expect(chainByEvmId(46630)).toBeUndefined(); // Robinhood Chain testnet
    expect(chainByEvmId(84532)).toBeUndefined(); // Base Sepolia
  });
  it('assetById answers the asset of a canonical id, and UnknownAsset for any other', () => {
    expect(assetById('bitcoin.btc').symbol).toBe('BTC');
    expect(() => assetById('evm:8453.0xdead')).toThrow(UnknownAsset);
    expect(() => assetById('base.usdc')).toThrow(UnknownAsset);
  });
});
