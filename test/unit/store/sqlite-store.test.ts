// The SQLite adapter against the store contract, on a fresh file per test, plus what only a file can show.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotConflict } from '../../../src/errors.js';
import { listOrdersQuery, openSqliteStore } from '../../../src/store/sqlite-store.js';
import { WriteTicket } from '../../../src/store/write-ticket.js';
import type { OrderQuery } from '../../../src/store/types.js';
import { orderIndex, settledSummary } from './order-fixtures.js';
import { storeContract } from './store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeContract('SQLite', async () => openSqliteStore(join(dir, `s${n++}.sqlite`)));

describe('SQLite store: what was saved survives closing and reopening the file', () => {
  it('reopens with the same snapshot and version', async () => {
    const file = join(dir, 'reopen.sqlite');
    const a = openSqliteStore(file);
    expect(await a.nextSequence('vault:evm')).toBe(0);
    await a.save({ kind: 'order', id: 'x', snapshot: { amount: 5n }, expectedVersion: 0, epoch: 0, wakeAt: 10, updatedAt: 1 });
    await a.close();
    const b = openSqliteStore(file);
    await a.close().catch(() => {});
    expect(await b.load('order', 'x')).toMatchObject({ version: 1, snapshot: { amount: 5n }, wakeAt: 10 });
    expect(await b.nextSequence('vault:evm')).toBe(1);
    await b.close();
  });
});

describe('SQLite store: a file written before shards, statuses and the order index keeps working', () => {
  // The first schema, as files of the earliest builds were created.
  const OLD_SCHEMA = `
    CREATE TABLE actors (
      kind TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, epoch INTEGER NOT NULL, snapshot TEXT NOT NULL,
      wake_at INTEGER, updated_at INTEGER NOT NULL, PRIMARY KEY (kind, id)
    );
    CREATE TABLE keyed (space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (space, key));
    CREATE TABLE sequences (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
    CREATE INDEX actors_wake_at ON actors (wake_at) WHERE wake_at IS NOT NULL;
  `;

  it('opens, gains the new columns, and its actors, keys and sequences are all still there', async () => {
    const file = join(dir, 'old-schema.sqlite');
    const old = new Database(file);
    old.exec(OLD_SCHEMA);
    old.prepare('INSERT INTO actors VALUES (?, ?, ?, ?, ?, ?, ?)').run('order', 'o1', 3, 2, '{"amount":{"$bigint":"7"}}', 500, 9);
    old.prepare('INSERT INTO actors VALUES (?, ?, ?, ?, ?, ?, ?)').run('quote', 'q1', 1, 0, '{"v":1}', null, 4);
    old.prepare('INSERT INTO keyed VALUES (?, ?, ?)').run('deposit', '0xabc', 'o1');
    old.prepare('INSERT INTO sequences VALUES (?, ?)').run('vault:evm', 4);
    // Indexes under the names of an earlier build's sender and refund indexes (which also held orders without one);
    // they are dropped by name, whatever they index.
    old.exec('CREATE INDEX orders_sender ON actors (updated_at, id); CREATE INDEX orders_refund_list_status ON actors (updated_at)');
    old.close();

    const store = openSqliteStore(file);
    expect(await store.load('order', 'o1')).toEqual({
      kind: 'order',
      id: 'o1',
      version: 3,
      epoch: 2,
      snapshot: { amount: 7n },
      wakeAt: 500,
      updatedAt: 9,
      shard: 0,
      status: null,
      history: [],
    });
    expect((await store.load('quote', 'q1'))!.snapshot).toEqual({ v: 1 });
    expect(await store.getKey('deposit', '0xabc')).toBe('o1');
    expect(await store.nextSequence('vault:evm')).toBe(4);
    expect(await store.due(1000, 10, [0])).toEqual([{ kind: 'order', id: 'o1', wakeAt: 500 }]);
    expect(await store.counts()).toEqual([
      { kind: 'order', status: null, count: 1 },
      { kind: 'quote', status: null, count: 1 },
    ]);
    expect(await store.listOrders({ limit: 10 })).toEqual([]);
    // An old actor moves on with the new fields.
    const index = orderIndex({ destination: '0xd', createdAt: 8 });
    expect(
      await store.save({ kind: 'order', id: 'o1', snapshot: {}, expectedVersion: 3, epoch: 2, wakeAt: null, updatedAt: 10, shard: 5, status: 'funded', history: [{ status: 'funded', at: 10 }], index }),
    ).toBe(4);
    expect(await store.listOrders({ limit: 10 })).toEqual([{ id: 'o1', status: 'funded', updatedAt: 10, ...index }]);
    await store.close();

    // Opening again changes nothing more (the migration is idempotent).
    const again = openSqliteStore(file);
    expect(await again.load('order', 'o1')).toMatchObject({ version: 4, shard: 5, status: 'funded' });
    await again.close();
    const check = new Database(file, { readonly: true });
    const columns = check.prepare<[], { name: string }>('PRAGMA table_info(actors)').all().map((c) => c.name);
    const indexes = check.prepare<[], { name: string }>("PRAGMA index_list(actors)").all().map((i) => i.name);
    // The timer index of the old schema ordered by wake_at alone; it is replaced by one ending in (kind, id).
    const plan = check
      .prepare<[number, number], { detail: string }>(
        'EXPLAIN QUERY PLAN SELECT kind, id, wake_at FROM actors WHERE wake_at IS NOT NULL AND wake_at <= ? ORDER BY wake_at, kind, id LIMIT ?',
      )
      .all(1, 1)
      .map((r) => r.detail);
    check.close();
    expect(columns).toEqual([
      'kind', 'id', 'version', 'epoch', 'snapshot', 'wake_at', 'updated_at',
      'shard', 'status', 'history', 'sender', 'destination', 'refund', 'order_type', 'created_at', 'list_status', 'summary',
    ]);
    expect(indexes).toContain('actors_due');
    expect(indexes).toContain('actors_shard_due');
    for (const name of ['orders_list_status', 'orders_destination_list_status', 'orders_by_sender_list_status', 'orders_by_refund_list_status']) {
      expect(indexes).toContain(name);
    }
    expect(indexes).not.toContain('actors_wake_at');
    expect(indexes).not.toContain('orders_sender');
    expect(indexes).not.toContain('orders_refund_list_status');
    expect(indexes).toContain('orders_by_sender');
    expect(plan.join('\n')).toMatch(/USING COVERING INDEX actors_due/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
  });

  it('several processes opening one old file at once all come up and all write (columns are added once, under the write lock)', async () => {
    const file = join(dir, 'old-schema-shared.sqlite');
    const old = new Database(file);
    old.exec(OLD_SCHEMA);
    old.close();
    const worker = join(import.meta.dirname, 'open-worker.ts');
    const run = (id: string) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', worker, file, id], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}: ${err}`))));
      });
    await Promise.all(['p1', 'p2', 'p3', 'p4'].map(run));
    const store = openSqliteStore(file);
    expect((await store.list({ kind: 'quote', limit: 10 })).map((s) => [s.id, s.status])).toEqual([
      ['p1', 'quoted'],
      ['p2', 'quoted'],
      ['p3', 'quoted'],
      ['p4', 'quoted'],
    ]);
    await store.close();
  });
});

describe('SQLite store: orders indexed before the list status and summary', () => {
  // The schema of the build before list_status and summary: the order index without them.
  const INDEXED_SCHEMA = `
    CREATE TABLE actors (
      kind TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, epoch INTEGER NOT NULL, snapshot TEXT NOT NULL,
      wake_at INTEGER, updated_at INTEGER NOT NULL, shard INTEGER NOT NULL DEFAULT 0, status TEXT,
      history TEXT NOT NULL DEFAULT '[]', sender TEXT, destination TEXT, refund TEXT, order_type TEXT, created_at INTEGER,
      PRIMARY KEY (kind, id)
    );
    CREATE TABLE keyed (space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (space, key));
    CREATE TABLE sequences (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
  `;

  it('stay out of listOrders (no summary to show) until a save writes their index again; a save without one keeps them out', async () => {
    const file = join(dir, 'indexed-schema.sqlite');
    const old = new Database(file);
    old.exec(INDEXED_SCHEMA);
    old
      .prepare(
        `INSERT INTO actors (kind, id, version, epoch, snapshot, wake_at, updated_at, status, sender, destination, refund, order_type, created_at)
         VALUES ('order', 'old', 2, 0, '{}', NULL, 5, 'funded', '0xs', '0xd', NULL, 'market', 50)`,
      )
      .run();
    old.close();

    const store = openSqliteStore(file);
    await store.save({ kind: 'order', id: 'new', snapshot: {}, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 6, index: orderIndex({ createdAt: 60, destination: '0xd' }) });
    expect((await store.listOrders({ limit: 10 })).map((r) => r.id)).toEqual(['new']);
    expect((await store.listOrders({ limit: 10, destination: '0xd' })).map((r) => r.id)).toEqual(['new']);
    expect(await store.listOrders({ limit: 10, listStatus: 'settled' })).toEqual([]);
    // A save leaving out the index keeps the stored columns as they are: still listed nowhere, filter columns intact.
    expect(await store.save({ kind: 'order', id: 'old', snapshot: {}, expectedVersion: 2, epoch: 0, wakeAt: null, updatedAt: 7 })).toBe(3);
    expect((await store.listOrders({ limit: 10 })).map((r) => r.id)).toEqual(['new']);
    const settled = settledSummary();
    await store.save({
      kind: 'order', id: 'old', snapshot: {}, expectedVersion: 3, epoch: 0, wakeAt: null, updatedAt: 8,
      index: orderIndex({ createdAt: 50, sender: '0xs', destination: '0xd', listStatus: 'settled', summary: settled }),
    });
    expect((await store.listOrders({ limit: 10, destination: '0xd' })).map((r) => r.id)).toEqual(['new', 'old']);
    expect(await store.listOrders({ limit: 10, listStatus: 'settled' })).toMatchObject([{ id: 'old', summary: settled }]);
    await store.close();
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT sender, destination, list_status FROM actors WHERE id = 'old'").get()).toEqual({
      sender: '0xs',
      destination: '0xd',
      list_status: 'settled',
    });
    check.close();
  });
});

describe('SQLite store: listOrders walks an index in list order, never sorting the orders', () => {
  // EXPLAIN QUERY PLAN of the very statement listOrders prepares for a query.
  const plan = (db: Database.Database, q: OrderQuery) => {
    const { sql, args } = listOrdersQuery(q);
    return db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...args, q.limit)
      .map((r) => (r as { detail: string }).detail)
      .join('\n');
  };

  it('the list status alone uses (list_status, created_at, id); beside an address, (address, list_status, created_at, id)', async () => {
    const file = join(dir, 'plans.sqlite');
    const store = openSqliteStore(file);
    for (let i = 0; i < 20; i++) {
      await store.save({
        kind: 'order', id: `o${i}`, snapshot: {}, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1,
        index: orderIndex({ createdAt: i, destination: `0xd${i % 3}`, sender: `0xs${i % 4}`, listStatus: i % 2 ? 'settled' : 'unfilled' }),
      });
    }
    expect((await store.listOrders({ limit: 100, listStatus: 'settled', destination: '0xd1' })).map((r) => r.id)).toEqual([
      'o19', 'o13', 'o7', 'o1',
    ]);
    await store.close();
    const db = new Database(file, { readonly: true });
    const after = { createdAt: 10, id: 'o10' };
    const cases: Array<[q: OrderQuery, index: string]> = [
      [{ limit: 100 }, 'orders_created'],
      [{ limit: 100, listStatus: 'settled' }, 'orders_list_status'],
      [{ limit: 100, listStatus: 'settled', after }, 'orders_list_status'],
      [{ limit: 100, listStatus: 'settled', orderType: 'market' }, 'orders_list_status'],
      [{ limit: 100, listStatus: 'settled', destination: '0xd1' }, 'orders_destination_list_status'],
      [{ limit: 100, listStatus: 'settled', sender: '0xs1', after }, 'orders_by_sender_list_status'],
      [{ limit: 100, listStatus: 'settled', refund: '0xr' }, 'orders_by_refund_list_status'],
      [{ limit: 100, listStatus: 'failed', destination: '0xd1', orderType: 'market', after }, 'orders_destination_list_status'],
      [{ limit: 100, destination: '0xd1', after }, 'orders_destination'],
      [{ limit: 100, sender: '0xs1' }, 'orders_by_sender'],
      [{ limit: 100, refund: '0xr', after }, 'orders_by_refund'],
    ];
    for (const [q, index] of cases) {
      const p = plan(db, q);
      expect(p, JSON.stringify(q)).toMatch(new RegExp(`USING INDEX ${index}\\b`));
      expect(p, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });
});

/** A store on a fresh file whose write lock another connection holds (BEGIN IMMEDIATE); busyTimeoutMs 0: SQLite answers
 *  busy at once, as it sometimes does under load before its busy_timeout. */
function lockedFile(name: string, busyRetryMs?: number) {
  const file = join(dir, name);
  const store = openSqliteStore(file, { busyTimeoutMs: 0, ...(busyRetryMs === undefined ? {} : { busyRetryMs }) });
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  return { store, other };
}

const newOrder = { kind: 'order' as const, epoch: 0, wakeAt: null, updatedAt: 1, expectedVersion: 0 };

describe('SQLite store: group commit (concurrent writes share one transaction, each checked on its own)', () => {
  it('writes asked for together cost one commit; a refused compare-and-set fails only its own save', async () => {
    const store = openSqliteStore(':memory:');
    const base = { kind: 'order' as const, epoch: 0, wakeAt: null, updatedAt: 1 };
    await store.save({ ...base, id: 'taken', snapshot: { n: 1 }, expectedVersion: 0 });
    const before = store.stats();
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => store.save({ ...base, id: `o${i}`, snapshot: { i }, expectedVersion: 0 })),
      store.save({ ...base, id: 'taken', snapshot: { n: 2 }, expectedVersion: 0, keys: [{ space: 's', key: 'refused', value: 'x' }] }),
      store.nextSequence('seq'),
      store.putKey('s', 'k', 'v'),
    ]);
    const after = store.stats();
    expect({ commits: after.commits - before.commits, writes: after.writes - before.writes }).toEqual({ commits: 1, writes: 13 });
    expect(results.slice(0, 10).every((r) => r.status === 'fulfilled' && r.value === 1)).toBe(true);
    expect(results[10]).toMatchObject({ status: 'rejected', reason: expect.any(SnapshotConflict) });
    for (let i = 0; i < 10; i++) expect((await store.load('order', `o${i}`))!.snapshot).toEqual({ i });
    expect(await store.load('order', 'taken')).toMatchObject({ version: 1, snapshot: { n: 1 } });
    expect(await store.getKey('s', 'refused')).toBeNull();
    expect(await store.getKey('s', 'k')).toBe('v');
    await store.close();
  });

  it('a save resolves only once its transaction is on disk: another connection reads it at that moment', async () => {
    const file = join(dir, 'group-commit.sqlite');
    const store = openSqliteStore(file);
    const reader = new Database(file, { readonly: true });
    const read = reader.prepare<[string], { version: number }>("SELECT version FROM actors WHERE kind = 'order' AND id = ?");
    const seen = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.save({ kind: 'order', id: `o${i}`, snapshot: { i }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1 }).then(() => read.get(`o${i}`)?.version ?? null),
      ),
    );
    expect(seen).toEqual([1, 1, 1, 1, 1]);
    reader.close();
    await store.close();
  });

  it('a write refused after it changed pages (a numbered creation of an existing order) is undone alone; its batch commits to the file', async () => {
    const file = join(dir, 'savepoint-undo.sqlite');
    const store = openSqliteStore(file);
    const base = { kind: 'order' as const, epoch: 0, wakeAt: 5, updatedAt: 1 };
    await store.save({ ...base, id: 'taken', snapshot: { n: 1 }, expectedVersion: 0, index: orderIndex({ createdAt: 1 }) });
    const indexed = (i: number) => ({ ...base, id: `o${i}`, snapshot: { i }, expectedVersion: 0, index: orderIndex({ createdAt: 10 + i }) });
    const results = await Promise.allSettled([
      store.save(indexed(0)),
      store.createNumbered('vault:evm', (v) => ({ ...base, id: 'taken', snapshot: { v }, expectedVersion: 0, index: orderIndex({ createdAt: 2 }), keys: [{ space: 's', key: `k${v}`, value: 'x' }] })),
      store.createNumbered('vault:evm', (v) => ({ ...indexed(1), snapshot: { v }, keys: [{ space: 's', key: `k${v}`, value: 'o1' }] })),
      store.save(indexed(2)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    await store.close();
    const again = openSqliteStore(file);
    expect(await again.load('order', 'taken')).toMatchObject({ version: 1, snapshot: { n: 1 } });
    // The refused creation's draw was undone with it: the next creation got the value it drew.
    expect((await again.load('order', 'o1'))!.snapshot).toEqual({ v: 0 });
    expect(await again.getKey('s', 'k0')).toBe('o1');
    expect((await again.listOrders({ limit: 10 })).map((r) => r.id)).toEqual(['o2', 'o1', 'o0', 'taken']);
    await again.close();
  });

  it('writes asked for just before close are committed, not dropped', async () => {
    const file = join(dir, 'close-flush.sqlite');
    const store = openSqliteStore(file);
    const saved = store.save({ kind: 'order', id: 'late', snapshot: { n: 1 }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1 });
    await store.close();
    expect(await saved).toBe(1);
    const again = openSqliteStore(file);
    expect((await again.load('order', 'late'))!.version).toBe(1);
    await again.close();
  });

  it('a batch that finds the file busy (another process holds the write lock) is tried again, and commits once the lock is free', async () => {
    const { store, other } = lockedFile('busy-retry.sqlite');
    const base = newOrder;
    const first = store.save({ ...base, id: 'a', snapshot: { n: 1 } });
    await new Promise((r) => setTimeout(r, 40));
    // Asked while the first waits to be tried again: joins it.
    const second = store.save({ ...base, id: 'b', snapshot: { n: 2 } });
    await new Promise((r) => setTimeout(r, 40));
    other.exec('COMMIT');
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect((await store.load('order', 'b'))!.snapshot).toEqual({ n: 2 });
    other.close();
    await store.close();
  });

  it('a write tied to one before it joins that one\'s commit; tied to another store\'s write, it waits for it and fails with it', async () => {
    const store = openSqliteStore(':memory:');
    const other = openSqliteStore(':memory:');
    const base = newOrder;
    const before = store.stats();
    const first = new WriteTicket();
    await Promise.all([store.save({ ...base, id: 'a', snapshot: {} }, { ticket: first }), store.save({ ...base, id: 'b', snapshot: {} }, { after: first })]);
    expect(store.stats().commits - before.commits).toBe(1);

    await other.save({ ...base, id: 'x', snapshot: {} });
    const elsewhere = new WriteTicket();
    const refused = other.save({ ...base, id: 'x', snapshot: {} }, { ticket: elsewhere });
    await expect(store.save({ ...base, id: 'c', snapshot: {} }, { after: elsewhere })).rejects.toBeInstanceOf(SnapshotConflict);
    await expect(refused).rejects.toBeInstanceOf(SnapshotConflict);
    expect(await store.load('order', 'c')).toBeNull();
    const stored = new WriteTicket();
    await other.save({ ...base, id: 'y', snapshot: {} }, { ticket: stored });
    expect(await store.save({ ...base, id: 'c', snapshot: {} }, { after: stored })).toBe(1);
    await other.close();
    await store.close();
  });

  it('a write tied to one whose batch failed (the file busy past the retry window) is refused with its error', async () => {
    const { store, other } = lockedFile('busy-tied.sqlite', 100);
    const base = newOrder;
    const ticket = new WriteTicket();
    await expect(store.save({ ...base, id: 'a', snapshot: {} }, { ticket })).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('COMMIT');
    await expect(store.save({ ...base, id: 'b', snapshot: {} }, { after: ticket })).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(await store.load('order', 'b')).toBeNull();
    other.close();
    await store.close();
  });

  it('a file busy for longer than the retry window fails the writes of its batch with SQLITE_BUSY; later writes go through', async () => {
    const { store, other } = lockedFile('busy-fail.sqlite', 100);
    const base = newOrder;
    await expect(store.save({ ...base, id: 'a', snapshot: { n: 1 } })).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('COMMIT');
    expect(await store.save({ ...base, id: 'a', snapshot: { n: 1 } })).toBe(1);
    other.close();
    await store.close();
  });
});

