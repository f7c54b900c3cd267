// The seed never appears in logs, snapshots, errors or answers: every form the service can print or store is
// searched for the mnemonic (whole and any three words in a row), the seed bytes and the private keys.
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { toErrorData } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { encodeJson } from '../../../src/store/codec.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { SEED_FILE, createVaults, deriveKey, loadOrCreateSeed, parseSeed, type MasterSeed } from '../../../src/vaults/index.js';

const dir = mkdtempSync(join(tmpdir(), 'router-secrecy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every way the secret could be written out: words, runs of words, hex, base64, decimal byte lists. */
function secretForms(mnemonic: string, seedBytes: Uint8Array, keys: Uint8Array[]): string[] {
  const words = mnemonic.split(' ');
  const forms = [mnemonic, words.join(','), words.join('","')];
  for (let i = 0; i + 3 <= words.length; i++) forms.push(words.slice(i, i + 3).join(' '));
  for (const bytes of [seedBytes, ...keys]) {
    const buf = Buffer.from(bytes);
    forms.push(buf.toString('hex'), buf.toString('hex').toUpperCase(), buf.toString('base64'), Array.from(buf.subarray(0, 12)).join(','));
    forms.push(JSON.stringify(Object.fromEntries(Array.from(buf.subarray(0, 4)).entries())).slice(1, -1));
  }
  return forms;
}

/**
 * The mnemonic with its first word moved to a later place, at the first place where the checksum no longer matches.
 * Some moves keep a valid checksum by chance (1 in 256 for 24 words): such a text is another seed, not a near-miss.
 */
function oneWordMoved(words: string[]): string {
  for (let to = words.length - 1; to > 0; to--) {
    const moved = [...words.slice(1, to + 1), words[0]!, ...words.slice(to + 1)].join(' ');
    if (!validateMnemonic(moved, wordlist)) return moved;
  }
  throw new Error('every move of the first word keeps the checksum valid');
}

function expectClean(label: string, text: string, forms: string[]): void {
  for (const form of forms) {
    if (text.includes(form)) throw new Error(`${label} reveals the secret (found "${form.slice(0, 12)}…")`);
  }
}

describe('The seed never appears in logs, snapshots, errors or answers', () => {
  it('The seed never appears in logs, snapshots, errors or answers', async () => {
    let logText = '';
    const logger = createLogger('trace', new Writable({ write: (c: Buffer, _e, done) => ((logText += c.toString('utf8')), done()) }));

    // A generated seed (first start, then a restart), and a configured one that differs from the file.
    const dataDir = join(dir, 'data');
    const generated = await loadOrCreateSeed({ configured: null, dataDir, logger, allowGenerate: true });
    await loadOrCreateSeed({ configured: null, dataDir, logger, allowGenerate: true });
    const mnemonic = readFileSync(join(dataDir, SEED_FILE), 'utf8').trim();
    const configuredText = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const configured = await loadOrCreateSeed({ configured: configuredText, dataDir, logger, allowGenerate: false });

    const cases: Array<{ seed: MasterSeed; mnemonic: string }> = [
      { seed: generated, mnemonic },
      { seed: configured, mnemonic: configuredText },
    ];
    for (const { seed, mnemonic: m } of cases) {
      const storeFile = join(dir, `${seed.fingerprint}.sqlite`);
      const store = openSqliteStore(storeFile);
      const vaults = createVaults({ seed, sequences: store });
      const issued = [await vaults.issue('base'), await vaults.issue('bitcoin'), await vaults.issue('hyperliquid')];
      const keys = issued.map((v) => vaults.keyOf(v));
      const forms = secretForms(m, mnemonicToSeedSync(m), keys.map((k) => k.revealPrivateKey()));

      // Logs: the service logging the objects it holds.
      logger.info({ seed, vault: issued[0], key: keys[0], keys, vaults }, 'issued');
      logger.error({ err: new Error(`wrapped ${String(seed)}`) }, 'failure');

      // Snapshots: an order snapshot holding its vault, through the codec and the store file itself.
      await store.save({ kind: 'order', id: 'o1', snapshot: { context: { vault: issued[1], seed, key: keys[1] } }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1 });
      await store.close();
      const storeBytes = readdirSync(dir)
        .filter((f) => f.startsWith(seed.fingerprint))
        .map((f) => readFileSync(join(dir, f)).toString('latin1'))
        .join('\n');
      expectClean('the store file', storeBytes, forms);
      expectClean('a snapshot', encodeJson({ vault: issued[2], seed, keys }), forms);

      // Answers: what an order answer or a bus message could carry.
      expectClean('JSON of the vaults', JSON.stringify(issued), forms);
      expectClean('JSON of the seed', JSON.stringify({ seed }), forms);
      expectClean('JSON of the keys', JSON.stringify(keys), forms);
      expect(JSON.stringify(seed)).toBe('"[redacted]"');

      // Printing: String(), template literals, util.inspect with everything shown, spread and structuredClone.
      for (const [label, value] of [
        ['the seed', seed],
        ['a key', keys[0]!],
        ['the vaults service', vaults],
      ] as const) {
        expectClean(`inspect of ${label}`, inspect(value, { showHidden: true, depth: Infinity, getters: true }), forms);
        expectClean(`String of ${label}`, `${String(value)} ${Object.keys(value).join(',')}`, forms);
        expectClean(`spread of ${label}`, inspect({ ...value }, { showHidden: true, depth: Infinity }), forms);
      }
      expectClean('structuredClone of the seed', inspect(structuredClone(seed), { showHidden: true, depth: Infinity }), forms);
      expectClean('a signer', inspect(keys[1]!.bitcoinSigner(), { depth: Infinity }) + JSON.stringify(keys[1]!.bitcoinSigner()), forms);

      // Errors: a near-miss of the real seed (one word moved, one word dropped, hex cut short) is refused without echoing it.
      const mWords = m.split(' ');
      const seedHex = Buffer.from(mnemonicToSeedSync(m)).toString('hex');
      const nearMisses = [
        oneWordMoved(mWords),
        mWords.slice(0, -1).join(' '),
        [...mWords.slice(0, -1), `${mWords.at(-1)}x`].join(' '),
        seedHex.slice(0, -2),
        `${seedHex}0`,
      ];
      for (const text of nearMisses) {
        let caught: unknown;
        try {
          parseSeed(text);
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(Error);
        const err = caught as Error;
        expect(err.message).toContain('ROUTER_VAULT_SEED');
        const shown = [err.message, err.stack ?? '', JSON.stringify(toErrorData(err)), inspect(err, { showHidden: true, depth: Infinity })].join('\n');
        expectClean('an error', shown, forms);
        // Nor the refused text itself, a seed one typo away from the real one.
        const words = text.split(' ');
        const runs = words.length > 1 ? words.slice(0, -2).map((_, i) => words.slice(i, i + 3).join(' ')) : [text];
        expectClean('an error (the refused text)', shown, runs);
        logger.warn({ err }, 'config refused');
      }
      const badIndex = (() => {
        try {
          deriveKey(seed, 'bip44-evm', -1);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      expectClean('a derivation error', `${badIndex?.message} ${badIndex?.stack} ${JSON.stringify(toErrorData(badIndex))}`, forms);

      // The log as a whole, after everything above was logged.
      logger.flush();
      expect(logText).toContain('"msg":"issued"');
      expect(logText).toContain('[redacted]');
      expectClean('the log', logText, forms);
    }
  });
});
