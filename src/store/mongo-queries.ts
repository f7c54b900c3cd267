// The MongoDB adapter's documents, filters and updates as pure functions, so they can be tested without a server.
// Changing a field name or an _id format orphans every stored document; changing a filter can stop it using its index.
import type { Document, Filter, IndexDescription, Sort, UpdateFilter } from 'mongodb';
import type { ActorKind } from '../bus/types.js';
import type { OrderSummary } from '../orders/summary.js';
import { decodeJson, encodeJson } from './codec.js';
import type { ActorSummary, DueActor, OrderIndex, OrderListRow, OrderQuery, PurgeStale, SaveActor, StoredActor, Transition } from './types.js';

/** One actor in collection `actors`. */
export interface ActorDoc {
  /** `<kind>:<id>`: kinds have no colon, so the prefix `<kind>:` holds exactly the actors of a kind. */
  _id: string;
  kind: ActorKind;
  id: string;
  version: number;
  epoch: number;
  /** The codec's JSON text: bigints survive exactly, and no snapshot key can clash with MongoDB's `$` operators. */
  snapshot: string;
  /** Absent rather than null when there is no wake-up: the timer indexes are partial on `$exists`. */
  wakeAt?: number;
  updatedAt: number;
  shard: number;
  status: string | null;
  history: Transition[];
  /** Orders with an index only; absent otherwise (the order indexes are partial on `order.createdAt`). */
  order?: OrderIndexDoc;
}

/**
 * The order index as stored: the fields listOrders filters on as they are, the summary as codec JSON text like the
 * snapshot (its bigints exceed what BSON's int64 holds, and it is only ever read whole). An order indexed by an older
 * build has neither listStatus nor summary; listOrders leaves it out until a save writes its index again.
 */
export interface OrderIndexDoc extends Omit<OrderIndex, 'listStatus' | 'summary'> {
  listStatus?: OrderIndex['listStatus'];
  summary?: string;
}

export function toOrderIndexDoc(i: OrderIndex): OrderIndexDoc {
  return { ...i, summary: encodeJson(i.summary) };
}

export interface SequenceDoc {
  _id: string;
  next: number;
}

export interface KeyedDoc {
  _id: { space: string; key: string };
  value: string;
}

export function actorId(kind: ActorKind, id: string): string {
  return `${kind}:${id}`;
}

const hasWake = { wakeAt: { $exists: true } } as const;
const hasOrderIndex = { 'order.createdAt': { $exists: true } } as const;

// The server refuses to create an index under an existing name with other keys (error 86) or existing keys under
// another name (85), and every worker creates these at start: a changed definition therefore gets a new name, the
// name it replaces goes to RETIRED_ACTOR_INDEXES, and planIndexes refuses to start over a definition that differs
// from the one named here rather than fail on the server's error.
export const ACTOR_INDEXES: IndexDescription[] = [
  // due() without shards (embedded mode, one owner) and with them (a worker's shards), in DUE_SORT order.
  { name: 'due', key: { wakeAt: 1, _id: 1 }, partialFilterExpression: hasWake },
  { name: 'shard_due', key: { shard: 1, wakeAt: 1, _id: 1 }, partialFilterExpression: hasWake },
  // list() by status; list() without status walks the _id index over the `<kind>:` prefix.
  { name: 'kind_status_id', key: { kind: 1, status: 1, _id: 1 } },
  // listOrders(): newest first, alone or behind one equality filter (two for an address with the list status).
  { name: 'orders_created', key: { 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  { name: 'orders_destination', key: { 'order.destination': 1, 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  { name: 'orders_sender', key: { 'order.sender': 1, 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  { name: 'orders_refund', key: { 'order.refund': 1, 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  { name: 'orders_status', key: { status: 1, 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  { name: 'orders_list_status', key: { 'order.listStatus': 1, 'order.createdAt': -1, _id: -1 }, partialFilterExpression: hasOrderIndex },
  // The list status beside an address: the address's index alone would read every order of a busy address to find
  // the few of a rare status.
  ...(['destination', 'sender', 'refund'] as const).map((address) => ({
    name: `orders_${address}_list_status`,
    key: { [`order.${address}`]: 1, 'order.listStatus': 1, 'order.createdAt': -1, _id: -1 },
    partialFilterExpression: hasOrderIndex,
  })),
  // purgeStale(): the stale actors of a kind and status, oldest save first, without walking the live ones.
  { name: 'kind_status_updated', key: { kind: 1, status: 1, updatedAt: 1 } },
];

/** Indexes earlier builds created that ACTOR_INDEXES replaces: the timer indexes ordered by wakeAt alone. */
export const RETIRED_ACTOR_INDEXES: readonly string[] = ['wake_at', 'shard_wake_at'];

/** An index as `listIndexes` describes it (the fields the plan compares). */
export interface ExistingIndex {
  name: string;
  key: Document;
  partialFilterExpression?: Document;
  unique?: boolean;
}

export interface IndexPlan {
  /** Wanted indexes that do not exist yet. */
  create: IndexDescription[];
  /** Retired indexes that still exist, dropped once `create` is done (so the timers are never left without one). */
  drop: string[];
}

function definition(i: { key?: unknown; partialFilterExpression?: unknown; unique?: unknown }): string {
  const key = Object.entries((i.key ?? {}) as Record<string, unknown>).map(([field, dir]) => [field, Number(dir)]);
  return JSON.stringify([key, i.partialFilterExpression ?? null, i.unique === true]);
}

/**
 * The explicit migration from the indexes that exist to ACTOR_INDEXES. Throws when an index has a wanted name and
 * another definition: creating it would fail on every worker, and dropping it silently would change a running
 * deployment's plans behind its operators.
 */
export function planIndexes(
  existing: readonly ExistingIndex[],
  wanted: readonly IndexDescription[] = ACTOR_INDEXES,
  retired: readonly string[] = RETIRED_ACTOR_INDEXES,
): IndexPlan {
  const byName = new Map(existing.map((i) => [i.name, i]));
  const create: IndexDescription[] = [];
  for (const w of wanted) {
    const have = byName.get(w.name!);
    if (!have) create.push(w);
    else if (definition(have) !== definition(w)) {
      throw new Error(
        `MongoDB index actors.${w.name} exists as ${definition(have)}, but this build defines it as ${definition(w)}. ` +
          'A changed index needs a new name (the old one listed as retired), or an operator drops the old index.',
      );
    }
  }
  return { create, drop: retired.filter((name) => byName.has(name)) };
}

/** The document of an actor saved for the first time (expectedVersion 0). */
export function newActorDoc(a: SaveActor): ActorDoc {
  const doc: ActorDoc = {
    _id: actorId(a.kind, a.id),
    kind: a.kind,
    id: a.id,
    version: 1,
    epoch: a.epoch,
    snapshot: encodeJson(a.snapshot),
    updatedAt: a.updatedAt,
    shard: a.shard ?? 0,
    status: a.status ?? null,
    history: a.history ?? [],
  };
  if (a.wakeAt !== null) doc.wakeAt = a.wakeAt;
  if (a.kind === 'order' && a.index) doc.order = toOrderIndexDoc(a.index);
  return doc;
}

/** Compare-and-set of a save over an existing actor: matches only the version read and an epoch not newer. */
export function saveFilter(a: SaveActor): Filter<ActorDoc> {
  return { _id: actorId(a.kind, a.id), version: a.expectedVersion, epoch: { $lte: a.epoch } };
}

/** The update of a save over an existing actor. Absent status, history and index keep what is stored. */
export function saveUpdate(a: SaveActor): UpdateFilter<ActorDoc> {
  const set: Partial<ActorDoc> = {
    epoch: a.epoch,
    snapshot: encodeJson(a.snapshot),
    updatedAt: a.updatedAt,
    shard: a.shard ?? 0,
  };
  const unset: Record<string, ''> = {};
  if (a.wakeAt === null) unset.wakeAt = '';
  else set.wakeAt = a.wakeAt;
  if (a.status !== undefined) set.status = a.status;
  if (a.history !== undefined) set.history = a.history;
  if (a.kind === 'order' && a.index !== undefined) {
    if (a.index === null) unset.order = '';
    else set.order = toOrderIndexDoc(a.index);
  }
  const update: UpdateFilter<ActorDoc> = { $set: set, $inc: { version: 1 } };
  if (Object.keys(unset).length > 0) update.$unset = unset;
  return update;
}

export function toStoredActor(d: ActorDoc): StoredActor {
  return {
    kind: d.kind,
    id: d.id,
    version: d.version,
    epoch: d.epoch,
    snapshot: decodeJson(d.snapshot),
    wakeAt: d.wakeAt ?? null,
    updatedAt: d.updatedAt,
    shard: d.shard ?? 0,
    status: d.status ?? null,
    history: (d.history ?? []).map((t) => ({ status: t.status, at: t.at })),
  };
}

export function dueFilter(now: number, shards?: readonly number[], after?: DueActor): Filter<ActorDoc> {
  // `$exists` repeated in the query so the planner may use the partial timer indexes.
  const filter: Filter<ActorDoc> = { wakeAt: { $exists: true, $lte: now } };
  if (shards !== undefined) filter.shard = { $in: [...shards] };
  // The next page: strictly after the last row of the page before, in DUE_SORT order.
  if (after !== undefined) {
    filter.$or = [{ wakeAt: { $gt: after.wakeAt } }, { wakeAt: after.wakeAt, _id: { $gt: actorId(after.kind, after.id) } }];
  }
  return filter;
}

/** The actors purgeStale() deletes; it is also the delete's own filter, so one saved since the read stays. */
export function staleFilter(q: PurgeStale): Filter<ActorDoc> {
  const filter: Filter<ActorDoc> = { kind: q.kind, status: { $in: [...q.statuses] }, updatedAt: { $lt: q.updatedBefore } };
  if (q.shards !== undefined) filter.shard = { $in: [...q.shards] };
  return filter;
}

/** Oldest first, ties by _id (kind, then id): with more due actors than the limit, every poll gets the same batch. */
export const DUE_SORT: Sort = { wakeAt: 1, _id: 1 };

export function listFilter(q: { kind: ActorKind; status?: readonly string[]; afterId?: string }): Filter<ActorDoc> {
  // `;` follows `:`: the range holds exactly the ids of this kind, so ordering by _id is ordering by id.
  const filter: Filter<ActorDoc> = {
    kind: q.kind,
    _id: { $gt: actorId(q.kind, q.afterId ?? ''), $lt: `${q.kind};` },
  };
  if (q.status !== undefined) filter.status = { $in: [...q.status] };
  return filter;
}

export const LIST_SORT: Sort = { _id: 1 };

/** What a listing reads: everything but the snapshot and history, which can be large. */
export const SUMMARY_PROJECTION: Document = { snapshot: 0, history: 0 };

export function toSummary(d: ActorDoc): ActorSummary {
  return {
    kind: d.kind,
    id: d.id,
    status: d.status ?? null,
    version: d.version,
    epoch: d.epoch,
    shard: d.shard ?? 0,
    wakeAt: d.wakeAt ?? null,
    updatedAt: d.updatedAt,
  };
}

export function orderFilter(q: OrderQuery): Filter<ActorDoc> {
  // `order.summary` $exists leaves out orders an older build indexed without a summary (see OrderIndexDoc); it is
  // checked on the documents the index hands over, which are read whole anyway.
  const filter: Filter<ActorDoc> = { kind: 'order', ...hasOrderIndex, 'order.summary': { $exists: true } };
  if (q.sender !== undefined) filter['order.sender'] = q.sender;
  if (q.destination !== undefined) filter['order.destination'] = q.destination;
  if (q.refund !== undefined) filter['order.refund'] = q.refund;
  if (q.orderType !== undefined) filter['order.orderType'] = q.orderType;
  if (q.listStatus !== undefined) filter['order.listStatus'] = q.listStatus;
  if (q.status !== undefined) filter.status = { $in: [...q.status] };
  if (q.after !== undefined) {
    // Strictly after the cursor in the list's order (createdAt desc, then id desc).
    filter.$or = [
      { 'order.createdAt': { $lt: q.after.createdAt } },
      { 'order.createdAt': q.after.createdAt, _id: { $lt: actorId('order', q.after.id) } },
    ];
  }
  return filter;
}

export const ORDER_SORT: Sort = { 'order.createdAt': -1, _id: -1 };

/** A document orderFilter matched: it has an order index with its list status and summary. */
export function toOrderRow(d: ActorDoc): OrderListRow {
  const o = d.order;
  if (o?.listStatus === undefined || o.summary === undefined) {
    throw new Error(`order ${d.id} has no list status or summary in its index; listOrders should not have matched it`);
  }
  return {
    id: d.id,
    status: d.status ?? null,
    updatedAt: d.updatedAt,
    sender: o.sender,
    destination: o.destination,
    refund: o.refund,
    orderType: o.orderType,
    createdAt: o.createdAt,
    listStatus: o.listStatus,
    summary: decodeJson<OrderSummary>(o.summary),
  };
}

/** counts() reads only kind and status, so the (kind, status) index answers it without reading one snapshot. */
export const COUNTS_PIPELINE: Document[] = [
  { $project: { _id: 0, kind: 1, status: 1 } },
  { $group: { _id: { kind: '$kind', status: '$status' }, count: { $sum: 1 } } },
  { $sort: { '_id.kind': 1, '_id.status': 1 } },
];

/** The index counts() is told to use: without a filter or a sort the planner would scan the collection. */
export const COUNTS_HINT = 'kind_status_id';

export function toCount(d: Document): { kind: ActorKind; status: string | null; count: number } {
  const g = d as { _id: { kind: ActorKind; status?: string | null }; count: number };
  return { kind: g._id.kind, status: g._id.status ?? null, count: g.count };
}
