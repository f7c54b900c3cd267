// The MongoDB adapter against the store contract, on a fresh database per test (dropped after), when MONGODB_URL
// names a server; without one the suite is reported as skipped, loudly, so a green run never hides it.
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { openMongoStore } from '../../../src/store/mongo-store.js';
import type { ActorStore } from '../../../src/store/types.js';
import { storeContract } from './store-contract.js';

const url = process.env.MONGODB_URL;
const SKIPPED = 'MongoDB contract suite SKIPPED: MONGODB_URL is not set';

if (!url) {
  console.warn(`\n*** ${SKIPPED} ***\n`);
  describe.skip(SKIPPED, () => {
    it('ActorStore contract against MongoDB (set MONGODB_URL to a replica set naming a database, e.g. mongodb://127.0.0.1:27017/router?replicaSet=rs0)', () => {});
  });
} else {
  const admin = new MongoClient(url);
  let n = 0;
  afterAll(async () => {
    await admin.close();
  });
  const freshName = () => `router_test_${process.pid}_${Date.now()}_${n++}`;
  /** The store on its own database; closing it also drops that database. */
  const fresh = async (dbName = freshName()): Promise<ActorStore> => {
    const store = await openMongoStore(url, { dbName });
    return {
      ...store,
      async close() {
        await store.close();
        await admin.db(dbName).dropDatabase();
      },
    };
  };

  storeContract('MongoDB', () => fresh());

  describe('MongoDB store: what was saved survives closing and reopening the client', () => {
    it('reopens with the same snapshot, version and sequence', async () => {
      const dbName = freshName();
      const a = await openMongoStore(url, { dbName });
      try {
        expect(await a.nextSequence('vault:evm')).toBe(0);
        await a.save({ kind: 'order', id: 'x', snapshot: { amount: 5n }, expectedVersion: 0, epoch: 0, wakeAt: 10, updatedAt: 1 });
      } finally {
        await a.close();
      }
      const b = await openMongoStore(url, { dbName });
      try {
        expect(await b.load('order', 'x')).toMatchObject({ version: 1, snapshot: { amount: 5n }, wakeAt: 10 });
        expect(await b.nextSequence('vault:evm')).toBe(1);
      } finally {
        await b.close();
        await admin.db(dbName).dropDatabase();
      }
    });

    it('an earlier build\'s wakeAt-only timer indexes are replaced at start, and a second start changes nothing', async () => {
      const dbName = freshName();
      const partial = { wakeAt: { $exists: true } };
      await admin.db(dbName).collection('actors').createIndexes([
        { name: 'wake_at', key: { wakeAt: 1 }, partialFilterExpression: partial },
        { name: 'shard_wake_at', key: { shard: 1, wakeAt: 1 }, partialFilterExpression: partial },
      ]);
      const names = async () => (await admin.db(dbName).collection('actors').listIndexes().toArray()).map((i) => String(i.name)).sort();
      try {
        // Two workers starting together both migrate; neither fails on the other's drop.
        const [a, b] = await Promise.all([openMongoStore(url, { dbName }), openMongoStore(url, { dbName })]);
        await a.close();
        await b.close();
        const after = await names();
        expect(after).toContain('due');
        expect(after).toContain('shard_due');
        expect(after).not.toContain('wake_at');
        expect(after).not.toContain('shard_wake_at');
        await (await openMongoStore(url, { dbName })).close();
        expect(await names()).toEqual(after);
      } finally {
        await admin.db(dbName).dropDatabase();
      }
    });

    it('two clients (as two workers) never get the same sequence value', async () => {
      const dbName = freshName();
      const [a, b] = [await openMongoStore(url, { dbName }), await openMongoStore(url, { dbName })];
      try {
        const values = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).nextSequence('vault:bitcoin')),
        );
        expect([...values].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      } finally {
        await a.close();
        await b.close();
        await admin.db(dbName).dropDatabase();
      }
    });
  });
}
