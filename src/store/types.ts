// The store port: actor snapshots with a version compare-and-set, the fencing epoch, and durable wake-ups.
import type { ActorKind } from '../bus/types.js';

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
}

export interface ActorStore {
  load(kind: ActorKind, id: string): Promise<StoredActor | null>;
  /** Returns the new version. Throws SnapshotConflict when the stored version differs from expectedVersion
   *  or the stored epoch is newer than `epoch`. */
  save(actor: SaveActor): Promise<number>;
  /** Actors whose wakeAt <= now, oldest first. */
  due(now: number, limit: number): Promise<Array<{ kind: ActorKind; id: string; wakeAt: number }>>;
  /** Next value of a named durable counter, starting at 0; never hands out a value twice, across restarts and
   *  processes sharing the store (the vault derivation index uses it). */
  nextSequence(name: string): Promise<number>;
  /** A small durable map beside the actors (deposit address → order, deposit scanner cursors); put overwrites. */
  putKey(space: string, key: string, value: string): Promise<void>;
  getKey(space: string, key: string): Promise<string | null>;
  close(): Promise<void>;
}
