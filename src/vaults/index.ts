// Public names of the vaults module: the master seed, HD derivation of deposit addresses and keys, vault issuing.
export { MasterSeed, SEED_FILE, SEED_VARIABLE, loadOrCreateSeed, missingSeed, parseSeed } from './seed.js';
export type { LoadSeedOptions, SeedSource } from './seed.js';
export { BRANCH_PATHS, DepositKey, MAX_INDEX, derivationPath, deriveAddress, deriveKey } from './derive.js';
export type { VaultScheme } from './derive.js';
export { deriveAddressesAhead } from './addresses-ahead.js';
export type { AddressesAhead } from './addresses-ahead.js';
export { SEQUENCE_OF, createVaults, schemeOf } from './vaults.js';
export type { SequenceSource, Vault, Vaults, VaultsDeps } from './vaults.js';
export { VAULT_DIRECTORY_SPACE, createVaultDirectory, directoryEntry, recordingVaults } from './directory.js';
export type { VaultDirectory } from './directory.js';
