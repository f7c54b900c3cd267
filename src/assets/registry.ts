// The asset registry: every asset the router prices, with its mainnet contract address (or HyperCore token id) and
// decimals. An asset's canonical id derives from chain id + address, so editing an address renames the asset.
//
// Sources (checked when written): public token lists for the Ethereum, Base and Arbitrum tokens (Circle's USDC list,
// wallet and bridge token lists); docs.robinhood.com/chain/contracts and docs.robinhood.com/chain/connecting for
// Robinhood Chain; BitGo's statics and Chainlink's CCIP directory for Ink (USDC, USD₮0, kBTC); mainnet spotMeta
// dumps (tokenId, weiDecimals) for HyperCore.
import type { Asset, AssetId, ChainName } from './types.js';
import { CHAINS } from './chains.js';
import { UnknownAsset } from '../errors.js';

/** The address EVM natives carry in their canonical id (types.ts). */
export const NATIVE_EVM_ADDRESS = '0x0000000000000000000000000000000000000000';

function evm(chain: ChainName, symbol: string, address: string, decimals: number, priceKey: string): Asset {
  const id = CHAINS[chain].evmChainId;
  const lower = address.toLowerCase();
  const native = lower === NATIVE_EVM_ADDRESS;
  return Object.freeze({ id: `evm:${id}.${lower}`, chain, symbol, decimals, address: native ? null : lower, native, priceKey });
}
/**
 * HyperCore spot token, keyed by its 16-byte spotMeta `tokenId`; `decimals` is spotMeta `weiDecimals` (the unit of
 * balances and transfers on HyperCore), not `szDecimals` (order size precision). HYPE is native yet keeps its token
 * id in `address`, because that id is what names it on HyperCore and in its canonical id.
 */
function hl(symbol: string, tokenId: string, decimals: number, priceKey: string): Asset {
  const lower = tokenId.toLowerCase();
  return Object.freeze({ id: `hyperliquid.${lower}`, chain: 'hyperliquid', symbol, decimals, address: lower, native: symbol === 'HYPE', priceKey });
}

export const ASSETS: readonly Asset[] = Object.freeze([
  evm('ethereum', 'ETH', NATIVE_EVM_ADDRESS, 18, 'ETH'),
  evm('ethereum', 'USDC', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 6, 'USD'),
  evm('ethereum', 'USDT', '0xdac17f958d2ee523a2206206994597c13d831ec7', 6, 'USD'),
  evm('ethereum', 'WETH', '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', 18, 'ETH'),
  evm('ethereum', 'WBTC', '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', 8, 'BTC'),
  evm('ethereum', 'cbBTC', '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', 8, 'BTC'),

  evm('base', 'ETH', NATIVE_EVM_ADDRESS, 18, 'ETH'),
  evm('base', 'USDC', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 6, 'USD'),
  // Bridged Tether on Base (Tether does not issue natively on Base).
  evm('base', 'USDT', '0xfde4c96c8593536e31f229ea8f37b2ada2699bb2', 6, 'USD'),
  evm('base', 'WETH', '0x4200000000000000000000000000000000000006', 18, 'ETH'),
  evm('base', 'cbBTC', '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', 8, 'BTC'),

  evm('arbitrum', 'ETH', NATIVE_EVM_ADDRESS, 18, 'ETH'),
  evm('arbitrum', 'USDC', '0xaf88d065e77c8cc2239327c5edb3a432268e5831', 6, 'USD'),
  // Arbitrum's USDT contract, upgraded in place to USD₮0 (LayerZero OFT); the address and decimals did not change.
  evm('arbitrum', 'USDT', '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9', 6, 'USD'),
  evm('arbitrum', 'WETH', '0x82af49447d8a07e3bd95bd0d56f35241523fbab1', 18, 'ETH'),
  evm('arbitrum', 'WBTC', '0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f', 8, 'BTC'),

  // Robinhood Chain mainnet (4663): docs.robinhood.com/chain/contracts lists WETH and USDG as its token contracts.
  // There is no Circle USDC there; USDG (Paxos Global Dollar, 6 decimals) is the chain's dollar.
  evm('robinhood', 'ETH', NATIVE_EVM_ADDRESS, 18, 'ETH'),
  evm('robinhood', 'WETH', '0x0bd7d308f8e1639fab988df18a8011f41eacad73', 18, 'ETH'),
  evm('robinhood', 'USDG', '0x5fc5360d0400a0fd4f2af552add042d716f1d168', 6, 'USD'),

  // Ink: OP Stack predeploy WETH, Circle USDC, USD₮0 (Tether's OFT; Ink has no plain USDT), Kraken's kBTC.
  evm('ink', 'ETH', NATIVE_EVM_ADDRESS, 18, 'ETH'),
  evm('ink', 'WETH', '0x4200000000000000000000000000000000000006', 18, 'ETH'),
  evm('ink', 'USDC', '0x2d270e6886d130d724215a266106e6832161eaed', 6, 'USD'),
  evm('ink', 'USDT0', '0x0200c29006150606b650577bbe7b6248f58470c1', 6, 'USD'),
  evm('ink', 'kBTC', '0x73e0c0d45e048d25fc26fa3159b0aa04bfa4db98', 8, 'BTC'),

  Object.freeze({ id: 'bitcoin.btc', chain: 'bitcoin', symbol: 'BTC', decimals: 8, address: null, native: true, priceKey: 'BTC' } satisfies Asset),

  // HyperCore spot tokens: spotMeta index 0 (USDC), 150 (HYPE), 197 (UBTC, Unit), 221 (UETH, Unit).
  hl('USDC', '0x6d1e7cde53ba9467b783cb7c530ce054', 8, 'USD'),
  hl('HYPE', '0x0d01dc56dcaaca66ad901c959b4011ec', 8, 'HYPE'),
  hl('UBTC', '0x8f254b963e8468305d409b33aa137c67', 10, 'BTC'),
  hl('UETH', '0xe1edd30daaf5caac3fe63569e24748da', 9, 'ETH'),
]);

const byId = new Map<AssetId, Asset>(ASSETS.map((a) => [a.id, a]));

export function assetById(id: AssetId): Asset {
  const a = byId.get(id);
  if (!a) throw new UnknownAsset(`Asset ${id} is not supported.`);
  return a;
}
/** The asset of that symbol on the chain, case-insensitively (symbols are unique per chain). */
export function findAsset(chain: ChainName, symbol: string): Asset | undefined {
  const s = symbol.toLowerCase();
  return ASSETS.find((a) => a.chain === chain && a.symbol.toLowerCase() === s);
}
export function assetsOn(chain: ChainName): Asset[] {
  return ASSETS.filter((a) => a.chain === chain);
}
