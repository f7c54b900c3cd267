// Address validation per chain (spec 2.1 ChainAddress / RawAddress): EVM and HyperCore through viem, Bitcoin mainnet
// through bitcoinjs-lib. Returns the one normalized spelling, so an order stores and compares a single form.
import * as ecc from '@bitcoinerlab/secp256k1';
import { address as btcAddress, initEccLib, networks } from 'bitcoinjs-lib';
import { getAddress, isAddress } from 'viem';
import { InvalidAddress } from '../errors.js';
import { CHAINS } from './chains.js';
import { NATIVE_EVM_ADDRESS } from './registry.js';
import type { ChainName } from './types.js';

/**
 * Checks `address` against the address format of `chain` and returns it normalized.
 * - EVM chains and hyperliquid (HyperCore accounts are EVM addresses): `0x` + 40 hex digits; all-lowercase or
 *   all-uppercase digits are taken as they are, mixed case must match its EIP-55 checksum. Returns the checksummed
 *   form. The zero address is refused: whatever is sent there is burnt.
 * - bitcoin: mainnet P2PKH (`1…`), P2SH (`3…`), P2WPKH / P2WSH (`bc1q…`) or P2TR (`bc1p…`) with a valid checksum
 *   (and, for P2TR, a valid x-only key). Testnet, regtest and future witness versions are refused. Returns bech32
 *   addresses in lower case and base58 addresses as given (base58 is case-sensitive).
 * @throws InvalidAddress (with `field`), one sentence naming the field and the chain.
 */
export function validateAddress(chain: ChainName, address: string, field: string): string {
  const refuse = (why: string) => new InvalidAddress(`\`${field}\` is not a valid address on ${chain}: ${why}.`, field);
  if (typeof address !== 'string' || address === '') throw refuse('it is empty');
  if (/\s/.test(address)) throw refuse('it contains spaces or other whitespace');
  return CHAINS[chain].kind === 'bitcoin' ? bitcoinAddress(address, refuse) : evmAddress(address, refuse);
}

type Refuse = (why: string) => InvalidAddress;

function evmAddress(address: string, refuse: Refuse): string {
  if (!isAddress(address, { strict: false })) throw refuse('expected 0x followed by 40 hexadecimal digits');
  const digits = address.slice(2);
  // viem's strict check treats all-uppercase as a (failing) checksum; EIP-55 reads it as "no checksum", like lowercase.
  const uniformCase = digits === digits.toLowerCase() || digits === digits.toUpperCase();
  if (!uniformCase && !isAddress(address, { strict: true })) {
    throw refuse('its mixed-case letters do not match the EIP-55 checksum');
  }
  const lower = address.toLowerCase();
  if (lower === NATIVE_EVM_ADDRESS) throw refuse('it is the zero address, which burns whatever is sent to it');
  return getAddress(lower);
}

let eccReady = false;
/** P2TR validation checks the output key is on the curve, which bitcoinjs-lib does through an injected library. */
function ensureEcc(): void {
  if (eccReady) return;
  initEccLib(ecc);
  eccReady = true;
}

const EXPECTED_BTC = 'expected a mainnet P2PKH (1…), P2SH (3…), SegWit (bc1q…) or Taproot (bc1p…) address';
const OTHER_NETWORK_BASE58 = new Set([networks.testnet.pubKeyHash, networks.testnet.scriptHash]);

// Bech32 caps an address at 90 characters; base58 ones are shorter. Checked first because base58 decoding is
// quadratic in the input's length, and an edge can be handed megabytes.
const MAX_BTC_ADDRESS_LENGTH = 90;

function bitcoinAddress(address: string, refuse: Refuse): string {
  if (address.length > MAX_BTC_ADDRESS_LENGTH) throw refuse(EXPECTED_BTC);
  const lower = address.toLowerCase();
  const bech32 = lower.startsWith('bc1');
  // Checked before toOutputScript, which would accept witness v2…v16 (and print a warning to the console).
  if (bech32 && !/^bc1[qp]/.test(lower)) {
    throw refuse(
      futureWitness(address)
        ? 'witness versions after Taproot (bc1z…, bc1r…, …) are not spendable today, so coins sent there could be lost'
        : EXPECTED_BTC,
    );
  }
  ensureEcc();
  try {
    btcAddress.toOutputScript(address, networks.bitcoin);
  } catch {
    throw refuse(isOtherNetwork(lower, address) ? 'it is a testnet or regtest address, and only mainnet is served' : EXPECTED_BTC);
  }
  return bech32 ? lower : address;
}

/** Whether the address is a well-formed mainnet bech32m address of witness version 2 or later. */
function futureWitness(address: string): boolean {
  try {
    const decoded = btcAddress.fromBech32(address);
    return decoded.prefix === networks.bitcoin.bech32 && decoded.version >= 2;
  } catch {
    return false;
  }
}

/** Whether the address is well formed for Bitcoin testnet, signet or regtest (decoded only, never turned into a script). */
function isOtherNetwork(lower: string, address: string): boolean {
  try {
    if (lower.startsWith('tb1') || lower.startsWith('bcrt1')) {
      const decoded = btcAddress.fromBech32(address);
      return decoded.prefix === networks.testnet.bech32 || decoded.prefix === networks.regtest.bech32;
    }
    return OTHER_NETWORK_BASE58.has(btcAddress.fromBase58Check(address).version);
  } catch {
    return false;
  }
}
