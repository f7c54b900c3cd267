// restrictSqliteFiles beside another process sharing the database: a companion file it deletes between the stat and
// the chmod (a rollback journal at each commit, -wal and -shm when the last connection closes) is no error.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

/** Paths whose chmod fails as if another process deleted the file just after it was stat'ed; others chmod as usual. */
const vanishing = new Set<string>();
/** Paths whose chmod fails with EACCES, as a file this process may not change does. */
const forbidden = new Set<string>();

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fail = (code: string, path: string) => Object.assign(new Error(`${code}: chmod '${path}'`), { code });
  return {
    ...fs,
    chmodSync: (path: string, mode: number) => {
      if (vanishing.has(path)) throw fail('ENOENT', path);
      if (forbidden.has(path)) throw fail('EACCES', path);
      fs.chmodSync(path, mode);
    },
  };
});

const { restrictSqliteFiles } = await import('../../../src/store/private-files.js');

const dir = mkdtempSync(join(tmpdir(), 'router-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  vanishing.clear();
  forbidden.clear();
});

describe('restrictSqliteFiles', () => {
  it('a companion deleted by another process between its stat and its chmod is left alone; the others become 0600', () => {
    const db = join(dir, 'shared.sqlite');
    for (const f of [db, `${db}-journal`, `${db}-wal`]) writeFileSync(f, '', { mode: 0o644 });
    vanishing.add(`${db}-journal`);
    expect(() => restrictSqliteFiles(db)).not.toThrow();
    expect(statSync(db).mode & 0o777).toBe(0o600);
    expect(statSync(`${db}-wal`).mode & 0o777).toBe(0o600);
  });

  it('any other failure of the chmod is thrown', () => {
    const db = join(dir, 'locked.sqlite');
    writeFileSync(db, '', { mode: 0o644 });
    forbidden.add(db);
    expect(() => restrictSqliteFiles(db)).toThrow(/EACCES/);
  });
});
