// SQLite adapter of the store port (embedded mode, and processes of one host sharing one file).
// WAL + synchronous=FULL: a save has reached the disk before the runtime answers (persist before you answer).
// Every write goes through the group commit (group-commit.ts): the writes asked for in one turn of the event loop share
// one transaction and one fsync, each in its own savepoint.
import type Database from 'better-sqlite3';
import type { ActorKind } from '../bus/types.js';
import type { ListStatus, OrderSummary } from '../orders/summary.js';
import { SnapshotConflict } from '../errors.js';
import { decodeJson, encodeJson } from './codec.js';
import { checkLimit } from './paging.js';
import { addMissingColumns } from './sqlite-columns.js';
import { BUSY_TIMEOUT_MS, openWalDatabase } from './sqlite-open.js';
import type { ActorStore, ActorSummary, DueActor, KeyEntry, OrderIndex, OrderListRow, OrderQuery, SaveActor, StoredActor, Transition, WriteOptions } from './types.js';
import { GroupCommit, type SqliteWriteStats } from './group-commit.js';

interface Row {
  kind: ActorKind;
  id: string;
  version: number;
  epoch: number;
  snapshot: string;
  wake_at: number | null;
  updated_at: number;
  shard: number;
  status: string | null;
  history: string;
}

interface Head {
  version: number;
  epoch: number;
  status: string | null;
  history: string;
  sender: string | null;
  destination: string | null;
  refund: string | null;
  order_type: 'market' | 'limit' | null;
  created_at: number | null;
  list_status: ListStatus | null;
  summary: string | null;
}

interface OrderRow {
  id: string;
  status: string | null;
  updated_at: number;
  sender: string | null;
  destination: string;
  refund: string | null;
  order_type: 'market' | 'limit';
  created_at: number;
  list_status: ListStatus;
  summary: string;
}

// Columns added after the first schema. A file written by an older build gains them on open, with the
// defaults an actor saved before then must read as: shard 0, no status, no history, no order index.
const ADDED_COLUMNS: ReadonlyArray<readonly [name: string, definition: string]> = [
  ['shard', 'INTEGER NOT NULL DEFAULT 0'],
  ['status', 'TEXT'],
  ['history', "TEXT NOT NULL DEFAULT '[]'"],
  ['sender', 'TEXT'],
  ['destination', 'TEXT'],
  ['refund', 'TEXT'],
  ['order_type', 'TEXT'],
  ['created_at', 'INTEGER'],
  // The list's coarse status and the codec JSON of the order's summary. An order indexed by an older build has
  // created_at but neither; listOrders leaves it out until a save writes its index again (see listOrders).
  ['list_status', 'TEXT'],
  ['summary', 'TEXT'],
];

// The order-index columns are set on orders only, so the order indexes are partial on created_at: quotes cost
// them nothing. listOrders always says `created_at IS NOT NULL`, which is what lets SQLite pick them.
// Each filter of listOrders has an index that leads with it and then walks (created_at, id), so a page reads its rows
// in list order and no more; the list status beside an address has its own, since an address's index alone would
// read every order of a busy address to find the few of a rare status (bench/list-orders.ts measures it).
// The sender and refund indexes leave out orders without one (every order until its first deposit has no sender):
// creating an order writes no entry in them, and a filter `sender = ?` implies `sender IS NOT NULL`, so SQLite
// still picks them.
// The timer indexes end in (kind, id), the tie-break of due(): with more due actors than the batch limit, every poll
// must get the same batch, and the index hands it over in that order without a sort.
const INDEXES = `
  CREATE INDEX IF NOT EXISTS actors_due ON actors (wake_at, kind, id) WHERE wake_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS actors_shard_due ON actors (shard, wake_at, kind, id) WHERE wake_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS actors_kind_status ON actors (kind, status, id);
  CREATE INDEX IF NOT EXISTS orders_created ON actors (created_at, id) WHERE created_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_destination ON actors (destination, created_at, id) WHERE created_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_by_sender ON actors (sender, created_at, id) WHERE created_at IS NOT NULL AND sender IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_by_refund ON actors (refund, created_at, id) WHERE created_at IS NOT NULL AND refund IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_status ON actors (status, created_at, id) WHERE created_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_list_status ON actors (list_status, created_at, id) WHERE created_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_destination_list_status ON actors (destination, list_status, created_at, id) WHERE created_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_by_sender_list_status ON actors (sender, list_status, created_at, id) WHERE created_at IS NOT NULL AND sender IS NOT NULL;
  CREATE INDEX IF NOT EXISTS orders_by_refund_list_status ON actors (refund, list_status, created_at, id) WHERE created_at IS NOT NULL AND refund IS NOT NULL;
`;

// Indexes of earlier builds that the ones above replace. `CREATE INDEX IF NOT EXISTS` keeps an index of the same
// name whatever its columns, so a changed definition gets a new name and the old one is dropped here.
const RETIRED_INDEXES = [
  'actors_wake_at', 'actors_shard_wake_at',
  'orders_sender', 'orders_refund', 'orders_sender_list_status', 'orders_refund_list_status',
];

/** The index listOrders names (INDEXED BY) for the list status beside each address filter. */
const ADDRESS_LIST_STATUS_INDEX = {
  destination: 'orders_destination_list_status',
  sender: 'orders_by_sender_list_status',
  refund: 'orders_by_refund_list_status',
} as const;

/** `status IN (?, ...)` with one placeholder per status: SQLite then knows the list and picks the status index
 *  (a JSON list through json_each looks large to it). An empty list matches nothing. */
function statusIn(statuses: readonly string[]): string {
  return statuses.length === 0 ? '0' : `status IN (${statuses.map(() => '?').join(', ')})`;
}

/** The order-index columns of a save, as bound to the INSERT and UPDATE statements. */
interface IndexColumns {
  sender: string | null;
  destination: string | null;
  refund: string | null;
  orderType: 'market' | 'limit' | null;
  createdAt: number | null;
  listStatus: ListStatus | null;
  summary: string | null;
}

const NO_INDEX: IndexColumns = {
  sender: null,
  destination: null,
  refund: null,
  orderType: null,
  createdAt: null,
  listStatus: null,
  summary: null,
};

/** The stored columns as they are: a save without an index rewrites them unchanged, so the summary is not decoded
 *  and encoded again, and a row an older build indexed keeps its filter columns (still without a summary). */
function storedIndex(h: Head): IndexColumns {
  return {
    sender: h.sender,
    destination: h.destination,
    refund: h.refund,
    orderType: h.order_type,
    createdAt: h.created_at,
    listStatus: h.list_status,
    summary: h.summary,
  };
}

function indexColumns(i: OrderIndex): IndexColumns {
  return {
    sender: i.sender,
    destination: i.destination,
    refund: i.refund,
    orderType: i.orderType,
    createdAt: i.createdAt,
    listStatus: i.listStatus,
    summary: encodeJson(i.summary),
  };
}

/**
 * The parameters of INSERT_ACTOR_SQL and UPDATE_ACTOR_SQL for a save over `cur` (undefined for a new actor). Absent
 * status, history and index keep what is stored; shard is given on every save or is 0 (see SaveActor).
 */
function saveParams(a: SaveActor, cur: Head | undefined): Record<string, unknown> {
  let index = NO_INDEX;
  if (a.kind === 'order') {
    if (a.index === undefined) index = cur ? storedIndex(cur) : NO_INDEX;
    else if (a.index !== null) index = indexColumns(a.index);
  }
  return {
    kind: a.kind,
    id: a.id,
    expectedVersion: a.expectedVersion,
    epoch: a.epoch,
    snapshot: encodeJson(a.snapshot),
    wakeAt: a.wakeAt,
    updatedAt: a.updatedAt,
    shard: a.shard ?? 0,
    status: a.status === undefined ? (cur?.status ?? null) : a.status,
    history: a.history === undefined ? (cur?.history ?? '[]') : encodeJson(a.history),
    ...index,
  };
}

/** The parameters of INSERT_ACTOR_SQL for an actor's first save (expectedVersion 0). */
export function insertParams(a: SaveActor): Record<string, unknown> {
  return saveParams(a, undefined);
}

/** The INSERT of an actor's first save; exported with insertParams so bench/list-orders.ts fills a file in batched
 *  transactions through this very statement and encoding. */
export const INSERT_ACTOR_SQL = `
    INSERT INTO actors (kind, id, version, epoch, snapshot, wake_at, updated_at, shard, status, history,
                        sender, destination, refund, order_type, created_at, list_status, summary)
    VALUES (@kind, @id, 1, @epoch, @snapshot, @wakeAt, @updatedAt, @shard, @status, @history,
            @sender, @destination, @refund, @orderType, @createdAt, @listStatus, @summary)`;

const UPDATE_ACTOR_SQL = `
    UPDATE actors SET version = version + 1, epoch = @epoch, snapshot = @snapshot, wake_at = @wakeAt,
      updated_at = @updatedAt, shard = @shard, status = @status, history = @history, sender = @sender,
      destination = @destination, refund = @refund, order_type = @orderType, created_at = @createdAt,
      list_status = @listStatus, summary = @summary
    WHERE kind = @kind AND id = @id AND version = @expectedVersion`;

/**
 * The SQL of a listOrders query, one text per combination of filters (prepared once each), and its arguments; the
 * page's limit is the last placeholder. Exported so tests and bench/list-orders.ts read its EXPLAIN QUERY PLAN.
 */
export function listOrdersQuery(q: OrderQuery): { sql: string; args: unknown[] } {
  // created_at is set on indexed orders only (save writes no index for other kinds), so it alone selects them;
  // adding `kind = 'order'` would lead SQLite to the primary key and a sort of every order.
  // An order an older build indexed has created_at but no summary, and a list item cannot be shown without one:
  // it stays out of the list until its next save writes the index again (the runtime gives the index on every
  // save of an order). The summary is read from the row anyway, so this condition costs no extra read.
  const where = ['created_at IS NOT NULL', 'summary IS NOT NULL'];
  const args: unknown[] = [];
  for (const [column, value] of [
    ['sender', q.sender],
    ['destination', q.destination],
    ['refund', q.refund],
    ['order_type', q.orderType],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    args.push(value);
  }
  // The list status alone walks (list_status, created_at, id). Beside an address it walks (address, list_status,
  // created_at, id), named with INDEXED BY: with a cursor and no ANALYZE statistics SQLite takes the status index
  // instead (it rates the row-value range above the second equality), which reads every newer order of the status.
  let indexedBy = '';
  if (q.listStatus !== undefined) {
    where.push('list_status = ?');
    args.push(q.listStatus);
    const address = q.destination !== undefined ? 'destination' : q.sender !== undefined ? 'sender' : q.refund !== undefined ? 'refund' : null;
    if (address !== null) indexedBy = ` INDEXED BY ${ADDRESS_LIST_STATUS_INDEX[address]}`;
  }
  if (q.status !== undefined) {
    where.push(statusIn(q.status));
    args.push(...q.status);
  }
  if (q.after !== undefined) {
    // Row values compare lexicographically: strictly older, or as old with a smaller id.
    where.push('(created_at, id) < (?, ?)');
    args.push(q.after.createdAt, q.after.id);
  }
  const sql = `SELECT id, status, updated_at, sender, destination, refund, order_type, created_at, list_status, summary
    FROM actors${indexedBy} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`;
  return { sql, args };
}

export type { SqliteWriteStats } from './group-commit.js';

export interface SqliteStore extends ActorStore {
  stats(): SqliteWriteStats;
}

/** How long a batch that meets a busy file keeps being tried again; the busy_timeout SQLite itself waits. */
const BUSY_RETRY_MS = BUSY_TIMEOUT_MS;

/** Where the first page of due() starts: before every row (a wake-up is a time, never below 0). */
const DUE_START: DueActor = { wakeAt: Number.MIN_SAFE_INTEGER, kind: 'order', id: '' };

export interface SqliteStoreOptions {
  /** What SQLite waits for a lock before it answers busy (default BUSY_RETRY_MS). */
  busyTimeoutMs?: number;
  /** How long a busy batch is tried again before its writes fail (default BUSY_RETRY_MS). */
  busyRetryMs?: number;
}

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): SqliteStore {
  const busyRetryMs = options.busyRetryMs ?? BUSY_RETRY_MS;
  // The data dir 0700 when it is created here, the file and its -wal/-shm 0600 (private-files.ts).
  const db = openWalDatabase(file, options.busyTimeoutMs ?? BUSY_RETRY_MS);
  // Each write of a group commit runs in a savepoint, whose journal keeps the original of every page the write
  // changes (an order's insert touches a page per index): in a temporary file by default, written through the OS on
  // every save. In memory it costs a few pages per write for the length of the transaction; the WAL, not this
  // journal, is what makes a commit durable.
  db.pragma('temp_store = MEMORY');
  // Under the write lock, so two processes opening one old file do not both add a column (the second would fail
  // with "duplicate column name").
  db.transaction(() => {
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
    `);
    addMissingColumns(db, 'actors', ADDED_COLUMNS);
    db.exec(INDEXES);
    for (const name of RETIRED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
  }).immediate();

  const get = db.prepare<[string, string], Row>(
    'SELECT kind, id, version, epoch, snapshot, wake_at, updated_at, shard, status, history FROM actors WHERE kind = ? AND id = ?',
  );
  const head = db.prepare<[string, string], Head>(
    `SELECT version, epoch, status, history, sender, destination, refund, order_type, created_at, list_status, summary
     FROM actors WHERE kind = ? AND id = ?`,
  );
  const insert = db.prepare(INSERT_ACTOR_SQL);
  const update = db.prepare(UPDATE_ACTOR_SQL);
  // Ties on wake_at go by (kind, id), the order MongoDB's `<kind>:<id>` _id gives them. A page starts strictly after
  // the last row of the page before, in the indexes' own order; the first page starts before every row (DUE_START).
  const dueAll = db.prepare<[number, number, string, string, number], { kind: ActorKind; id: string; wake_at: number }>(
    'SELECT kind, id, wake_at FROM actors WHERE wake_at IS NOT NULL AND wake_at <= ? AND (wake_at, kind, id) > (?, ?, ?) ORDER BY wake_at, kind, id LIMIT ?',
  );
  // One statement for any shard list: the list travels as a JSON array.
  const dueShards = db.prepare<[string, number, number, string, string, number], { kind: ActorKind; id: string; wake_at: number }>(
    'SELECT kind, id, wake_at FROM actors WHERE shard IN (SELECT value FROM json_each(?)) AND wake_at IS NOT NULL AND wake_at <= ? AND (wake_at, kind, id) > (?, ?, ?) ORDER BY wake_at, kind, id LIMIT ?',
  );
  const counts = db.prepare<[], { kind: ActorKind; status: string | null; count: number }>(
    'SELECT kind, status, count(*) AS count FROM actors GROUP BY kind, status ORDER BY kind, status',
  );

  const seq = db.prepare<[string], { value: number }>(
    'INSERT INTO sequences (name, next) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET next = next + 1 RETURNING next - 1 AS value',
  );

  const putKey = db.prepare(
    'INSERT INTO keyed (space, key, value) VALUES (?, ?, ?) ON CONFLICT (space, key) DO UPDATE SET value = excluded.value',
  );
  const getKey = db.prepare<[string, string], { value: string }>('SELECT value FROM keyed WHERE space = ? AND key = ?');

  // purgeStale(): the stale actors of a kind and status, oldest save first, without walking the live ones. One DELETE
  // statement, so the condition is checked under the write lock and an actor saved meanwhile stays.
  db.exec('CREATE INDEX IF NOT EXISTS actors_kind_status_updated ON actors (kind, status, updated_at)');
  const STALE = 'SELECT rowid FROM actors WHERE kind = ? AND status IN (SELECT value FROM json_each(?)) AND updated_at < ?';
  const purgeAll = db.prepare<[string, string, number, number]>(`DELETE FROM actors WHERE rowid IN (${STALE} LIMIT ?)`);
  const purgeShards = db.prepare<[string, string, number, string, number]>(
    `DELETE FROM actors WHERE rowid IN (${STALE} AND shard IN (SELECT value FROM json_each(?)) LIMIT ?)`,
  );

  // list and listOrders have optional filters; each combination is one SQL text, prepared once.
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let s = prepared.get(sql);
    if (!s) prepared.set(sql, (s = db.prepare(sql)));
    return s;
  };

  const putKeys = (keys: readonly KeyEntry[] | undefined) => {
    for (const k of keys ?? []) putKey.run(k.space, k.key, k.value);
  };

  // Runs inside a transaction: read the head, compare version and epoch, write. The transaction is IMMEDIATE (it takes
  // the write lock first), so two processes sharing the file cannot both pass the compare.
  const saveOne = (a: SaveActor): number => {
    const cur = head.get(a.kind, a.id);
    const curVersion = cur?.version ?? 0;
    if (curVersion !== a.expectedVersion) {
      throw new SnapshotConflict(`Actor ${a.kind}/${a.id} is at version ${curVersion}, not ${a.expectedVersion}.`);
    }
    if (cur && cur.epoch > a.epoch) {
      throw new SnapshotConflict(`Actor ${a.kind}/${a.id} was written under epoch ${cur.epoch}, newer than ${a.epoch}.`);
    }
    const params = saveParams(a, cur);
    if (!cur) insert.run(params);
    else update.run(params);
    putKeys(a.keys);
    return curVersion + 1;
  };

  // Group commit. A write queued while a batch is pending joins it; the batch runs once the current turn of the event
  // loop has queued what it will, in one IMMEDIATE transaction. A nested better-sqlite3 transaction is a savepoint: a
  // write that throws rolls back its own changes only and rejects its own promise. The promises settle after COMMIT,
  // so nothing a write's caller answers on is shown before it is on disk; if the commit fails, every write fails.
  const commits = new GroupCommit(db, busyRetryMs);
  const write = <T>(run: () => T, opts?: WriteOptions): Promise<T> => commits.write(run, opts);

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
        shard: row.shard,
        status: row.status,
        history: decodeJson<Transition[]>(row.history),
      };
    },
    save(actor, opts) {
      return write(() => saveOne(actor), opts);
    },
    createNumbered(sequence, build, opts) {
      return write(() => {
        const value = seq.get(sequence)!.value;
        saveOne(build(value));
        return value;
      }, opts);
    },
    async due(now, limit, shards, after) {
      checkLimit(limit);
      const from = after ?? DUE_START;
      const rows = shards === undefined
        ? dueAll.all(now, from.wakeAt, from.kind, from.id, limit)
        : dueShards.all(JSON.stringify(shards), now, from.wakeAt, from.kind, from.id, limit);
      return rows.map((r) => ({ kind: r.kind, id: r.id, wakeAt: r.wake_at }));
    },
    async list(q): Promise<ActorSummary[]> {
      checkLimit(q.limit);
      const where = ['kind = ?'];
      const args: unknown[] = [q.kind];
      if (q.status !== undefined) {
        where.push(statusIn(q.status));
        args.push(...q.status);
      }
      if (q.afterId !== undefined) {
        where.push('id > ?');
        args.push(q.afterId);
      }
      const sql = `SELECT kind, id, status, version, epoch, shard, wake_at, updated_at FROM actors
        WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`;
      const rows = statement(sql).all(...args, q.limit) as Array<Omit<ActorSummary, 'wakeAt' | 'updatedAt'> & { wake_at: number | null; updated_at: number }>;
      return rows.map((r) => ({
        kind: r.kind,
        id: r.id,
        status: r.status,
        version: r.version,
        epoch: r.epoch,
        shard: r.shard,
        wakeAt: r.wake_at,
        updatedAt: r.updated_at,
      }));
    },
    async counts() {
      return counts.all();
    },
    async listOrders(q: OrderQuery): Promise<OrderListRow[]> {
      checkLimit(q.limit);
      const { sql, args } = listOrdersQuery(q);
      const rows = statement(sql).all(...args, q.limit) as OrderRow[];
      return rows.map((r) => ({
        id: r.id,
        status: r.status,
        updatedAt: r.updated_at,
        sender: r.sender,
        destination: r.destination,
        refund: r.refund,
        orderType: r.order_type,
        createdAt: r.created_at,
        listStatus: r.list_status,
        summary: decodeJson<OrderSummary>(r.summary),
      }));
    },
    purgeStale(q) {
      checkLimit(q.limit);
      const statuses = JSON.stringify(q.statuses);
      return write(() =>
        (q.shards === undefined
          ? purgeAll.run(q.kind, statuses, q.updatedBefore, q.limit)
          : purgeShards.run(q.kind, statuses, q.updatedBefore, JSON.stringify(q.shards), q.limit)
        ).changes,
      );
    },
    nextSequence(name) {
      return write(() => seq.get(name)!.value);
    },
    putKey(space, key, value) {
      return write(() => {
        putKey.run(space, key, value);
      });
    },
    async getKey(space, key) {
      return getKey.get(space, key)?.value ?? null;
    },
    stats: () => commits.stats(),
    async close() {
      if (!db.open) return;
      // Writes already asked for are committed (or refused) before the file closes.
      await commits.finish();
      db.close();
    },
  };
}
