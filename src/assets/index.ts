// Public names of the assets module: chains, the registry, ChainAsset parsing, amounts, addresses.
export type { Asset, AssetId, AmountFormat, Chain, ChainKind, ChainName } from './types.js';
export { CHAIN_NAMES } from './types.js';
export { CHAINS, chainByEvmId } from './chains.js';
export { ASSETS, NATIVE_EVM_ADDRESS, assetById, findAsset, assetsOn } from './registry.js';
export { parseChainAsset, writeAsset } from './chain-asset.js';
export { MAX_AMOUNT, parseAmount, writeAmount } from './amounts.js';
export { validateAddress } from './addresses.js';
