// The store's key entries (outboxes, nonces, deposit owners, a chain's bookkeeping) are JSON text this service wrote.
// They are read back through a check of their shape, not cast: a damaged entry, or one another version wrote without a
// field this one needs, stops the read with the entry named, instead of moving money on a field it does not have.
import { describeWrongAt, type Guard } from '../checks.js';
import type { ActorStore } from './types.js';

/** A key entry whose text is not JSON or not of its shape. */
export class StoredEntryError extends Error {
  override readonly name = 'StoredEntryError';
}

/** The entry `raw` (stored under `what`) as a `T`, once its shape is checked. @throws StoredEntryError */
export function readEntry<T>(raw: string, what: string, isShape: Guard<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new StoredEntryError(`The stored entry ${what} is not JSON.`);
  }
  if (!isShape(value)) {
    throw new StoredEntryError(`The stored entry ${what} does not have the shape this service reads: it fails at ${describeWrongAt(isShape, value)}: ${raw.slice(0, 300)}`);
  }
  return value;
}

/** The key entry `space/key` of `store`, checked (readEntry), or null when there is none. @throws StoredEntryError */
export async function getEntry<T>(store: Pick<ActorStore, 'getKey'>, space: string, key: string, isShape: Guard<T>): Promise<T | null> {
  const raw = await store.getKey(space, key);
  return raw === null ? null : readEntry(raw, `${space}/${key}`, isShape);
}
