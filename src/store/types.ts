// The store port: actor snapshots with a version compare-and-set, the fencing epoch, and durable wake-ups.
import type { ActorKind } from '../bus/types.js';
import type { WriteTicket } from './write-ticket.js';
import type { ListStatus, OrderSummary } from '../orders/summary.js';

export interface StoredActor {
  kind: ActorKind;
  id: string;
  /** Increases by one on every save; 0 means never saved. */
  version: number;
  /** Lease epoch of the writer (fencing); embedded mode writes 0. */
  epoch: number;
  /** The persisted XState snapshot, already decoded from the JSON codec. */
  snapshot: unknown;
  /** Epoch ms when the runtime must wake the actor, or null. */
  wakeAt: number | null;
  updatedAt: number;
  /** Shard of the actor (`shardOf(id, shards)`); a worker polls the timers of the shards it owns. */
  shard: number;
  /** Coarse state for listing: the Family A status of an order, the machine state of a quote; null if never given. */
  status: string | null;
  /** State changes with their times, oldest first (the runtime keeps the last HISTORY_LIMIT), for operators. */
  history: Transition[];
}

/** One state change of an actor, as operators read it. */
export interface Transition {
  status: string;
  at: number;
}

/** Fields of an order that Family C's `GET /orders` filters on; written beside the order's snapshot. */
export interface OrderIndex {
  /** Sender of the first deposit; null until a deposit is seen. */
  sender: string | null;
  destination: string;
  refund: string | null;
  orderType: 'market' | 'limit';
  createdAt: number;
  /** The coarse status of the list (filterable). */
  listStatus: ListStatus;
  /** What a list item shows, stored as it is so a page needs no snapshot. */
  summary: OrderSummary;
}

export interface ActorSummary {
  kind: ActorKind;
  id: string;
  status: string | null;
  version: number;
  epoch: number;
  shard: number;
  wakeAt: number | null;
  updatedAt: number;
}

export interface OrderListRow extends OrderIndex {
  id: string;
  status: string | null;
  updatedAt: number;
}

export interface OrderQuery {
  sender?: string;
  destination?: string;
  refund?: string;
  orderType?: 'market' | 'limit';
  /** Any of these statuses (Family A statuses); absent = all. */
  status?: readonly string[];
  /** Only this coarse status; absent = all. */
  listStatus?: ListStatus;
  /** 1..1000. */
  limit: number;
  /** Rows strictly after this one in the order of the list (newest first: createdAt desc, then id desc). */
  after?: { createdAt: number; id: string };
}

export const HISTORY_LIMIT = 100;

/** One entry of the store's small durable key map (see ActorStore.putKey). */
export interface KeyEntry {
  space: string;
  key: string;
  value: string;
}

export interface SaveActor {
  kind: ActorKind;
  id: string;
  snapshot: unknown;
  /** The version read (0 for a new actor); a mismatch throws SnapshotConflict. */
  expectedVersion: number;
  epoch: number;
  wakeAt: number | null;
  updatedAt: number;
  /** Defaults to 0 (embedded mode, one shard owner). */
  shard?: number;
  /** Absent keeps the stored status (null for a new actor). */
  status?: string | null;
  /** Replaces the stored history (the runtime sends the whole list, at most HISTORY_LIMIT entries); absent keeps it. */
  history?: Transition[];
  /** Orders only (ignored for other kinds): the fields `listOrders` filters on; null removes the order from
   *  `listOrders`, absent keeps the stored index. */
  index?: OrderIndex | null;
  /** Entries put into the key map with this snapshot, atomically: a refused save writes none of them, and none is
   *  readable before the snapshot is (an order's deposit address → order, written with its first snapshot). */
  keys?: readonly KeyEntry[];
}

/** How a write is tied to others (see WriteTicket). */
export interface WriteOptions {
  /** This write's ticket, for a later write to follow. */
  ticket?: WriteTicket;
  /** The ticket of a write this one follows. */
  after?: WriteTicket;
}

/** An actor whose durable wake-up is due, as `ActorStore.due` lists it. */
export interface DueActor {
  kind: ActorKind;
  id: string;
  wakeAt: number;
}

export interface ActorStore {
  load(kind: ActorKind, id: string): Promise<StoredActor | null>;
  /** Returns the new version. Throws SnapshotConflict when the stored version differs from expectedVersion
   *  or the stored epoch is newer than `epoch`. */
  save(actor: SaveActor, opts?: WriteOptions): Promise<number>;
  /** Creates an actor whose first snapshot needs the next value of a named durable counter (an order's deposit vault
   *  index): takes the value, then saves `build(value)` (expectedVersion 0) with its keys. Like nextSequence it never
   *  hands a value out twice; a value whose save was refused or lost in a crash is skipped. The SQLite adapter does
   *  it all in one transaction. `build` must be pure (an adapter may call it again with another value). Returns the
   *  value taken; a refused save throws SnapshotConflict as `save` does. */
  createNumbered(sequence: string, build: (value: number) => SaveActor, opts?: WriteOptions): Promise<number>;
  /** Actors whose wakeAt <= now, oldest first, equal wakeAt by kind then id (so a batch cut by `limit` is the same on
   *  every poll until its timers are cleared); only those of `shards` when given (a worker's owned shards); only those
   *  strictly after `after` in that order when given (the last row of the page before: the next page). */
  due(now: number, limit: number, shards?: readonly number[], after?: DueActor): Promise<DueActor[]>;
  /** Actors of a kind, by id ascending, optionally of some statuses, after an id (admin listing). */
  list(q: { kind: ActorKind; status?: readonly string[]; limit: number; afterId?: string }): Promise<ActorSummary[]>;
  /** Number of actors per kind and status (admin counts). */
  counts(): Promise<Array<{ kind: ActorKind; status: string | null; count: number }>>;
  /** Orders by the index fields, newest first (Family C `GET /orders`). */
  listOrders(q: OrderQuery): Promise<OrderListRow[]>;
  /** Next value of a named durable counter, starting at 0; never hands out a value twice, across restarts and
   *  processes sharing the store (the vault derivation index uses it). */
  nextSequence(name: string): Promise<number>;
  /** A small durable map beside the actors (deposit address → order, deposit scanner cursors); put overwrites. */
  putKey(space: string, key: string, value: string): Promise<void>;
  getKey(space: string, key: string): Promise<string | null>;
  /** Deletes up to `limit` actors of `kind` whose status is one of `statuses` and whose last save is older than
   *  `updatedBefore` (only those of `shards` when given); returns how many. Each deletion re-checks the condition, so
   *  an actor saved meanwhile (a quote bound since) stays. Storage retention uses it. */
  purgeStale(q: PurgeStale): Promise<number>;
  close(): Promise<void>;
}

export interface PurgeStale {
  kind: ActorKind;
  statuses: readonly string[];
  updatedBefore: number;
  /** 1..10000. */
  limit: number;
  shards?: readonly number[];
}
