// ChainAsset (spec 2.1): reading `<chain>.<asset>` into a registry asset, and writing an asset per AmountFormat.
// The only place asset names of the wire become canonical ids; symbols never travel further into the core.
import { InvalidRequest, UnknownAsset } from '../errors.js';
import { CHAINS, chainByEvmId } from './chains.js';
import { ASSETS, NATIVE_EVM_ADDRESS, findAsset } from './registry.js';
import { CHAIN_NAMES, isChainName, type AmountFormat, type Asset, type Chain } from './types.js';

/** The pseudo-address many EVM tools (1inch, LI.FI, KyberSwap...) use for the native coin; accepted as input only. */
const EEE_NATIVE_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;
const HYPERCORE_TOKEN_ID = /^0x[0-9a-f]{32}$/;
// Chain ids in canonical decimal: no sign, no leading zero, small enough to be exact in a number.
const EVM_CHAIN_ID = /^[1-9][0-9]{0,14}$/;
// Names are short; a longer value is cut in messages so an error stays one readable line.
const MAX_ECHO = 100;

/**
 * Reads a ChainAsset: chain a name or `evm:<chain id>`, asset a symbol, a contract address (EVM: 0x + 40 hex;
 * Hyperliquid: its token id) or the native coin (`eth`, `btc`, `hype`; on EVM also the zero address and
 * 0xEeee…EEeE). Case-insensitive. The chain ends at the FIRST dot, since `evm:8453` holds no dot but an asset
 * never holds one either.
 * @throws InvalidRequest when the value is not shaped `<chain>.<asset>` (including any whitespace);
 *         UnknownAsset when the chain or the asset is not one the router serves. Both carry `field`.
 */
export function parseChainAsset(input: string, field: string): Asset {
  if (typeof input !== 'string' || /\s/.test(input)) throw malformed(field);
  const dot = input.indexOf('.');
  if (dot <= 0 || dot === input.length - 1 || input.includes('.', dot + 1)) throw malformed(field);
  const value = input.toLowerCase();
  const chain = parseChain(value.slice(0, dot));
  if (!chain) {
    throw new UnknownAsset(
      `\`${field}\` value ${echo(input)} names no supported chain; chains are ${CHAIN_NAMES.join(', ')} or evm:<chain id>.`,
      field,
    );
  }
  const asset = findOnChain(chain, value.slice(dot + 1));
  if (!asset) throw new UnknownAsset(`\`${field}\` value ${echo(input)} names no supported asset on ${chain.name}.`, field);
  return asset;
}

/**
 * Writes an asset per spec 2.1: `formatted` is `<chain name>.<symbol>` with the symbol as the registry writes it
 * (`base.USDC`, `bitcoin.BTC`); `raw` is the canonical id (`evm:8453.0x8335…`, `bitcoin.btc`, `hyperliquid.<id>`).
 * Both read back to the same asset through parseChainAsset.
 */
export function writeAsset(asset: Asset, format: AmountFormat): string {
  return format === 'raw' ? asset.id : `${asset.chain}.${asset.symbol}`;
}

function malformed(field: string): InvalidRequest {
  return new InvalidRequest(`\`${field}\` must be a ChainAsset written <chain>.<asset>, for example base.usdc.`, field);
}

function echo(input: string): string {
  return input.length <= MAX_ECHO ? input : `${input.slice(0, MAX_ECHO)}…`;
}

function parseChain(name: string): Chain | undefined {
  if (name.startsWith('evm:')) {
    const id = name.slice('evm:'.length);
    return EVM_CHAIN_ID.test(id) ? chainByEvmId(Number(id)) : undefined;
  }
  return isChainName(name) ? CHAINS[name] : undefined;
}

/** `asset` is already lower case. */
function findOnChain(chain: Chain, asset: string): Asset | undefined {
  if (chain.kind === 'evm' && EVM_ADDRESS.test(asset)) {
    const address = asset === EEE_NATIVE_ADDRESS ? NATIVE_EVM_ADDRESS : asset;
    return ASSETS.find((a) => a.chain === chain.name && (address === NATIVE_EVM_ADDRESS ? a.native : a.address === address));
  }
  if (chain.kind === 'hyperliquid' && HYPERCORE_TOKEN_ID.test(asset)) {
    return ASSETS.find((a) => a.chain === chain.name && a.address === asset);
  }
  // `eth` / `btc` / `hype` are the native symbols of their chains, so the symbol lookup covers them.
  return findAsset(chain.name, asset);
}
