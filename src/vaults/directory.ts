// Which derivation index an issued deposit address has, kept durably, so a process that must sign for the address
// (a send from it on a real chain) finds its key from the address alone: the chain adapters see addresses, not vaults.
// The index is written before `issue` answers, so no address is shown whose key cannot be found again.
import { bytesToHex, type Hex } from 'viem';
import type { ActorStore, KeyEntry } from '../store/types.js';
import { deriveKey, type VaultScheme } from './derive.js';
import type { MasterSeed } from './seed.js';
import type { Vault, Vaults } from './vaults.js';

export const VAULT_DIRECTORY_SPACE = 'vault-address';

export interface VaultDirectory {
  /** Remembers a vault's address → index (idempotent). */
  record(vault: Pick<Vault, 'scheme' | 'index' | 'address'>): Promise<void>;
  /** The derivation index of an issued address, or null for an address no vault of this store issued. */
  indexOf(scheme: VaultScheme, address: string): Promise<number | null>;
  /** The private key of an issued EVM deposit address (0x hex), or null. Never log it. */
  evmKeyOf(address: string): Promise<Hex | null>;
}

// EVM and bech32 addresses are case-insensitive; the directory is keyed by the lower-case form.
const entryKey = (scheme: VaultScheme, address: string) => `${scheme}:${address.toLowerCase()}`;

/** The directory's entry of a vault, for a store write that saves it with the snapshot showing the address. */
export function directoryEntry(vault: Pick<Vault, 'scheme' | 'index' | 'address'>): KeyEntry {
  return { space: VAULT_DIRECTORY_SPACE, key: entryKey(vault.scheme, vault.address), value: String(vault.index) };
}

export function createVaultDirectory(deps: { seed: MasterSeed; store: Pick<ActorStore, 'getKey' | 'putKey'> }): VaultDirectory {
  const { seed, store } = deps;
  const directory: VaultDirectory = {
    async record(vault) {
      const e = directoryEntry(vault);
      await store.putKey(e.space, e.key, e.value);
    },
    async indexOf(scheme, address) {
      const raw = await store.getKey(VAULT_DIRECTORY_SPACE, entryKey(scheme, address));
      return raw === null ? null : Number(raw);
    },
    async evmKeyOf(address) {
      const index = await directory.indexOf('bip44-evm', address);
      if (index === null) return null;
      const key = deriveKey(seed, 'bip44-evm', index);
      // A seed changed under the store derives another address at that index: no key for this one.
      if (key.address.toLowerCase() !== address.toLowerCase()) return null;
      return bytesToHex(key.revealPrivateKey());
    },
  };
  return directory;
}

/** The same vaults, each issued address recorded in the directory before it is handed out. */
export function recordingVaults(vaults: Vaults, directory: VaultDirectory): Vaults {
  return {
    ...vaults,
    async issue(chain) {
      const v = await vaults.issue(chain);
      await directory.record(v);
      return v;
    },
  };
}
