// Special accounts of the ledgers (mint, venue pools) and the normal form of an address used for balances and matching.
import type { ChainName } from '../assets/types.js';
import type { VenueId } from '../venues/types.js';

/**
 * Where external money comes from and goes to. A transfer from it mints, a transfer to it burns; it may go
 * negative, and its balance is −(minted − burned), so the balances of one (chain, asset) always sum to zero.
 */
export const MINT_ACCOUNT = 'mint';

/** Prefix of venue liquidity pools: `pool:<venue>`. */
export const POOL_PREFIX = 'pool:';

export function poolAccount(venue: VenueId): string {
  return `${POOL_PREFIX}${venue}`;
}

export function isMintAccount(address: string): boolean {
  return address === MINT_ACCOUNT;
}

export function isPoolAccount(address: string): boolean {
  return address.startsWith(POOL_PREFIX) && address.length > POOL_PREFIX.length;
}

/**
 * Accounts that may go below zero: the mint, and pools, which stand for a venue's inventory outside our ledger
 * (a pool pays out what it never received here; its negative balance is the venue's net outflow). Every other
 * account is bounded: it can only spend what it holds.
 */
export function isUnbounded(address: string): boolean {
  return isMintAccount(address) || isPoolAccount(address);
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A 20-byte hex address, the form of every EVM account (and of HyperCore's); internal accounts never have it. */
export function isEvmAddress(address: string): boolean {
  return EVM_ADDRESS.test(address);
}
const BECH32 = /^(bc1|tb1|bcrt1)[0-9a-zA-Z]+$/i;

/**
 * The form balances are keyed and deposits matched by: EVM addresses (also HyperCore's) and Bitcoin bech32 addresses
 * are case-insensitive, so they are lower-cased; anything else (base58 Bitcoin, internal accounts) is kept as is.
 * Without this a checksummed deposit address and its lower-case spelling would be two accounts.
 */
export function accountKey(chain: ChainName, address: string): string {
  if (isEvmAddress(address)) return address.toLowerCase();
  if (chain === 'bitcoin' && BECH32.test(address)) return address.toLowerCase();
  return address;
}
