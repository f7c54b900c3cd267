// The data dir is private: embedded mode creates it 0700 and its SQLite files (store and simulated ledger share
// router.sqlite, with its -wal and -shm) and the vault seed 0600, whatever the process umask.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createEmbeddedService } from '../../../src/service.js';
import { ensurePrivateDir } from '../../../src/store/private-files.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';

const root = mkdtempSync(join(tmpdir(), 'router-modes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs `fn` under `mask` (vitest runs this file in a forked process, where process.umask may be set). */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

describe('Embedded mode creates a private data dir', () => {
  // 0: the widest umask, so nothing but the code's own modes decides; 0o277: one that would narrow mkdir/open modes
  // below what the service needs, which chmod undoes.
  for (const mask of [0o000, 0o022, 0o277]) {
    it(`umask ${mask.toString(8).padStart(3, '0')}: data dir (and the parents it creates) 0700, router.sqlite and its -wal/-shm 0600, vault seed private`, async () => {
      const parent = join(root, `run${n++}`);
      const dataDir = join(parent, 'nested', 'data');
      const config = loadConfig({
        ROUTER_DATA_DIR: dataDir,
        ROUTER_LOG_LEVEL: 'silent',
        ROUTER_DEV_LISTENER: 'off',
        ROUTER_SIM_LATENCY_SCALE: '0',
        ROUTER_SIM_FAILURES: 'off',
      });
      await withUmask(mask, async () => {
        const service = await createEmbeddedService(config, { logger: createLogger('silent') });
        await service.start();
        try {
          // A write, so the WAL is in use while the files are looked at.
          await service.store.putKey('modes', 'k', 'v');
          const db = join(dataDir, 'router.sqlite');
          expect(modeOf(dataDir)).toBe(0o700);
          expect(modeOf(join(parent, 'nested'))).toBe(0o700);
          expect(modeOf(parent)).toBe(0o700);
          expect(modeOf(db)).toBe(0o600);
          for (const companion of [`${db}-wal`, `${db}-shm`]) {
            expect(existsSync(companion)).toBe(true);
            expect(modeOf(companion)).toBe(0o600);
          }
          // The seed is written through its own 0600 temp file; a narrowing umask may leave it 0400, never wider.
          expect(modeOf(join(dataDir, 'vault-seed')) & 0o077).toBe(0);
        } finally {
          await service.close();
        }
      });
    });
  }
});

describe('Store files of an earlier build are tightened on open', () => {
  it('a readable router.sqlite and -wal/-shm become 0600; an existing data dir keeps the mode its operator gave it', async () => {
    const dataDir = join(root, 'older');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const file = join(dataDir, 'router.sqlite');
    // As an older build left it: SQLite's default 0644, WAL files beside it.
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x)');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) chmodSync(f, 0o644);
    const store = openSqliteStore(file);
    try {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(f)).toBe(0o600);
      expect(modeOf(dataDir)).toBe(0o755);
      await store.putKey('a', 'b', 'c');
      expect(await store.getKey('a', 'b')).toBe('c');
    } finally {
      await store.close();
      old.close();
    }
  });

  it('an empty file made 0600 before SQLite opens it is a valid new database, and an existing database is never truncated', async () => {
    const file = join(root, 'fresh', 'router.sqlite');
    const a = openSqliteStore(file);
    await a.putKey('k', 'k', 'kept');
    await a.close();
    writeFileSync(join(root, 'fresh', 'other'), 'x');
    const b = openSqliteStore(file);
    expect(await b.getKey('k', 'k')).toBe('kept');
    await b.close();
    expect(modeOf(file)).toBe(0o600);
  });

  it('ensurePrivateDir leaves an existing directory alone', () => {
    const dir = join(root, 'existing');
    mkdirSync(dir, { mode: 0o750 });
    chmodSync(dir, 0o750);
    ensurePrivateDir(dir);
    expect(modeOf(dir)).toBe(0o750);
    ensurePrivateDir(join(dir, 'a', 'b'));
    expect(modeOf(join(dir, 'a'))).toBe(0o700);
    expect(modeOf(join(dir, 'a', 'b'))).toBe(0o700);
  });
});
