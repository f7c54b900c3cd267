// Issues deposit vaults: a fresh derivation index from a durable counter, the address derived at that index.
// Indexes come from the store, never from memory, so no restart or second process can hand one out twice.
import { randomUUID } from 'node:crypto';
import { CHAINS } from '../assets/chains.js';
import type { ChainName } from '../assets/types.js';
import { RouterError } from '../errors.js';
import type { AddressesAhead } from './addresses-ahead.js';
import { deriveAddress, deriveKey, type DepositKey, type VaultScheme } from './derive.js';
import type { MasterSeed } from './seed.js';

export interface Vault {
  /** uuid v4: the order's `vault_id`. */
  vaultId: string;
  chain: ChainName;
  scheme: VaultScheme;
  index: number;
  /** The deposit address on `chain`. */
  address: string;
}

/** The part of the store port the vaults need (ActorStore has it). */
export interface SequenceSource {
  nextSequence(name: string): Promise<number>;
}

export interface VaultsDeps {
  seed: MasterSeed;
  sequences: SequenceSource;
  /** Addresses derived ahead on a worker thread; without it (or on a miss) `at` derives on the caller's thread. */
  ahead?: AddressesAhead;
}

export interface Vaults {
  /** A new vault on `chain`, at an index never handed out before by any process sharing the store. */
  issue(chain: ChainName): Promise<Vault>;
  /** The durable counter `issue` takes the index from (one per scheme, see SEQUENCE_OF). */
  sequenceOf(chain: ChainName): string;
  /** The vault at an index already taken from `sequenceOf(chain)` (by a store operation that takes it together with
   *  the writes that show the vault); a fresh vault id. Pure apart from the id. */
  at(chain: ChainName, index: number): Vault;
  /** Re-derives the address of a stored vault (snapshots keep chain and index; the address follows). */
  addressOf(vault: Pick<Vault, 'chain' | 'index'>): string;
  /** The signing key of a stored vault's address (to sweep, refund or execute from it later). */
  keyOf(vault: Pick<Vault, 'chain' | 'index'>): DepositKey;
  /** Whether a stored vault's address is the one this seed derives: false means the seed changed under it. */
  matches(vault: Pick<Vault, 'chain' | 'index' | 'address'>): boolean;
}

/**
 * One index space per scheme, not per chain: every EVM chain and Hyperliquid share `vault:evm`, so an EVM address
 * belongs to exactly one vault across all chains, and a deposit on the wrong EVM chain still names its order.
 */
export const SEQUENCE_OF: Readonly<Record<VaultScheme, string>> = {
  'bip44-evm': 'vault:evm',
  'bip84-p2wpkh': 'vault:bitcoin',
};

export function schemeOf(chain: ChainName): VaultScheme {
  const kind = CHAINS[chain]?.kind;
  switch (kind) {
    case 'evm':
    case 'hyperliquid':
      return 'bip44-evm';
    case 'bitcoin':
      return 'bip84-p2wpkh';
    default:
      throw new RouterError(`No vault scheme for chain ${String(chain)}.`);
  }
}

export function createVaults(deps: VaultsDeps): Vaults {
  const { seed, sequences, ahead } = deps;
  const addressOf = (vault: Pick<Vault, 'chain' | 'index'>): string => deriveAddress(seed, schemeOf(vault.chain), vault.index);
  const sequenceOf = (chain: ChainName): string => SEQUENCE_OF[schemeOf(chain)];
  const at = (chain: ChainName, index: number): Vault => {
    const scheme = schemeOf(chain);
    // deriveAddress rejects an index past 2^31-1: the space is spent, and wrapping would reuse addresses.
    return { vaultId: randomUUID(), chain, scheme, index, address: ahead?.take(scheme, index) ?? deriveAddress(seed, scheme, index) };
  };
  return {
    async issue(chain) {
      return at(chain, await sequences.nextSequence(sequenceOf(chain)));
    },
    sequenceOf,
    at,
    addressOf,
    keyOf(vault) {
      return deriveKey(seed, schemeOf(vault.chain), vault.index);
    },
    matches(vault) {
      // Both EIP-55 and bech32 are case-insensitive encodings of the same bytes.
      return addressOf(vault).toLowerCase() === vault.address.toLowerCase();
    },
  };
}
