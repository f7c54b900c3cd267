// The SQLite group commit alone: writes asked for in one turn share one transaction, each in its own savepoint; a
// write tied to a refused one is refused with its error; a busy file is waited out for busyRetryMs, then refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../src/store/group-commit.js';
import { openWalDatabase } from '../../../src/store/sqlite-open.js';
import { WriteTicket } from '../../../src/store/write-ticket.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file with a table `t (k TEXT PRIMARY KEY)`, a connection that waits `busyTimeoutMs` for a lock, and its group
 *  commit; `other` opens a second connection to the same file. */
function openFile(busyRetryMs = 1_000, busyTimeoutMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
  dirs.push(dir);
  const file = join(dir, 'store.sqlite');
  const db = openWalDatabase(file, busyTimeoutMs);
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
  const commits = new GroupCommit(db, busyRetryMs);
  const put = (k: string) => () => insert.run(k).changes;
  const keys = () => (db.prepare('SELECT k FROM t ORDER BY k').all() as Array<{ k: string }>).map((r) => r.k);
  return { db, commits, put, keys, other: () => openWalDatabase(file, 0) };
}

describe('the group commit: one transaction for the writes of one turn, one savepoint each', () => {
  it('writes asked for in one turn commit together, each answering its own value', async () => {
    const { commits, put, keys } = openFile();
    const answers = await Promise.all([commits.write(put('a')), commits.write(put('b')), commits.write(() => 42)]);
    expect(answers).toEqual([1, 1, 42]);
    expect(commits.stats()).toEqual({ commits: 1, writes: 3 });
    expect(keys()).toEqual(['a', 'b']);
  });

  it('a write that fails is rolled back alone; the others of its batch commit', async () => {
    const { commits, put, keys } = openFile();
    const failing = () => {
      put('half')();
      throw new Error('refused after writing half');
    };
    const [a, bad, b] = await Promise.allSettled([commits.write(put('a')), commits.write(failing), commits.write(put('b'))]);
    expect([a.status, bad.status, b.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(keys()).toEqual(['a', 'b']);
  });

  it('a write tied to a refused write (WriteTicket) is refused with that write\'s error and runs nothing', async () => {
    const { commits, put, keys } = openFile();
    const ticket = new WriteTicket();
    const first = commits.write(() => {
      throw new Error('version conflict');
    }, { ticket });
    const second = commits.write(put('never'), { after: ticket });
    await expect(first).rejects.toThrow('version conflict');
    await expect(second).rejects.toThrow('version conflict');
    expect(keys()).toEqual([]);
  });

  it('a write tied to another that commits runs in the same transaction', async () => {
    const { commits, put, keys } = openFile();
    const ticket = new WriteTicket();
    await Promise.all([commits.write(put('first'), { ticket }), commits.write(put('second'), { after: ticket })]);
    expect(commits.stats()).toEqual({ commits: 1, writes: 2 });
    expect(keys()).toEqual(['first', 'second']);
  });

  it('a file another connection holds is waited for, and the batch commits once it is free', async () => {
    const { commits, put, keys, other } = openFile(2_000);
    const holder = other();
    holder.exec('BEGIN IMMEDIATE');
    const writing = commits.write(put('after-wait'));
    await new Promise((r) => setTimeout(r, 50));
    expect(commits.stats().commits).toBe(0);
    holder.exec('COMMIT');
    await expect(writing).resolves.toBe(1);
    expect(keys()).toEqual(['after-wait']);
    holder.close();
  });

  it('a file busy for longer than busyRetryMs refuses the batch\'s writes with SQLITE_BUSY', async () => {
    const { commits, put, keys, other } = openFile(60);
    const holder = other();
    holder.exec('BEGIN IMMEDIATE');
    await expect(commits.write(put('x'))).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) });
    holder.exec('ROLLBACK');
    holder.close();
    expect(keys()).toEqual([]);
  });

  it('finish commits what was asked for at once, without waiting for the next turn', async () => {
    const { commits, put, keys } = openFile();
    const writing = commits.write(put('now'));
    await commits.finish();
    expect(keys()).toEqual(['now']);
    await expect(writing).resolves.toBe(1);
  });
});
