// Opening the shared SQLite file while another process writes to it: the store and the simulated chains (which share
// one file, and a local cluster's processes share it too) both wait for the write, then switch the file to WAL.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChainAsset } from '../../../src/assets/index.js';
import { openSimChains } from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'router-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Holds the write lock of `file` from another process for `ms`; resolves once it is held, with the process's end. */
async function writerHolding(file: string, ms: number): Promise<{ exited: Promise<number | null> }> {
  const writer = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'hold-write-worker.ts'), file, String(ms)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => writer.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    writer.stdout.on('data', (c: Buffer) => c.toString().includes('held') && resolve());
    writer.on('error', reject);
  });
  return { exited };
}

/** A database file in rollback-journal mode, as a build before WAL or another tool left it. */
function rollbackFile(name: string): string {
  const file = join(dir, name);
  const db = new Database(file);
  db.exec('CREATE TABLE other (x)');
  db.close();
  return file;
}

const journalMode = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('journal_mode', { simple: true });
  } finally {
    db.close();
  }
};

// Switching to WAL reads the file's header, then upgrades that read to a write; SQLite answers the upgrade busy at
// once while another process holds the write lock (waiting could deadlock two upgraders), so the opener waits itself.
describe('opening a file another process is writing to', () => {
  it('the store waits for the write to end, switches the file to WAL and saves', async () => {
    const file = rollbackFile('store.sqlite');
    const { exited } = await writerHolding(file, 300);
    const store = openSqliteStore(file);
    await store.save({ kind: 'quote', id: 'q', snapshot: {}, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1, status: 'quoted' });
    expect(await store.load('quote', 'q')).toMatchObject({ version: 1 });
    await store.close();
    expect(await exited).toBe(0);
    expect(journalMode(file)).toBe('wal');
  });

  it('the simulated chains wait for the write to end, switch the file to WAL and take a transfer', async () => {
    const file = rollbackFile('chains.sqlite');
    const { exited } = await writerHolding(file, 300);
    const chains = openSimChains({ file, clock: new ManualClock(), pollMs: 0 });
    const usdc = parseChainAsset('base.usdc', 'asset').id;
    const to = '0x00000000000000000000000000000000000000b0';
    await chains.simulateDeposit({ chain: 'base', asset: usdc, from: '0x00000000000000000000000000000000000000a0', to, amount: 5n });
    expect(await chains.balanceOf('base', to, usdc)).toBe(5n);
    await chains.close();
    expect(await exited).toBe(0);
    expect(journalMode(file)).toBe('wal');
  });
});
