// The master seed comes from ROUTER_VAULT_SEED, or in embedded mode is generated on first start into the data dir
// (file mode 0600, a warning in the log) and reused on every later start.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { SEED_FILE, deriveAddress, loadOrCreateSeed, parseSeed } from '../../../src/vaults/index.js';

const root = mkdtempSync(join(tmpdir(), 'router-seed-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const JUNK = 'test test test test test test test test test test test junk';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('trace', stream), lines };
}

const freshDir = () => join(root, `d${n++}`);

describe('Embedded mode: a seed is generated on first start into the data dir', () => {
  it('creates <dataDir>/vault-seed with mode 0600 holding a 24-word mnemonic, and warns that it must be backed up', async () => {
    const dataDir = freshDir();
    const { logger, lines } = captureLogger();
    const seed = await loadOrCreateSeed({ configured: null, dataDir, logger, allowGenerate: true });
    const file = join(dataDir, SEED_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const words = readFileSync(file, 'utf8').trim().split(' ');
    expect(words).toHaveLength(24);
    expect(parseSeed(words.join(' ')).fingerprint).toBe(seed.fingerprint);
    expect(seed.source).toBe('file');
    expect(readdirSync(dataDir)).toEqual([SEED_FILE]); // the temp file used to publish it atomically is gone

    const warning = lines.find((l) => l.level === 40);
    expect(warning).toMatchObject({ seedFingerprint: seed.fingerprint, seedFile: file, created: true });
    expect(String(warning?.msg)).toMatch(/generated vault seed.*Back this file up/);
  });

  it('reuses the file on the next start: same seed, same addresses, still a warning', async () => {
    const dataDir = freshDir();
    const first = await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true });
    const { logger, lines } = captureLogger();
    const second = await loadOrCreateSeed({ configured: null, dataDir, logger, allowGenerate: true });
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(deriveAddress(second, 'bip84-p2wpkh', 3)).toBe(deriveAddress(first, 'bip84-p2wpkh', 3));
    expect(deriveAddress(second, 'bip44-evm', 3)).toBe(deriveAddress(first, 'bip44-evm', 3));
    expect(lines.find((l) => l.level === 40)).toMatchObject({ created: false });
  });

  it('two processes starting together end with one seed (the file is never overwritten)', async () => {
    const dataDir = freshDir();
    const starts = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true })),
    );
    expect(new Set(starts.map((s) => s.fingerprint)).size).toBe(1);
    expect(readdirSync(dataDir)).toEqual([SEED_FILE]);
  });

  it('a seed file that is not a valid seed stops the start with a ConfigError naming the file', async () => {
    const dataDir = freshDir();
    await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true });
    const file = join(dataDir, SEED_FILE);
    writeFileSync(file, 'abandon abandon abandon\n');
    const err = await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(file);
  });

  it('a seed file readable by other users is used, with a warning', async () => {
    const dataDir = freshDir();
    await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true });
    chmodSync(join(dataDir, SEED_FILE), 0o644);
    const { logger, lines } = captureLogger();
    await loadOrCreateSeed({ configured: null, dataDir, logger, allowGenerate: true });
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('chmod 600'))).toBe(true);
  });
});

describe('ROUTER_VAULT_SEED: a configured seed wins', () => {
  it('is used instead of generating, and nothing is written to the data dir', async () => {
    const dataDir = freshDir();
    const { logger, lines } = captureLogger();
    const seed = await loadOrCreateSeed({ configured: ABANDON, dataDir, logger, allowGenerate: true });
    expect(seed.fingerprint).toBe('73c5da0a');
    expect(seed.source).toBe('configured');
    expect(() => statSync(dataDir)).toThrow();
    expect(lines.some((l) => l.level === 40)).toBe(false);
  });

  it('accepts a MasterSeed the config already parsed', async () => {
    const parsed = parseSeed(JUNK);
    const seed = await loadOrCreateSeed({ configured: parsed, dataDir: freshDir(), logger: captureLogger().logger, allowGenerate: false });
    expect(seed).toBe(parsed);
  });

  it('warns when it differs from a generated seed left in the data dir (addresses issued from the file would be orphaned)', async () => {
    const dataDir = freshDir();
    const generated = await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: true });
    const { logger, lines } = captureLogger();
    await loadOrCreateSeed({ configured: JUNK, dataDir, logger, allowGenerate: true });
    expect(lines.find((l) => l.level === 40)).toMatchObject({ fileFingerprint: generated.fingerprint });
  });

  it('outside embedded mode a missing seed stops the start with a ConfigError naming ROUTER_VAULT_SEED', async () => {
    const dataDir = freshDir();
    const err = await loadOrCreateSeed({ configured: null, dataDir, logger: captureLogger().logger, allowGenerate: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('ROUTER_VAULT_SEED');
    expect(() => statSync(join(dataDir, SEED_FILE))).toThrow();
  });
});

describe('An invalid ROUTER_VAULT_SEED throws a ConfigError naming ROUTER_VAULT_SEED', () => {
  const words = ABANDON.split(' ');
  const invalid: Record<string, string> = {
    'eleven words': words.slice(1).join(' '),
    'thirteen words': [...words, 'about'].join(' '),
    'a word outside the BIP-39 list': [...words.slice(0, 11), 'abandonn'].join(' '),
    'a bad checksum': [...words.slice(0, 11), 'abandon'].join(' '),
    'hex of 63 bytes': 'ab'.repeat(63),
    'hex of 65 bytes': 'ab'.repeat(65),
    'hex with a non-hex digit': `${'ab'.repeat(63)}zz`,
    'an empty value': '   ',
  };
  for (const [name, text] of Object.entries(invalid)) {
    it(`refuses ${name}, through parseSeed and loadOrCreateSeed alike`, async () => {
      expect(() => parseSeed(text)).toThrow(ConfigError);
      expect(() => parseSeed(text)).toThrow(/ROUTER_VAULT_SEED/);
      const err = await loadOrCreateSeed({ configured: text, dataDir: freshDir(), logger: captureLogger().logger, allowGenerate: true }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).code).toBe('config_invalid');
      expect((err as Error).message).toContain('ROUTER_VAULT_SEED');
    });
  }
});
