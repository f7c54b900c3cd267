// Deposit addresses and their keys, derived from the master seed: BIP-44 for EVM chains and Hyperliquid (HyperCore
// accounts are EVM addresses), BIP-84 native SegWit (P2WPKH) for Bitcoin. Changing a path orphans every issued address.
// libsecp256k1 compiled to WebAssembly: an order's creation derives its deposit address inside its store write, and a
// public key from a scalar costs about a quarter of the pure-JS @bitcoinerlab/secp256k1 (constant time in both).
import * as ecc from 'tiny-secp256k1';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { networks, payments, type Signer } from 'bitcoinjs-lib';
import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { bytesToHex, type Hex } from 'viem';
import { publicKeyToAddress } from 'viem/utils';
import { HDKey, privateKeyToAccount, privateKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { RouterError } from '../errors.js';
import { seedBytes, type MasterSeed } from './seed.js';

export type VaultScheme = 'bip44-evm' | 'bip84-p2wpkh';

/** The external-chain branch of account 0 of each scheme; the address index is the last, non-hardened level. */
export const BRANCH_PATHS: Readonly<Record<VaultScheme, string>> = {
  'bip44-evm': "m/44'/60'/0'/0",
  'bip84-p2wpkh': "m/84'/0'/0'/0",
};

/** Largest non-hardened BIP-32 child index. */
export const MAX_INDEX = 2 ** 31 - 1;

const bip32 = BIP32Factory(ecc);

interface Branches {
  evm?: HDKey;
  bitcoin?: BIP32Interface;
}
// Branch nodes hold private keys, so they live here, keyed by the seed, never on an object a caller can print.
const branches = new WeakMap<MasterSeed, Branches>();

function branchesOf(seed: MasterSeed): Branches {
  let b = branches.get(seed);
  if (!b) {
    b = {};
    branches.set(seed, b);
  }
  return b;
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new RouterError(`A vault derivation index must be an integer from 0 to ${MAX_INDEX}, got ${String(index)}.`);
  }
}

function evmNode(seed: MasterSeed, index: number): HDKey {
  checkIndex(index);
  const b = branchesOf(seed);
  b.evm ??= HDKey.fromMasterSeed(seedBytes(seed)).derive(BRANCH_PATHS['bip44-evm']);
  return b.evm.deriveChild(index);
}

/**
 * The EVM address of a non-hardened child of the branch (BIP-32 CKDpriv): IL = HMAC-SHA512(chain code, parent public
 * key ‖ index), child key = parent key + IL mod n, address from the child's uncompressed public key. One elliptic-curve
 * multiplication instead of the two that deriving an HDKey (compressed key) and then the address would cost: an order's
 * creation derives one address, inside its store write. An index whose IL is not a valid tweak (odds about 2^-127)
 * goes through HDKey, which refuses it as BIP-32 says.
 */
function evmAddress(seed: MasterSeed, index: number): string {
  checkIndex(index);
  const b = branchesOf(seed);
  b.evm ??= HDKey.fromMasterSeed(seedBytes(seed)).derive(BRANCH_PATHS['bip44-evm']);
  const { publicKey, chainCode, privateKey } = b.evm;
  if (!publicKey || !chainCode || !privateKey) throw new RouterError('HD derivation gave no branch key.');
  const data = new Uint8Array(37);
  data.set(publicKey, 0);
  new DataView(data.buffer).setUint32(33, index);
  const il = createHmac('sha512', chainCode).update(data).digest().subarray(0, 32);
  let child: Uint8Array | null = null;
  try {
    child = ecc.privateAdd(privateKey, il);
  } catch {
    child = null;
  }
  const point = child ? ecc.pointFromScalar(child, false) : null;
  if (!point) return privateKeyToAddress(privateKeyHex(evmNode(seed, index).privateKey));
  return publicKeyToAddress(bytesToHex(point));
}

function bitcoinNode(seed: MasterSeed, index: number): BIP32Interface {
  checkIndex(index);
  const b = branchesOf(seed);
  b.bitcoin ??= bip32.fromSeed(seedBytes(seed), networks.bitcoin).derivePath(BRANCH_PATHS['bip84-p2wpkh']);
  return b.bitcoin.derive(index);
}

function p2wpkhAddress(publicKey: Uint8Array): string {
  const { address } = payments.p2wpkh({ pubkey: publicKey, network: networks.bitcoin });
  if (!address) throw new RouterError('bitcoinjs-lib returned no P2WPKH address.');
  return address;
}

/** Full derivation path of an address, e.g. `m/84'/0'/0'/0/7`. */
export function derivationPath(scheme: VaultScheme, index: number): string {
  checkIndex(index);
  return `${BRANCH_PATHS[scheme]}/${index}`;
}

/** The deposit address of `index` under `scheme`: EIP-55 checksummed for EVM, bech32 `bc1q…` for Bitcoin. */
export function deriveAddress(seed: MasterSeed, scheme: VaultScheme, index: number): string {
  switch (scheme) {
    case 'bip44-evm':
      return evmAddress(seed, index);
    case 'bip84-p2wpkh':
      return p2wpkhAddress(bitcoinNode(seed, index).publicKey);
    default:
      throw new RouterError(`Unknown vault scheme ${String(scheme)}.`);
  }
}

/** The signing key of a deposit address (to sweep or spend from it later). Opaque like MasterSeed. */
export function deriveKey(seed: MasterSeed, scheme: VaultScheme, index: number): DepositKey {
  switch (scheme) {
    case 'bip44-evm': {
      const priv = evmNode(seed, index).privateKey;
      if (!priv) throw new RouterError('HD derivation gave no private key.');
      return new DepositKey(scheme, index, privateKeyToAddress(privateKeyHex(priv)), priv);
    }
    case 'bip84-p2wpkh': {
      const node = bitcoinNode(seed, index);
      if (!node.privateKey) throw new RouterError('HD derivation gave no private key.');
      return new DepositKey(scheme, index, p2wpkhAddress(node.publicKey), node.privateKey);
    }
    default:
      throw new RouterError(`Unknown vault scheme ${String(scheme)}.`);
  }
}

function privateKeyHex(priv: Uint8Array | null): Hex {
  if (!priv) throw new RouterError('HD derivation gave no private key.');
  return bytesToHex(priv);
}

/**
 * One deposit address with its private key in a private field: JSON, String() and util.inspect show the scheme,
 * index and address only. The key leaves only through the three methods below, each named for its use.
 */
export class DepositKey {
  readonly #privateKey: Uint8Array;
  readonly path: string;

  constructor(
    readonly scheme: VaultScheme,
    readonly index: number,
    readonly address: string,
    privateKey: Uint8Array,
  ) {
    this.#privateKey = Uint8Array.from(privateKey);
    this.path = derivationPath(scheme, index);
    Object.freeze(this);
  }

  /** A viem account signing transactions and messages for this EVM (or HyperCore) address. */
  evmAccount(): PrivateKeyAccount {
    if (this.scheme !== 'bip44-evm') throw new RouterError(`A ${this.scheme} key has no EVM account.`);
    return privateKeyToAccount(bytesToHex(this.#privateKey));
  }

  /** A bitcoinjs-lib Signer (for Psbt.signInput) of this P2WPKH address; a closure, so it serializes no key. */
  bitcoinSigner(): Signer {
    if (this.scheme !== 'bip84-p2wpkh') throw new RouterError(`A ${this.scheme} key has no Bitcoin signer.`);
    const node = bip32.fromPrivateKey(Uint8Array.from(this.#privateKey), new Uint8Array(32), networks.bitcoin);
    const publicKey = Uint8Array.from(node.publicKey);
    return { publicKey, sign: (hash: Uint8Array, lowR?: boolean) => node.sign(hash, lowR) };
  }

  /** A copy of the raw 32-byte private key, for a use the two methods above do not cover. Never log it. */
  revealPrivateKey(): Uint8Array {
    return Uint8Array.from(this.#privateKey);
  }

  toJSON(): { scheme: VaultScheme; index: number; path: string; address: string; privateKey: '[redacted]' } {
    return { scheme: this.scheme, index: this.index, path: this.path, address: this.address, privateKey: '[redacted]' };
  }
  toString(): string {
    return `DepositKey(${this.scheme} ${this.path} ${this.address}) [redacted]`;
  }
  [inspect.custom](): string {
    return this.toString();
  }
}
