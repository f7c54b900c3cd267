// MongoDB adapter of the store port (the cluster's store). Writes wait for a journaled majority, so a snapshot the
// runtime answered on survives a primary's failover (persist before you answer); reads go to the primary at majority
// read concern, whatever MONGODB_URL says (mongo-options.ts). The pure parts are in mongo-queries.ts.
import {
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  MongoWriteConcernError,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type UpdateFilter,
} from 'mongodb';
import { ConfigError, SnapshotConflict, StoreOutcomeUnknown } from '../errors.js';
import { mongoClientOptions, pinnedConcerns, WRITE_TIMEOUT_MS } from './mongo-options.js';
import {
  COUNTS_HINT,
  COUNTS_PIPELINE,
  DUE_SORT,
  LIST_SORT,
  ORDER_SORT,
  SUMMARY_PROJECTION,
  actorId,
  dueFilter,
  listFilter,
  newActorDoc,
  orderFilter,
  planIndexes,
  saveFilter,
  saveUpdate,
  staleFilter,
  toCount,
  toOrderRow,
  toStoredActor,
  toSummary,
  type ActorDoc,
  type ExistingIndex,
  type KeyedDoc,
  type SequenceDoc,
} from './mongo-queries.js';
import { mongoDatabaseOf, mongoDatabaseProblem } from './mongo-url.js';
import { checkLimit } from './paging.js';
import type { ActorStore, KeyEntry, SaveActor, WriteOptions } from './types.js';
import { followed } from './write-ticket.js';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

function isDuplicateKey(err: unknown): boolean {
  // A write-concern error is a MongoServerError too; its code is the write concern's, never 11000.
  return err instanceof MongoServerError && !(err instanceof MongoWriteConcernError) && err.code === DUPLICATE_KEY;
}

function hasCode(err: unknown, code: number): boolean {
  return err instanceof MongoServerError && err.code === code;
}

/**
 * The typed error of a write whose outcome is unknown, or null when `err` says the write was refused or never sent.
 * A write-concern error (the server answered, but the majority or the journal did not confirm within the write
 * timeout) and a network error (after the driver's one retry) both leave the write possibly applied.
 */
export function outcomeUnknown(err: unknown, what: string): StoreOutcomeUnknown | null {
  if (err instanceof MongoWriteConcernError) {
    return new StoreOutcomeUnknown(`${what}: the write was not confirmed by a journaled majority (${err.message}); reload to see whether it was stored.`);
  }
  if (err instanceof MongoNetworkError) {
    return new StoreOutcomeUnknown(`${what}: the connection failed during the write (${err.message}); reload to see whether it was stored.`);
  }
  return null;
}

async function writing<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw outcomeUnknown(err, what) ?? err;
  }
}

/** Two concurrent upserts of one absent _id can both miss it and one then fails on the unique _id; the retry finds
 *  the document. (Servers from 4.2 retry such upserts themselves; this covers the others.) */
async function upsertRetrying<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 3) throw err;
    }
  }
}

/** What save() needs of the actors collection (a Collection<ActorDoc>, or a stand-in in tests). */
export interface ActorWrites {
  insertOne(doc: ActorDoc): Promise<unknown>;
  updateOne(filter: Filter<ActorDoc>, update: UpdateFilter<ActorDoc>): Promise<{ matchedCount: number }>;
  findOne(filter: Filter<ActorDoc>, options: { projection: Document }): Promise<Pick<ActorDoc, 'version' | 'epoch'> | null>;
}

async function conflict(actors: ActorWrites, a: SaveActor, what: string): Promise<SnapshotConflict> {
  const cur = await actors.findOne({ _id: actorId(a.kind, a.id) }, { projection: { version: 1, epoch: 1 } });
  const ref = `Actor ${a.kind}/${a.id}`;
  if (!cur) return new SnapshotConflict(`${ref} is at version 0, not ${a.expectedVersion}.`);
  if (cur.version !== a.expectedVersion) {
    return new SnapshotConflict(`${ref} is at version ${cur.version}, not ${a.expectedVersion}.`);
  }
  if (cur.epoch > a.epoch) {
    return new SnapshotConflict(`${ref} was written under epoch ${cur.epoch}, newer than ${a.epoch}.`);
  }
  // The head moved between the refused write and this read; the write was refused all the same.
  return new SnapshotConflict(`${ref}: ${what} was refused by a concurrent write.`);
}

/**
 * One save: an insert at version 0, else a compare-and-set update. SnapshotConflict only when the server refused the
 * write (a duplicate _id, no document matching version and epoch); StoreOutcomeUnknown when it may have applied it.
 */
export async function saveActor(actors: ActorWrites, a: SaveActor): Promise<number> {
  const what = `Saving actor ${a.kind}/${a.id} at version ${a.expectedVersion + 1}`;
  if (a.expectedVersion === 0) {
    try {
      await writing(what, () => actors.insertOne(newActorDoc(a)));
    } catch (err) {
      if (isDuplicateKey(err)) throw await conflict(actors, a, 'the creation');
      throw err;
    }
    return 1;
  }
  const res = await writing(what, () => actors.updateOne(saveFilter(a), saveUpdate(a)));
  if (res.matchedCount === 0) throw await conflict(actors, a, 'the save');
  return a.expectedVersion + 1;
}

/** What a save with side keys needs: the client's sessions and the two collections. */
interface SaveWithKeysDeps {
  client: MongoClient;
  actors: Collection<ActorDoc>;
  keyed: Collection<KeyedDoc>;
}

/** Refusal found inside a transaction; the reason is read after it aborted (its session can read nothing more). */
class RefusedInTransaction extends Error {}

/**
 * A save whose keys must be stored with it (an order's deposit address → order): the snapshot's insert or
 * compare-and-set and the keys' upserts in one transaction, so a refused save leaves no key behind and no key names a
 * snapshot that is not stored. The driver retries the transaction on a transient error; the writes are idempotent.
 */
export async function saveWithKeys(deps: SaveWithKeysDeps, a: SaveActor, keys: readonly KeyEntry[]): Promise<number> {
  const { client, actors, keyed } = deps;
  const what = `Saving actor ${a.kind}/${a.id} at version ${a.expectedVersion + 1} with ${keys.length} key(s)`;
  const session = client.startSession();
  try {
    await writing(what, () =>
      session.withTransaction(async () => {
        if (a.expectedVersion === 0) {
          try {
            await actors.insertOne(newActorDoc(a), { session });
          } catch (err) {
            if (isDuplicateKey(err)) throw new RefusedInTransaction('the creation');
            throw err;
          }
        } else {
          const res = await actors.updateOne(saveFilter(a), saveUpdate(a), { session });
          if (res.matchedCount === 0) throw new RefusedInTransaction('the save');
        }
        await keyed.bulkWrite(
          keys.map((k) => ({ updateOne: { filter: { _id: { space: k.space, key: k.key } }, update: { $set: { value: k.value } }, upsert: true } })),
          { session, ordered: true },
        );
      }),
    );
  } catch (err) {
    if (err instanceof RefusedInTransaction) throw await conflict(actors, a, err.message);
    throw err;
  } finally {
    await session.endSession();
  }
  return a.expectedVersion + 1;
}

export interface MongoStoreOptions {
  /** The database; default the one MONGODB_URL names (a URL naming none is refused). */
  dbName?: string;
  /** How long a write waits for a journaled majority (default WRITE_TIMEOUT_MS). */
  writeTimeoutMs?: number;
}

/**
 * The store's client and database, built without connecting: the URL's own settings for write concern, read
 * concern, read preference and retryable writes are overridden (mongo-options.ts). A URL the driver cannot parse, or
 * one naming no database when no dbName is given, is a ConfigError naming MONGODB_URL.
 */
export function mongoStoreClient(url: string, opts: MongoStoreOptions = {}): { client: MongoClient; db: Db } {
  const dbName = opts.dbName ?? mongoDatabaseOf(url);
  if (dbName === null) {
    throw new ConfigError('MONGODB_URL must name a database (mongodb://host/<database>); the driver would otherwise use "test".');
  }
  const problem = mongoDatabaseProblem(dbName);
  if (problem !== null) throw new ConfigError(`The MongoDB database name "${dbName}" ${problem}.`);
  const writeTimeoutMs = opts.writeTimeoutMs ?? WRITE_TIMEOUT_MS;
  let client: MongoClient;
  try {
    client = new MongoClient(url, mongoClientOptions(writeTimeoutMs));
  } catch (err) {
    // The driver's parse errors name the option, never the credentials.
    throw new ConfigError(`MONGODB_URL is not a usable connection string: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { client, db: client.db(dbName, pinnedConcerns(writeTimeoutMs)) };
}

/** Brings the actors' indexes to ACTOR_INDEXES: creates what is missing, then drops what it replaces. Workers
 *  starting together may race here; each step is idempotent, and an index another worker dropped first is fine. */
async function migrateIndexes(actors: Collection<ActorDoc>): Promise<void> {
  let existing: ExistingIndex[];
  try {
    existing = await actors.listIndexes().toArray();
  } catch (err) {
    if (!hasCode(err, NAMESPACE_NOT_FOUND)) throw err;
    existing = [];
  }
  const plan = planIndexes(existing);
  if (plan.create.length > 0) await actors.createIndexes(plan.create);
  for (const name of plan.drop) {
    try {
      await actors.dropIndex(name);
    } catch (err) {
      if (!hasCode(err, INDEX_NOT_FOUND) && !hasCode(err, NAMESPACE_NOT_FOUND)) throw err;
    }
  }
}

/**
 * Opens the store on a MongoDB deployment (a replica set in production: majority writes need one).
 * The database is `opts.dbName`, else the one named in the URL; a URL naming none is refused.
 */
export async function openMongoStore(url: string, opts: MongoStoreOptions = {}): Promise<ActorStore> {
  const { client, db } = mongoStoreClient(url, opts);
  await client.connect();
  const actors = db.collection<ActorDoc>('actors');
  const keyed = db.collection<KeyedDoc>('keyed');
  const sequences = db.collection<SequenceDoc>('sequences');
  try {
    await migrateIndexes(actors);
  } catch (err) {
    await client.close();
    throw err;
  }

  async function takeNext(name: string): Promise<number> {
    // Atomic on the server; the first call creates {next: 1} and hands out 0.
    // An unknown outcome may have consumed a value: skipping one is fine, handing one out twice is not.
    const doc = await writing(`Taking the next value of sequence ${name}`, () =>
      upsertRetrying(() =>
        sequences.findOneAndUpdate({ _id: name }, { $inc: { next: 1 } }, { upsert: true, returnDocument: 'after' }),
      ),
    );
    if (!doc) throw new Error(`Sequence ${name} returned no document after an upsert.`);
    return doc.next - 1;
  }

  const saveNow = (a: SaveActor): Promise<number> =>
    a.keys && a.keys.length > 0 ? saveWithKeys({ client, actors, keyed }, a, a.keys) : saveActor(actors, a);
  // Each write is its own transaction here: a write following another waits until that one is durable.
  const tied = <T>(opts: WriteOptions | undefined, write: () => Promise<T>): Promise<T> => {
    let start!: () => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    const settled = started.then(() => followed(opts?.after)).then(write);
    // The write starts only once its ticket is taken: a ticket another write took throws here, and nothing is written.
    opts?.ticket?.take(settled, undefined);
    start();
    return settled;
  };
  const save = (a: SaveActor, opts?: WriteOptions): Promise<number> => tied(opts, () => saveNow(a));

  return {
    async load(kind, id) {
      const doc = await actors.findOne({ _id: actorId(kind, id) });
      return doc ? toStoredActor(doc) : null;
    },

    save,

    // The counter's value is taken first, on its own (a crash or a refused save after it only skips the value), then the
    // snapshot and its keys in one transaction: a transaction taking the value too would make every concurrent
    // creation conflict on the counter's one document.
    createNumbered(sequence, build, opts) {
      return tied(opts, async () => {
        const value = await takeNext(sequence);
        await saveNow(build(value));
        return value;
      });
    },

    async due(now, limit, shards, after) {
      checkLimit(limit);
      const docs = await actors
        .find(dueFilter(now, shards, after), { projection: { kind: 1, id: 1, wakeAt: 1 }, sort: DUE_SORT, limit })
        .toArray();
      return docs.map((d) => ({ kind: d.kind, id: d.id, wakeAt: d.wakeAt! }));
    },

    async list(q) {
      checkLimit(q.limit);
      const docs = await actors
        .find(listFilter(q), { projection: SUMMARY_PROJECTION, sort: LIST_SORT, limit: q.limit })
        .toArray();
      return docs.map(toSummary);
    },

    async counts() {
      const groups = await actors.aggregate(COUNTS_PIPELINE, { hint: COUNTS_HINT }).toArray();
      return groups.map(toCount);
    },

    async listOrders(q) {
      checkLimit(q.limit);
      const docs = await actors
        .find(orderFilter(q), { projection: SUMMARY_PROJECTION, sort: ORDER_SORT, limit: q.limit })
        .toArray();
      return docs.map(toOrderRow);
    },

    async purgeStale(q) {
      checkLimit(q.limit);
      if (q.statuses.length === 0 || q.shards?.length === 0) return 0;
      // deleteMany takes no limit: read a batch of ids, then delete those still matching.
      const filter = staleFilter(q);
      const ids = await actors.find(filter, { projection: { _id: 1 }, limit: q.limit }).toArray();
      if (ids.length === 0) return 0;
      const res = await actors.deleteMany({ $and: [filter, { _id: { $in: ids.map((d) => d._id) } }] });
      return res.deletedCount;
    },

    nextSequence: takeNext,

    async putKey(space, key, value) {
      await writing(`Storing key ${space}/${key}`, () =>
        upsertRetrying(() => keyed.updateOne({ _id: { space, key } }, { $set: { value } }, { upsert: true })),
      );
    },

    async getKey(space, key) {
      const doc = await keyed.findOne({ _id: { space, key } });
      return doc?.value ?? null;
    },

    async close() {
      await client.close();
    },
  };
}
