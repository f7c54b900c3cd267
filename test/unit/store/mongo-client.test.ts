// The MongoDB adapter's client, checked without a server (constructing a MongoClient parses the URL and merges the
// options but does not connect): what MONGODB_URL says must not loosen the write concern, the read concern or the read
// preference; a URL naming no database is refused; an unconfirmed write is "outcome unknown", never a conflict.
import { MongoClient, MongoNetworkError, MongoServerError, MongoWriteConcernError, type Document, type Filter, type UpdateFilter } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, SnapshotConflict } from '../../../src/errors.js';
import { StoreOutcomeUnknown } from '../../../src/errors.js';
import { mongoClientOptions, pinnedConcerns, WRITE_TIMEOUT_MS } from '../../../src/store/mongo-options.js';
import type { ActorDoc } from '../../../src/store/mongo-queries.js';
import { mongoStoreClient, outcomeUnknown, saveActor, type ActorWrites } from '../../../src/store/mongo-store.js';
import { mongoDatabaseOf, mongoDatabaseProblem } from '../../../src/store/mongo-url.js';
import type { SaveActor } from '../../../src/store/types.js';

const clients: MongoClient[] = [];
afterEach(async () => {
  // Never connected; close() releases nothing but keeps the test honest about ownership.
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
const build = (url: string, opts?: Parameters<typeof mongoStoreClient>[1]) => {
  const built = mongoStoreClient(url, opts);
  clients.push(built.client);
  return built;
};

const pinned = { w: 'majority', journal: true, wtimeoutMS: WRITE_TIMEOUT_MS };

describe('MongoDB client: the URL cannot loosen what the store pins', () => {
  it('the plain options object the adapter used before loses to j=false in the URL (why a WriteConcern instance is passed)', () => {
    const c = new MongoClient('mongodb://h1/router?j=false', { writeConcern: { w: 'majority', journal: true } });
    clients.push(c);
    expect(c.options.writeConcern).toMatchObject({ w: 'majority', journal: false });
  });

  it('a URL saying j=false, w=1 and readPreference=secondaryPreferred gets a journaled majority from the primary', () => {
    const { client, db } = build('mongodb://h1,h2/router?replicaSet=rs&j=false&readPreference=secondaryPreferred&w=1');
    expect(client.options.writeConcern).toMatchObject(pinned);
    expect(client.options.readPreference.mode).toBe('primary');
    expect(client.options.readConcern).toMatchObject({ level: 'majority' });
    expect(db.writeConcern).toMatchObject(pinned);
    expect(db.readPreference.mode).toBe('primary');
  });

  it('journal=false, fsync=false and retryWrites=false in the URL change nothing on the client', () => {
    const { client } = build('mongodb://h1/router?journal=false&fsync=false&retryWrites=false&retryReads=false&w=0');
    expect(client.options.writeConcern).toMatchObject(pinned);
    expect(client.options.retryWrites).toBe(true);
    expect(client.options.retryReads).toBe(true);
  });

  it('what the client cannot pin (wtimeout=0 is "wait forever", readConcernLevel=local) is pinned on the database and its collections', () => {
    const url = 'mongodb://h1/router?wtimeout=0&wtimeoutMS=0&readConcernLevel=local&readPreference=secondary&maxStalenessSeconds=120';
    const { client, db } = build(url);
    // The driver applies wtimeout and readConcernLevel after the client's writeConcern and readConcern ...
    expect(client.options.writeConcern).toMatchObject({ wtimeoutMS: 0 });
    expect(client.options.readConcern).toMatchObject({ level: 'local' });
    // ... but a Db built with its own concerns uses those and nothing of the URL.
    for (const handle of [db, db.collection('actors'), db.collection('keyed'), db.collection('sequences')]) {
      expect(handle.writeConcern).toMatchObject(pinned);
      expect(handle.readConcern).toMatchObject({ level: 'majority' });
      expect(handle.readPreference?.mode).toBe('primary');
    }
  });

  it('the write timeout is the server-side wtimeout of every write; zero or less (forever) is refused', () => {
    const { db } = build('mongodb://h1/router', { writeTimeoutMs: 2500 });
    expect(db.writeConcern).toMatchObject({ w: 'majority', journal: true, wtimeoutMS: 2500 });
    expect(() => pinnedConcerns(0)).toThrow(RangeError);
    expect(() => mongoClientOptions(-1)).toThrow(RangeError);
    expect(() => pinnedConcerns(1.5)).toThrow(RangeError);
  });

  it('the database is the one the URL names, or the one given; a URL naming none is refused, naming MONGODB_URL', () => {
    expect(build('mongodb://user:p%40ss@h1:27017,h2/router_prod?replicaSet=rs').db.databaseName).toBe('router_prod');
    expect(build('mongodb://h1', { dbName: 'given' }).db.databaseName).toBe('given');
    for (const url of ['mongodb://h1', 'mongodb://h1/', 'mongodb://h1/?replicaSet=rs', 'mongodb+srv://cluster0.example.com/?retryWrites=true']) {
      expect(() => mongoStoreClient(url)).toThrow(ConfigError);
      expect(() => mongoStoreClient(url)).toThrow(/MONGODB_URL must name a database/);
    }
    expect(() => mongoStoreClient('mongodb://h1/a.b')).toThrow(ConfigError);
  });

  it('a URL the driver cannot parse is a ConfigError naming MONGODB_URL (not the driver error at first use)', () => {
    expect(() => mongoStoreClient('mongodb://h1/router?notAnOption=1')).toThrow(/MONGODB_URL is not a usable connection string/);
    expect(() => mongoStoreClient('mongodb://h1/router?w=majority&w=1')).toThrow(ConfigError);
  });
});

describe('MongoDB URL: the database a connection string names', () => {
  it('reads the path between the hosts and the options, decoded', () => {
    expect(mongoDatabaseOf('mongodb://h1/router')).toBe('router');
    expect(mongoDatabaseOf('mongodb://u:pw@h1:27017,h2:27018/router?replicaSet=rs&w=1')).toBe('router');
    expect(mongoDatabaseOf('mongodb+srv://u:pw@cluster0.example.com/router_x?retryWrites=true')).toBe('router_x');
    expect(mongoDatabaseOf('MONGODB://h1/My%2DDb')).toBe('My-Db');
    expect(mongoDatabaseOf('mongodb://%2Ftmp%2Fmongodb-27017.sock/router')).toBe('router');
  });

  it('an absent or empty path names no database (the driver would use "test")', () => {
    for (const url of ['mongodb://h1', 'mongodb://h1/', 'mongodb://h1/?w=1', 'mongodb://h1?w=1/x', 'mongodb+srv://c.example.com', 'http://h1/db']) {
      expect(mongoDatabaseOf(url)).toBeNull();
    }
  });

  it('names MongoDB refuses are explained', () => {
    expect(mongoDatabaseProblem('router')).toBeNull();
    expect(mongoDatabaseProblem('a.b')).toMatch(/"\."/);
    expect(mongoDatabaseProblem('a b')).toMatch(/refuses/);
    expect(mongoDatabaseProblem('x'.repeat(64))).toMatch(/longer than 63 bytes/);
    expect(mongoDatabaseProblem('')).toBe('is empty');
  });
});

describe('MongoDB save: a write the server did not confirm is "outcome unknown", never a SnapshotConflict', () => {
  const wcError = () =>
    new MongoWriteConcernError({
      ok: 1,
      writeConcernError: { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } },
    });
  const duplicate = () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });
  const a = (expectedVersion: number): SaveActor => ({ kind: 'order', id: 'o1', snapshot: {}, expectedVersion, epoch: 2, wakeAt: null, updatedAt: 1 });

  /** A stand-in for the actors collection: each call answers from the script, and the calls are recorded. */
  function collection(script: {
    insertOne?: () => Promise<unknown>;
    updateOne?: () => Promise<{ matchedCount: number }>;
    head?: Pick<ActorDoc, 'version' | 'epoch'> | null;
  }): ActorWrites & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      async insertOne(_doc: ActorDoc) {
        calls.push('insertOne');
        return script.insertOne ? script.insertOne() : { acknowledged: true };
      },
      async updateOne(_f: Filter<ActorDoc>, _u: UpdateFilter<ActorDoc>) {
        calls.push('updateOne');
        return script.updateOne ? script.updateOne() : { matchedCount: 1 };
      },
      async findOne(_f: Filter<ActorDoc>, _o: { projection: Document }) {
        calls.push('findOne');
        return script.head ?? null;
      },
    };
  }

  it('a write-concern error on an update is StoreOutcomeUnknown (retriable), and no conflict is read', async () => {
    const c = collection({ updateOne: () => Promise.reject(wcError()), head: { version: 1, epoch: 2 } });
    const err = await saveActor(c, a(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOutcomeUnknown);
    expect(err).not.toBeInstanceOf(SnapshotConflict);
    expect(err).toMatchObject({ code: 'store_outcome_unknown', retriable: true });
    expect(c.calls).toEqual(['updateOne']);
  });

  it('a write-concern error on a creation is StoreOutcomeUnknown, even though the driver reports it as a MongoServerError', async () => {
    const c = collection({ insertOne: () => Promise.reject(wcError()) });
    await expect(saveActor(c, a(0))).rejects.toBeInstanceOf(StoreOutcomeUnknown);
    expect(c.calls).toEqual(['insertOne']);
  });

  it('a connection lost during the write is StoreOutcomeUnknown too', async () => {
    const c = collection({ updateOne: () => Promise.reject(new MongoNetworkError('connection 3 to h1:27017 closed')) });
    await expect(saveActor(c, a(4))).rejects.toBeInstanceOf(StoreOutcomeUnknown);
  });

  it('refusals stay SnapshotConflict: a duplicate creation, no document at the version and epoch', async () => {
    await expect(saveActor(collection({ insertOne: () => Promise.reject(duplicate()), head: { version: 1, epoch: 0 } }), a(0))).rejects.toThrow(
      /is at version 1, not 0/,
    );
    await expect(saveActor(collection({ updateOne: async () => ({ matchedCount: 0 }), head: { version: 3, epoch: 2 } }), a(1))).rejects.toThrow(
      SnapshotConflict,
    );
    await expect(saveActor(collection({ updateOne: async () => ({ matchedCount: 0 }), head: { version: 1, epoch: 9 } }), a(1))).rejects.toThrow(
      /written under epoch 9/,
    );
    await expect(saveActor(collection({ updateOne: async () => ({ matchedCount: 0 }), head: null }), a(5))).rejects.toThrow(/is at version 0, not 5/);
  });

  it('other errors pass through unchanged; successful saves return the next version', async () => {
    const other = new MongoServerError({ message: 'not authorized', code: 13 });
    await expect(saveActor(collection({ updateOne: () => Promise.reject(other) }), a(1))).rejects.toBe(other);
    expect(outcomeUnknown(other, 'x')).toBeNull();
    expect(outcomeUnknown(duplicate(), 'x')).toBeNull();
    expect(await saveActor(collection({}), a(0))).toBe(1);
    expect(await saveActor(collection({}), a(7))).toBe(8);
  });
});
