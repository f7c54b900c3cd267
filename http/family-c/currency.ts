// Family C's typed currency ⇄ the core's registry asset. A currency names a chain by kind (an EVM chain by its chain
// id) and a token as the chain's native coin or by its address (an ERC-20 contract on EVM, the spotMeta token id on
// HyperCore), with the decimals the client believes it has: a disagreement with the registry is refused, because an
// amount read with the wrong decimals is off by powers of ten.
import { ASSETS, CHAINS, chainByEvmId } from '../../src/assets/index.js';
import type { Asset, ChainName } from '../../src/assets/types.js';
import { UnknownAsset } from '../../src/errors.js';
import type { WireChain, WireCurrency, WireToken } from './wire.js';

/** The chain a wire chain names; `field` is the currency's path in the body (`from`, `to`). */
function chainOf(chain: WireChain, field: string): ChainName {
  switch (chain.kind) {
    case 'BITCOIN':
      return 'bitcoin';
    case 'HYPERCORE':
      return 'hyperliquid';
    case 'EVM': {
      const c = chainByEvmId(chain.chainId);
      if (!c) throw new UnknownAsset(`\`${field}.chain.chainId\` ${chain.chainId} is not a supported EVM chain.`, `${field}.chain.chainId`);
      return c.name;
    }
  }
}

function tokenOf(chain: ChainName, token: WireToken, field: string): Asset {
  const onChain = ASSETS.filter((a) => a.chain === chain);
  let asset: Asset | undefined;
  if (token.kind === 'NATIVE') {
    asset = onChain.find((a) => a.native);
    if (!asset) throw new UnknownAsset(`\`${field}.token\`: ${chain} has no native coin served here.`, `${field}.token.kind`);
  } else {
    if (CHAINS[chain].kind === 'bitcoin') {
      throw new UnknownAsset(`\`${field}.token.kind\` must be NATIVE on Bitcoin, which has no tokens.`, `${field}.token.kind`);
    }
    // EVM addresses and HyperCore token ids are hex: any letter case names the same token. HYPE is native on
    // HyperCore yet has a token id, so it is found either way.
    const address = token.address.toLowerCase();
    asset = onChain.find((a) => a.address === address);
    if (!asset) throw new UnknownAsset(`\`${field}.token.address\` ${clip(token.address)} is not a token served on ${chain}.`, `${field}.token.address`);
  }
  if (token.decimals !== asset.decimals) {
    throw new UnknownAsset(`\`${field}.token.decimals\` is ${token.decimals}, but ${asset.symbol} on ${chain} has ${asset.decimals} decimals.`, `${field}.token.decimals`);
  }
  return asset;
}

/** The registry asset a (schema-valid) wire currency names. @throws UnknownAsset (400) naming the field at fault. */
export function parseCurrency(currency: WireCurrency, field: string): Asset {
  return tokenOf(chainOf(currency.chain, field), currency.token, field);
}

/** The wire currency of an asset: addresses lower case, decimals from the registry, HYPE as HyperCore's NATIVE. */
export function renderCurrency(asset: Asset): WireCurrency {
  const c = CHAINS[asset.chain];
  const chain: WireChain = c.kind === 'evm' ? { kind: 'EVM', chainId: c.evmChainId! } : c.kind === 'bitcoin' ? { kind: 'BITCOIN' } : { kind: 'HYPERCORE' };
  const token: WireToken =
    asset.native || asset.address === null ? { kind: 'NATIVE', decimals: asset.decimals } : { kind: 'TOKEN', address: asset.address.toLowerCase(), decimals: asset.decimals };
  return { chain, token };
}

/** A caller's text in a message: short and on one line. */
function clip(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f`]/g, '?');
  return flat.length > 64 ? `${flat.slice(0, 64)}…` : flat;
}
