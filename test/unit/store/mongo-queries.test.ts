// The MongoDB adapter's pure parts (documents, filters, updates), checked without a server: what the server is asked
// must say what the contract means, and every query must carry what lets it use its partial index.
import { describe, expect, it } from 'vitest';
import {
  ACTOR_INDEXES,
  COUNTS_HINT,
  COUNTS_PIPELINE,
  DUE_SORT,
  ORDER_SORT,
  RETIRED_ACTOR_INDEXES,
  actorId,
  dueFilter,
  staleFilter,
  listFilter,
  newActorDoc,
  orderFilter,
  planIndexes,
  saveFilter,
  saveUpdate,
  toOrderIndexDoc,
  toOrderRow,
  toStoredActor,
} from '../../../src/store/mongo-queries.js';
import { decodeJson } from '../../../src/store/codec.js';
import type { OrderIndex, SaveActor } from '../../../src/store/types.js';
import { orderIndex, settledSummary } from './order-fixtures.js';

const index: OrderIndex = orderIndex({ destination: '0xd', refund: '0xr', orderType: 'limit', createdAt: 42 });
/** The index as stored: the summary as codec JSON text. */
const storedIndex = { ...index, summary: expect.any(String) as unknown };
const save = (a: Partial<SaveActor> = {}): SaveActor => ({
  kind: 'order',
  id: 'o1',
  snapshot: { amount: 123456789012345678901234567890n },
  expectedVersion: 0,
  epoch: 3,
  wakeAt: null,
  updatedAt: 7,
  ...a,
});

describe('MongoDB documents: an actor is stored under `<kind>:<id>` with its snapshot as codec JSON', () => {
  it('a new actor document loads back as the contract says, bigints exact, shard 0 and empty history by default', () => {
    const doc = newActorDoc(save({ wakeAt: 99, status: 'awaiting_deposit', index }));
    expect(doc).toMatchObject({ _id: 'order:o1', version: 1, epoch: 3, wakeAt: 99, shard: 0, history: [], order: storedIndex });
    expect(typeof doc.snapshot).toBe('string');
    expect(toStoredActor(doc)).toEqual({
      kind: 'order',
      id: 'o1',
      version: 1,
      epoch: 3,
      snapshot: { amount: 123456789012345678901234567890n },
      wakeAt: 99,
      updatedAt: 7,
      shard: 0,
      status: 'awaiting_deposit',
      history: [],
    });
  });

  it('no wake-up is an absent wakeAt (the timer indexes are partial on $exists), loaded back as null', () => {
    const doc = newActorDoc(save());
    expect('wakeAt' in doc).toBe(false);
    expect(toStoredActor(doc).wakeAt).toBeNull();
  });

  it('only orders carry an order index', () => {
    expect(newActorDoc(save({ kind: 'quote', index })).order).toBeUndefined();
    expect(newActorDoc(save({ index: null })).order).toBeUndefined();
    expect(toOrderRow({ ...newActorDoc(save({ index, status: 'funded' })) })).toEqual({
      id: 'o1',
      status: 'funded',
      updatedAt: 7,
      ...index,
    });
  });

  it('the summary is stored as codec JSON text (BSON has no integer for its bigints) and read back exactly', () => {
    const settled = { ...index, listStatus: 'settled' as const, summary: settledSummary() };
    const doc = newActorDoc(save({ index: settled }));
    expect(doc.order).toEqual({ ...settled, summary: expect.any(String) });
    expect(decodeJson(doc.order!.summary!)).toStrictEqual(settled.summary);
    expect(doc.order!.summary).toContain('{"$bigint":"123456789012345678901234567000"}');
    expect(toOrderRow(doc)).toStrictEqual({ id: 'o1', status: null, updatedAt: 7, ...settled });
    expect(toOrderIndexDoc(settled)).toEqual(doc.order);
  });

  it('an order indexed by an older build (no list status or summary) is refused by toOrderRow, never shown half', () => {
    const { listStatus: _ls, summary: _s, ...older } = toOrderIndexDoc(index);
    expect(() => toOrderRow({ ...newActorDoc(save()), order: older })).toThrow(/o1 has no list status or summary/);
  });
});

describe('MongoDB save: a compare-and-set on the version read and an epoch not newer than the writer', () => {
  it('matches the version read and stored epochs up to the writer\'s', () => {
    expect(saveFilter(save({ expectedVersion: 4, epoch: 9 }))).toEqual({ _id: 'order:o1', version: 4, epoch: { $lte: 9 } });
  });

  it('increments the version on the server and sets what was given; absent status, history and index stay', () => {
    const u = saveUpdate(save({ expectedVersion: 4, wakeAt: 500, shard: 12 }));
    expect(u.$inc).toEqual({ version: 1 });
    expect(u.$set).toEqual({ epoch: 3, snapshot: expect.any(String), updatedAt: 7, shard: 12, wakeAt: 500 });
    expect(u.$unset).toBeUndefined();
  });

  it('a cleared wake-up and a null index are unset; status null and a history are set', () => {
    const history = [{ status: 'funded', at: 5 }];
    const u = saveUpdate(save({ expectedVersion: 1, status: null, history, index: null }));
    expect(u.$unset).toEqual({ wakeAt: '', order: '' });
    expect(u.$set).toMatchObject({ status: null, history, shard: 0 });
    expect(saveUpdate(save({ expectedVersion: 1, index })).$set).toMatchObject({ order: storedIndex });
    expect(saveUpdate(save({ expectedVersion: 1, index })).$set!.order).toEqual(toOrderIndexDoc(index));
  });

  it('an index given for a quote is not written', () => {
    const u = saveUpdate(save({ kind: 'quote', expectedVersion: 1, index }));
    expect(u.$set).not.toHaveProperty('order');
    expect(u.$unset).toEqual({ wakeAt: '' });
  });
});

describe('MongoDB queries', () => {
  it('due: timers at or before now, of the given shards when a list is given (an empty list matches none)', () => {
    expect(dueFilter(100)).toEqual({ wakeAt: { $exists: true, $lte: 100 } });
    expect(dueFilter(100, [1, 3])).toEqual({ wakeAt: { $exists: true, $lte: 100 }, shard: { $in: [1, 3] } });
    expect(dueFilter(100, [])).toEqual({ wakeAt: { $exists: true, $lte: 100 }, shard: { $in: [] } });
  });

  it('due after a row: strictly after it in (wakeAt, _id) order, the order of the timer indexes', () => {
    expect(dueFilter(100, [2], { kind: 'order', id: 'o7', wakeAt: 0 })).toEqual({
      wakeAt: { $exists: true, $lte: 100 },
      shard: { $in: [2] },
      $or: [{ wakeAt: { $gt: 0 } }, { wakeAt: 0, _id: { $gt: 'order:o7' } }],
    });
  });

  it('purgeStale: actors of the kind in one of the statuses saved before the cut-off, of the given shards when a list is given', () => {
    const q = { kind: 'quote' as const, statuses: ['quoted', 'expired'], updatedBefore: 500, limit: 10 };
    expect(staleFilter(q)).toEqual({ kind: 'quote', status: { $in: ['quoted', 'expired'] }, updatedAt: { $lt: 500 } });
    expect(staleFilter({ ...q, shards: [2] })).toEqual({ kind: 'quote', status: { $in: ['quoted', 'expired'] }, updatedAt: { $lt: 500 }, shard: { $in: [2] } });
  });

  it('list: the _id range holds every id of the kind after afterId and nothing of another kind', () => {
    const f = listFilter({ kind: 'quote' }) as { _id: { $gt: string; $lt: string } };
    const inRange = (id: string) => id > f._id.$gt && id < f._id.$lt;
    for (const id of ['', 'a', '~~~', '0', 'ffffffff-ffff', 'quote', 'z:z']) {
      expect(inRange(actorId('quote', id)) || id === '').toBe(true);
    }
    expect(inRange(actorId('order', 'a'))).toBe(false);
    expect(inRange('quote')).toBe(false);
    const after = listFilter({ kind: 'order', afterId: 'b', status: ['funded'] });
    expect(after).toEqual({ kind: 'order', _id: { $gt: 'order:b', $lt: 'order;' }, status: { $in: ['funded'] } });
  });

  it('listOrders: each filter on its index field, statuses as a set, newest first with a strict cursor', () => {
    const indexed = { kind: 'order', 'order.createdAt': { $exists: true }, 'order.summary': { $exists: true } };
    expect(orderFilter({ limit: 10 })).toEqual(indexed);
    expect(orderFilter({ limit: 10, listStatus: 'refunded' })).toEqual({ ...indexed, 'order.listStatus': 'refunded' });
    expect(
      orderFilter({
        limit: 10,
        sender: 's',
        destination: 'd',
        refund: 'r',
        orderType: 'market',
        status: ['funded', 'delivered'],
        listStatus: 'unfilled',
        after: { createdAt: 200, id: 'o5' },
      }),
    ).toEqual({
      ...indexed,
      'order.sender': 's',
      'order.destination': 'd',
      'order.refund': 'r',
      'order.orderType': 'market',
      'order.listStatus': 'unfilled',
      status: { $in: ['funded', 'delivered'] },
      $or: [{ 'order.createdAt': { $lt: 200 } }, { 'order.createdAt': 200, _id: { $lt: 'order:o5' } }],
    });
    expect(ORDER_SORT).toEqual({ 'order.createdAt': -1, _id: -1 });
  });

  it('listOrders: every equality filter has an index that leads with it and then follows ORDER_SORT', () => {
    const fields = ['order.sender', 'order.destination', 'order.refund', 'order.listStatus', 'status'];
    for (const field of fields) {
      const i = ACTOR_INDEXES.find((x) => Object.keys(x.key)[0] === field);
      expect(i, field).toBeDefined();
      expect(Object.entries(i!.key), field).toEqual([[field, 1], ...Object.entries(ORDER_SORT)]);
      expect(i!.partialFilterExpression).toEqual({ 'order.createdAt': { $exists: true } });
    }
    expect(ACTOR_INDEXES.find((i) => i.name === 'orders_list_status')!.key).toEqual({
      'order.listStatus': 1,
      'order.createdAt': -1,
      _id: -1,
    });
  });

  it('listOrders: an address with the list status has an index leading with both, then ORDER_SORT', () => {
    for (const address of ['destination', 'sender', 'refund']) {
      const i = ACTOR_INDEXES.find((x) => x.name === `orders_${address}_list_status`);
      expect(i, address).toBeDefined();
      expect(Object.entries(i!.key)).toEqual([[`order.${address}`, 1], ['order.listStatus', 1], ...Object.entries(ORDER_SORT)]);
      expect(i!.partialFilterExpression).toEqual({ 'order.createdAt': { $exists: true } });
    }
  });

  it('every partial index has its filter repeated in the queries meant to use it', () => {
    const partial = ACTOR_INDEXES.filter((i) => i.partialFilterExpression);
    for (const i of partial) {
      const [field, cond] = Object.entries(i.partialFilterExpression!)[0]!;
      expect(cond).toEqual({ $exists: true });
      const query = field === 'wakeAt' ? dueFilter(1, [0]) : orderFilter({ limit: 1, status: ['x'] });
      expect((query as Record<string, Record<string, unknown>>)[field]).toMatchObject({ $exists: true });
    }
    expect(new Set(ACTOR_INDEXES.map((i) => i.name)).size).toBe(ACTOR_INDEXES.length);
  });
});

describe('MongoDB due(): a batch cut by the limit is the same on every poll', () => {
  it('sorts by wakeAt, then _id (kind, then id), and both timer indexes end in that order', () => {
    expect(DUE_SORT).toEqual({ wakeAt: 1, _id: 1 });
    const due = ACTOR_INDEXES.find((i) => i.name === 'due')!;
    const shardDue = ACTOR_INDEXES.find((i) => i.name === 'shard_due')!;
    expect(Object.entries(due.key)).toEqual(Object.entries(DUE_SORT));
    expect(Object.entries(shardDue.key)).toEqual([['shard', 1], ...Object.entries(DUE_SORT)]);
    // `<kind>:<id>` orders as (kind, id) for the kinds there are: the same tie-break as SQLite's ORDER BY kind, id.
    const pairs = [['order', 'b'], ['order', 'b-1'], ['quote', 'a'], ['order', 'a~']] as const;
    const byTuple = [...pairs].sort(([k1, i1], [k2, i2]) => (k1 === k2 ? (i1 < i2 ? -1 : 1) : k1 < k2 ? -1 : 1));
    const byId = [...pairs].sort((x, y) => (actorId(x[0], x[1]) < actorId(y[0], y[1]) ? -1 : 1));
    expect(byId).toEqual(byTuple);
  });
});

describe('MongoDB counts(): read from the (kind, status) index, no snapshot read', () => {
  it('projects only kind and status, and hints an index that starts with them', () => {
    const hinted = ACTOR_INDEXES.find((i) => i.name === COUNTS_HINT)!;
    expect(Object.keys(hinted.key).slice(0, 2)).toEqual(['kind', 'status']);
    expect(COUNTS_PIPELINE[0]).toEqual({ $project: { _id: 0, kind: 1, status: 1 } });
    expect(JSON.stringify(COUNTS_PIPELINE.slice(1))).not.toMatch(/snapshot|history/);
  });
});

describe('MongoDB indexes: a changed definition migrates explicitly instead of failing every worker at start', () => {
  const asListed = (i: (typeof ACTOR_INDEXES)[number]) => ({
    v: 2,
    name: i.name!,
    key: i.key as Record<string, number>,
    ...(i.partialFilterExpression ? { partialFilterExpression: i.partialFilterExpression } : {}),
  });
  const idIndex = { v: 2, name: '_id_', key: { _id: 1 } };

  it('a new collection gets every index and drops nothing', () => {
    expect(planIndexes([])).toEqual({ create: ACTOR_INDEXES, drop: [] });
    expect(planIndexes([idIndex])).toEqual({ create: ACTOR_INDEXES, drop: [] });
  });

  it('a collection of an earlier build gains the (wakeAt, _id) timer indexes, then loses the wakeAt-only ones', () => {
    const earlier = [
      idIndex,
      { v: 2, name: 'wake_at', key: { wakeAt: 1 }, partialFilterExpression: { wakeAt: { $exists: true } } },
      { v: 2, name: 'shard_wake_at', key: { shard: 1, wakeAt: 1 }, partialFilterExpression: { wakeAt: { $exists: true } } },
      ...ACTOR_INDEXES.filter((i) => !['due', 'shard_due'].includes(i.name!)).map(asListed),
    ];
    const plan = planIndexes(earlier);
    expect(plan.create.map((i) => i.name)).toEqual(['due', 'shard_due']);
    expect(plan.drop).toEqual(['wake_at', 'shard_wake_at']);
    expect(RETIRED_ACTOR_INDEXES).toEqual(['wake_at', 'shard_wake_at']);
  });

  it('an up-to-date collection needs nothing (the server lists key directions as numbers, in order)', () => {
    expect(planIndexes([idIndex, ...ACTOR_INDEXES.map(asListed)])).toEqual({ create: [], drop: [] });
  });

  it('an index under a wanted name with another definition stops the start with a message naming it', () => {
    const changed = ACTOR_INDEXES.map(asListed).map((i) => (i.name === 'due' ? { ...i, key: { wakeAt: 1 } } : i));
    expect(() => planIndexes(changed)).toThrow(/actors\.due exists as .*wakeAt.*new name/);
    const unpartial = ACTOR_INDEXES.map(asListed).map((i) => (i.name === 'orders_sender' ? { v: 2, name: i.name, key: i.key } : i));
    expect(() => planIndexes(unpartial)).toThrow(/orders_sender/);
  });
});
