// A fresh deposit address per order on the source chain; the derivation index is allocated durably and never
// reused, across restarts and processes; vault_id is a uuid.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_NAMES, type ChainName } from '../../../src/assets/types.js';
import { RouterError } from '../../../src/errors.js';
import { roundTrip } from '../../../src/store/codec.js';
import { openSqliteStore } from '../../../src/store/index.js';
import type { AddressesAhead } from '../../../src/vaults/addresses-ahead.js';
import { createVaults, deriveAddress, parseSeed, schemeOf, type Vault } from '../../../src/vaults/index.js';

const dir = mkdtempSync(join(tmpdir(), 'router-vaults-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const seed = parseSeed(MNEMONIC);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EVM_CHAINS: ChainName[] = ['ethereum', 'base', 'arbitrum', 'robinhood', 'ink', 'hyperliquid'];

const freshFile = () => join(dir, `v${n++}.sqlite`);

function expectUnique(vaults: Vault[]): void {
  const evm = vaults.filter((v) => v.scheme === 'bip44-evm');
  const btc = vaults.filter((v) => v.scheme === 'bip84-p2wpkh');
  expect(new Set(vaults.map((v) => v.vaultId)).size).toBe(vaults.length);
  expect(new Set(evm.map((v) => v.index)).size).toBe(evm.length);
  expect(new Set(btc.map((v) => v.index)).size).toBe(btc.length);
  expect(new Set(vaults.map((v) => v.address.toLowerCase())).size).toBe(vaults.length);
}

describe('An order is bound to a fresh deposit address on the source chain', () => {
  it('issues a vault per chain with a uuid v4 vault_id, the scheme of the chain and the address at its index', async () => {
    const store = openSqliteStore(freshFile());
    const vaults = createVaults({ seed, sequences: store });
    for (const chain of CHAIN_NAMES) {
      const v = await vaults.issue(chain);
      expect(v.vaultId).toMatch(UUID_V4);
      expect(v.chain).toBe(chain);
      expect(v.scheme).toBe(chain === 'bitcoin' ? 'bip84-p2wpkh' : 'bip44-evm');
      expect(v.address).toBe(deriveAddress(seed, v.scheme, v.index));
      expect(v.address).toMatch(chain === 'bitcoin' ? /^bc1q[02-9ac-hj-np-z]{38}$/ : /^0x[0-9a-fA-F]{40}$/);
    }
    await store.close();
  });

  it('all EVM chains and Hyperliquid share one index space, so an EVM address names one vault on every chain', async () => {
    const store = openSqliteStore(freshFile());
    const vaults = createVaults({ seed, sequences: store });
    const evm = [];
    for (const chain of EVM_CHAINS) evm.push(await vaults.issue(chain));
    expect(evm.map((v) => v.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const btc = [await vaults.issue('bitcoin'), await vaults.issue('bitcoin')];
    expect(btc.map((v) => v.index)).toEqual([0, 1]);
    expect((await vaults.issue('base')).index).toBe(6);
    expect(new Set(evm.map((v) => v.address)).size).toBe(EVM_CHAINS.length);
    await store.close();
  });

  it('schemeOf refuses a chain it does not know instead of guessing an address format', () => {
    expect(() => schemeOf('solana' as ChainName)).toThrow(RouterError);
  });
});

describe('The derivation index is allocated durably and never reused, across restarts and processes', () => {
  it('two Vaults over one SQLite file, 100 issued concurrently, never hand out the same index or address', async () => {
    const file = freshFile();
    const a = openSqliteStore(file);
    const b = openSqliteStore(file);
    const va = createVaults({ seed, sequences: a });
    const vb = createVaults({ seed, sequences: b });
    const chains: ChainName[] = [...EVM_CHAINS, 'bitcoin'];
    const issued = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? va : vb).issue(chains[i % chains.length]!)));
    expectUnique(issued);
    const evmIdx = issued.filter((v) => v.scheme === 'bip44-evm').map((v) => v.index).sort((x, y) => x - y);
    expect(evmIdx).toEqual(Array.from({ length: evmIdx.length }, (_, i) => i)); // no gaps, no repeats
    await a.close();
    await b.close();
  });

  it('a reopened file carries on after the last index handed out (a restart never reuses one)', async () => {
    const file = freshFile();
    const first = openSqliteStore(file);
    const before = await Promise.all(Array.from({ length: 20 }, (_, i) => createVaults({ seed, sequences: first }).issue(i % 4 ? 'base' : 'bitcoin')));
    await first.close();
    const reopened = openSqliteStore(file);
    const vaults = createVaults({ seed, sequences: reopened });
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => vaults.issue(i % 4 ? 'arbitrum' : 'bitcoin')));
    expectUnique([...before, ...after]);
    const maxBefore = Math.max(...before.filter((v) => v.scheme === 'bip44-evm').map((v) => v.index));
    expect(Math.min(...after.filter((v) => v.scheme === 'bip44-evm').map((v) => v.index))).toBe(maxBefore + 1);
    await reopened.close();
  });

  it('two OS processes sharing the file, each issuing 100 at once, never collide', async () => {
    const file = freshFile();
    const worker = join(import.meta.dirname, 'issue-worker.ts');
    const run = () =>
      new Promise<Vault[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', worker, file, '100', 'ethereum,hyperliquid,bitcoin,base'], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Vault[]) : reject(new Error(`worker exited ${code}: ${err}`))));
        child.stdin.end(MNEMONIC);
      });
    const [p1, p2] = await Promise.all([run(), run()]);
    expect(p1).toHaveLength(100);
    expectUnique([...p1!, ...p2!]);
  });
});

describe('Indexes are never reused: a failed issue leaves a gap', () => {
  it('an issue that fails after its index was taken (the address could not be made) is not retried on that index', async () => {
    const store = openSqliteStore(freshFile());
    let failNext = false;
    const ahead: AddressesAhead = {
      take: () => {
        if (!failNext) return undefined;
        failNext = false;
        throw new Error('the derivation worker failed');
      },
      caughtUp: async () => undefined,
      close: async () => undefined,
    };
    const vaults = createVaults({ seed, sequences: store, ahead });
    const first = await vaults.issue('base');
    failNext = true;
    await expect(vaults.issue('base')).rejects.toThrow(/derivation worker failed/);
    const next = await vaults.issue('base');
    expect(next.index).toBe(first.index + 2);
    expect(next.address).toBe(deriveAddress(seed, 'bip44-evm', first.index + 2));
    await store.close();
  });
});

describe('A stored vault keeps only vaultId, chain and index; its address is re-derived', () => {
  it('addressOf and keyOf give back the issued address after a JSON round trip, and matches() detects a changed seed', async () => {
    const store = openSqliteStore(freshFile());
    const vaults = createVaults({ seed, sequences: store });
    const issued = [await vaults.issue('bitcoin'), await vaults.issue('ink'), await vaults.issue('hyperliquid')];
    for (const v of issued) {
      const stored = roundTrip({ vaultId: v.vaultId, chain: v.chain, index: v.index });
      expect(vaults.addressOf(stored)).toBe(v.address);
      expect(vaults.keyOf(stored).address).toBe(v.address);
      expect(vaults.matches(roundTrip(v))).toBe(true);
      expect(vaults.matches({ ...v, address: v.address.toUpperCase().replace(/^0X/, '0x') })).toBe(true);
      const otherSeed = createVaults({ seed: parseSeed('test test test test test test test test test test test junk'), sequences: store });
      expect(otherSeed.matches(v)).toBe(false);
    }
    await store.close();
  });
});
