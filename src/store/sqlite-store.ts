// SQLite adapter of the store port (embedded mode, and processes of one host sharing one file).
// WAL + synchronous=FULL: a save has reached the disk before the runtime answers (persist before you answer).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ActorKind } from '../bus/types.js';
import { SnapshotConflict } from '../errors.js';
import { decodeJson, encodeJson } from './codec.js';
import type { ActorStore, SaveActor, StoredActor } from './types.js';

interface Row {
  kind: ActorKind;
  id: string;
  version: number;
  epoch: number;
  snapshot: string;
  wake_at: number | null;
  updated_at: number;
}

export function openSqliteStore(file: string): ActorStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS actors (
      kind TEXT NOT NULL,
      id TEXT NOT NULL,
      version INTEGER NOT NULL,
      epoch INTEGER NOT NULL,
      snapshot TEXT NOT NULL,
      wake_at INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (kind, id)
    );
    CREATE TABLE IF NOT EXISTS keyed (space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (space, key));
    CREATE TABLE IF NOT EXISTS sequences (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS actors_wake_at ON actors (wake_at) WHERE wake_at IS NOT NULL;
  `);
  const get = db.prepare<[string, string], Row>('SELECT * FROM actors WHERE kind = ? AND id = ?');
  const head = db.prepare<[string, string], { version: number; epoch: number }>(
    'SELECT version, epoch FROM actors WHERE kind = ? AND id = ?',
  );
  const insert = db.prepare(
    'INSERT INTO actors (kind, id, version, epoch, snapshot, wake_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)',
  );
  const update = db.prepare(
    'UPDATE actors SET version = version + 1, epoch = ?, snapshot = ?, wake_at = ?, updated_at = ? WHERE kind = ? AND id = ? AND version = ?',
  );
  const due = db.prepare<[number, number], { kind: ActorKind; id: string; wake_at: number }>(
    'SELECT kind, id, wake_at FROM actors WHERE wake_at IS NOT NULL AND wake_at <= ? ORDER BY wake_at LIMIT ?',
  );

  const seq = db.prepare<[string], { value: number }>(
    'INSERT INTO sequences (name, next) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET next = next + 1 RETURNING next - 1 AS value',
  );

  const putKey = db.prepare(
    'INSERT INTO keyed (space, key, value) VALUES (?, ?, ?) ON CONFLICT (space, key) DO UPDATE SET value = excluded.value',
  );
  const getKey = db.prepare<[string, string], { value: string }>('SELECT value FROM keyed WHERE space = ? AND key = ?');

  // One transaction per save: read the head, compare version and epoch, write. IMMEDIATE takes the write lock
  // first, so two processes sharing the file cannot both pass the compare.
  const save = db.transaction((a: SaveActor): number => {
    const cur = head.get(a.kind, a.id);
    const curVersion = cur?.version ?? 0;
    if (curVersion !== a.expectedVersion) {
      throw new SnapshotConflict(`Actor ${a.kind}/${a.id} is at version ${curVersion}, not ${a.expectedVersion}.`);
    }
    if (cur && cur.epoch > a.epoch) {
      throw new SnapshotConflict(`Actor ${a.kind}/${a.id} was written under epoch ${cur.epoch}, newer than ${a.epoch}.`);
    }
    const text = encodeJson(a.snapshot);
    if (!cur) insert.run(a.kind, a.id, a.epoch, text, a.wakeAt, a.updatedAt);
    else update.run(a.epoch, text, a.wakeAt, a.updatedAt, a.kind, a.id, a.expectedVersion);
    return curVersion + 1;
  });

  return {
    async load(kind, id): Promise<StoredActor | null> {
      const row = get.get(kind, id);
      if (!row) return null;
      return {
        kind: row.kind,
        id: row.id,
        version: row.version,
        epoch: row.epoch,
        snapshot: decodeJson(row.snapshot),
        wakeAt: row.wake_at,
        updatedAt: row.updated_at,
      };
    },
    async save(actor) {
      return save.immediate(actor);
    },
    async due(now, limit) {
      return due.all(now, limit).map((r) => ({ kind: r.kind, id: r.id, wakeAt: r.wake_at }));
    },
    async nextSequence(name) {
      return seq.get(name)!.value;
    },
    async putKey(space, key, value) {
      putKey.run(space, key, value);
    },
    async getKey(space, key) {
      return getKey.get(space, key)?.value ?? null;
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
