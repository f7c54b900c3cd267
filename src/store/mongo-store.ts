// MongoDB adapter of the store port (the cluster's store). Writes wait for a journaled majority, so a snapshot the
// runtime answered on survives a primary's failover (persist before you answer); the pure parts are in mongo-queries.ts.
import { MongoClient, MongoServerError } from 'mongodb';
import { SnapshotConflict } from '../errors.js';
import {
  ACTOR_INDEXES,
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
  saveFilter,
  saveUpdate,
  toCount,
  toOrderRow,
  toStoredActor,
  toSummary,
  type ActorDoc,
  type KeyedDoc,
  type SequenceDoc,
} from './mongo-queries.js';
import { checkLimit } from './paging.js';
import type { ActorStore, SaveActor } from './types.js';

const DUPLICATE_KEY = 11000;

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
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

/**
 * Opens the store on a MongoDB deployment (a replica set in production: majority writes need one).
 * The database is `opts.dbName`, else the one named in the URL (the driver's default `test` when it names none).
 * The write concern is always `{ w: 'majority', journal: true }`, whatever the URL says.
 */
export async function openMongoStore(url: string, opts: { dbName?: string } = {}): Promise<ActorStore> {
  const client = new MongoClient(url, { writeConcern: { w: 'majority', journal: true } });
  await client.connect();
  const db = client.db(opts.dbName);
  const actors = db.collection<ActorDoc>('actors');
  const keyed = db.collection<KeyedDoc>('keyed');
  const sequences = db.collection<SequenceDoc>('sequences');
  try {
    // Idempotent: creating an index that exists with the same name, keys and options does nothing.
    await actors.createIndexes(ACTOR_INDEXES);
  } catch (err) {
    await client.close();
    throw err;
  }

  async function conflict(a: SaveActor, what: string): Promise<SnapshotConflict> {
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

  return {
    async load(kind, id) {
      const doc = await actors.findOne({ _id: actorId(kind, id) });
      return doc ? toStoredActor(doc) : null;
    },

    async save(a) {
      if (a.expectedVersion === 0) {
        try {
          await actors.insertOne(newActorDoc(a));
        } catch (err) {
          if (isDuplicateKey(err)) throw await conflict(a, 'the creation');
          throw err;
        }
        return 1;
      }
      const res = await actors.updateOne(saveFilter(a), saveUpdate(a));
      if (res.matchedCount === 0) throw await conflict(a, 'the save');
      return a.expectedVersion + 1;
    },

    async due(now, limit, shards) {
      checkLimit(limit);
      const docs = await actors
        .find(dueFilter(now, shards), { projection: { kind: 1, id: 1, wakeAt: 1 }, sort: DUE_SORT, limit })
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
      const groups = await actors.aggregate(COUNTS_PIPELINE).toArray();
      return groups.map(toCount);
    },

    async listOrders(q) {
      checkLimit(q.limit);
      const docs = await actors
        .find(orderFilter(q), { projection: SUMMARY_PROJECTION, sort: ORDER_SORT, limit: q.limit })
        .toArray();
      return docs.map(toOrderRow);
    },

    async nextSequence(name) {
      // Atomic on the server; the first call creates {next: 1} and hands out 0.
      const doc = await upsertRetrying(() =>
        sequences.findOneAndUpdate({ _id: name }, { $inc: { next: 1 } }, { upsert: true, returnDocument: 'after' }),
      );
      if (!doc) throw new Error(`Sequence ${name} returned no document after an upsert.`);
      return doc.next - 1;
    },

    async putKey(space, key, value) {
      await upsertRetrying(() => keyed.updateOne({ _id: { space, key } }, { $set: { value } }, { upsert: true }));
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
