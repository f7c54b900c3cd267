// The master seed every deposit address derives from: parsed from ROUTER_VAULT_SEED, or (embedded mode) read from
// or generated into `<dataDir>/vault-seed`. A MasterSeed is opaque: no JSON, string or inspect form shows the secret.
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, open, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import { HDKey, generateMnemonic } from 'viem/accounts';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { ensurePrivateDir } from '../store/private-files.js';

/** The config variable holding the seed; every error about a configured seed names it. */
export const SEED_VARIABLE = 'ROUTER_VAULT_SEED';
/** File name of the generated seed inside the data dir. */
export const SEED_FILE = 'vault-seed';

export type SeedSource = 'configured' | 'generated' | 'file';

const REDACTED = '[redacted]';
let revealBytes: (seed: MasterSeed) => Uint8Array;

/**
 * The 64-byte BIP-39 seed (the PBKDF2 output of a mnemonic, or given as hex). The bytes sit in a private field,
 * so JSON.stringify, String(), util.inspect, structuredClone and spreading never reach them; only this folder's
 * derivation reads them, through `seedBytes`.
 */
export class MasterSeed {
  readonly #bytes: Uint8Array;
  /** Public BIP-32 master key fingerprint (8 hex digits): names a seed in logs and checks without revealing it. */
  readonly fingerprint: string;
  readonly source: SeedSource;

  constructor(bytes: Uint8Array, source: SeedSource) {
    if (bytes.length !== 64) throw new ConfigError('A vault seed must be 64 bytes.');
    this.#bytes = Uint8Array.from(bytes);
    this.fingerprint = HDKey.fromMasterSeed(this.#bytes).fingerprint.toString(16).padStart(8, '0');
    this.source = source;
    Object.freeze(this);
  }

  static {
    revealBytes = (seed) => seed.#bytes;
  }

  toJSON(): string {
    return REDACTED;
  }
  toString(): string {
    return `MasterSeed(${this.fingerprint}) ${REDACTED}`;
  }
  [inspect.custom](): string {
    return this.toString();
  }
}

/** The seed bytes, for derive.ts only (not exported from the folder's index). */
export function seedBytes(seed: MasterSeed): Uint8Array {
  return revealBytes(seed);
}

const HEX_SEED = /^(0x)?[0-9a-f]{128}$/i;

/**
 * Parses a seed as ROUTER_VAULT_SEED accepts it: a BIP-39 English mnemonic of 12 or 24 words (checksum checked;
 * no passphrase), or the 64-byte BIP-39 seed as 128 hex digits (optional 0x). Throws ConfigError naming `source`;
 * the message never repeats the value or any of its words, since a near-miss word would still leak the seed.
 */
export function parseSeed(text: string, source: string = SEED_VARIABLE, as: SeedSource = 'configured'): MasterSeed {
  const trimmed = text.trim();
  if (HEX_SEED.test(trimmed)) {
    return new MasterSeed(Uint8Array.from(Buffer.from(trimmed.replace(/^0x/i, ''), 'hex')), as);
  }
  const words = trimmed.normalize('NFKD').toLowerCase().split(/\s+/).filter((w) => w !== '');
  const rule = `${source} must be a BIP-39 English mnemonic of 12 or 24 words, or a 64-byte seed as 128 hex digits`;
  if (words.length !== 12 && words.length !== 24) {
    throw new ConfigError(`${rule}; it has ${words.length} word${words.length === 1 ? '' : 's'} (value not shown).`);
  }
  const unknown = words.filter((w) => !wordlist.includes(w)).length;
  if (unknown > 0) {
    throw new ConfigError(`${rule}; ${unknown} of its words are not in the BIP-39 English list (value not shown).`);
  }
  const mnemonic = words.join(' ');
  if (!validateMnemonic(mnemonic, wordlist)) {
    throw new ConfigError(`${rule}; its checksum does not match, a word is wrong or out of place (value not shown).`);
  }
  return new MasterSeed(mnemonicToSeedSync(mnemonic), as);
}

export interface LoadSeedOptions {
  /** ROUTER_VAULT_SEED: its text, or the MasterSeed the config already parsed with `parseSeed`; null when unset. */
  configured: string | MasterSeed | null;
  dataDir: string;
  logger: Logger;
  /** Embedded mode: without a configured seed, read or generate `<dataDir>/vault-seed`. */
  allowGenerate: boolean;
}

/** The refusal of a process outside embedded mode that has no configured seed. */
export function missingSeed(): ConfigError {
  return new ConfigError(`${SEED_VARIABLE} is required outside embedded mode: every process must derive deposit addresses from one seed.`);
}

/**
 * The seed of this process. A configured seed wins; otherwise, in embedded mode, the seed file, generated on the
 * first start. Outside embedded mode a missing seed stops the start: processes that share a store must share one
 * seed, and a per-host file would hand out addresses nobody else can derive.
 */
export async function loadOrCreateSeed(opts: LoadSeedOptions): Promise<MasterSeed> {
  const file = join(opts.dataDir, SEED_FILE);
  if (opts.configured !== null) {
    const seed = typeof opts.configured === 'string' ? parseSeed(opts.configured) : opts.configured;
    opts.logger.info({ seedFingerprint: seed.fingerprint }, `Vault seed taken from ${SEED_VARIABLE}.`);
    await warnIfFileDiffers(file, seed, opts.logger);
    return seed;
  }
  if (!opts.allowGenerate) throw missingSeed();
  let seed = await readSeedFile(file, opts.logger);
  let created = false;
  if (!seed) {
    ensurePrivateDir(opts.dataDir);
    created = await writeSeedFile(file, generateMnemonic(wordlist, 256));
    // Read back what is on disk: when another process won the race to create the file, its seed is the one.
    seed = await readSeedFile(file, opts.logger);
    if (!seed) throw new ConfigError(`The vault seed file ${file} could not be read back after it was written.`);
  }
  opts.logger.warn(
    { seedFingerprint: seed.fingerprint, seedFile: file, created },
    `A generated vault seed is in use (${file}). Back this file up now: every deposit address derives from it, and funds sent to them are lost without it. Set ${SEED_VARIABLE} to use a seed of your own.`,
  );
  return seed;
}

async function readSeedFile(file: string, logger: Logger): Promise<MasterSeed | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`The vault seed file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  const seed = parseSeed(text, `The vault seed file ${file} (restore it from its backup, or set ${SEED_VARIABLE})`, 'file');
  const { mode } = await stat(file);
  if ((mode & 0o077) !== 0) {
    logger.warn({ seedFile: file, mode: (mode & 0o777).toString(8) }, `The vault seed file ${file} is readable by other users; chmod 600 it.`);
  }
  return seed;
}

/**
 * Publishes the file atomically: a private temp file (0600, exclusive create) is written and fsynced, then
 * hard-linked to its final name. link() fails when the name exists, so two processes starting together never
 * overwrite each other, and a reader never sees a half-written seed. Returns false when another process won.
 */
async function writeSeedFile(file: string, mnemonic: string): Promise<boolean> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${mnemonic}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, file);
    await syncDir(dirname(file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

/** Makes the new directory entry durable, so a crash right after the first start cannot lose the seed. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, fsConstants.O_RDONLY).catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some platforms (Windows, some network filesystems) cannot fsync a directory; the file itself is synced.
  } finally {
    await handle.close();
  }
}

/** A configured seed that differs from a seed file left in the data dir: addresses issued from the file are orphaned. */
async function warnIfFileDiffers(file: string, seed: MasterSeed, logger: Logger): Promise<void> {
  let onDisk: MasterSeed | null;
  try {
    onDisk = await readSeedFile(file, logger);
  } catch {
    onDisk = null;
  }
  if (onDisk && onDisk.fingerprint !== seed.fingerprint) {
    logger.warn(
      { seedFingerprint: seed.fingerprint, fileFingerprint: onDisk.fingerprint, seedFile: file },
      `${SEED_VARIABLE} differs from the generated seed in ${file}; deposit addresses issued from that file are no longer derived. Keep the file if any of them may still receive funds.`,
    );
  }
}
