// The store's key entries (outboxes, nonces, deposit owners, a chain's bookkeeping) are JSON text this service wrote.
// They are read back through a check of their shape, not cast: a damaged entry, or one another version wrote without a
// field this one needs, stops the read with the entry named, instead of moving money on a field it does not have.
import type { ActorStore } from './types.js';

/** A check of one value's shape. */
export type Check = (v: unknown) => boolean;
/** A check that also tells the compiler what the value is. */
export type Guard<T> = (v: unknown) => v is T;

/** A key entry whose text is not JSON or not of its shape. */
export class StoredEntryError extends Error {
  override readonly name = 'StoredEntryError';
}

export const isString: Guard<string> = (v): v is string => typeof v === 'string';
export const isInteger: Guard<number> = (v): v is number => Number.isSafeInteger(v);
export const isBoolean: Guard<boolean> = (v): v is boolean => typeof v === 'boolean';
/** Base units written as a decimal integer string. */
export const isUnits: Guard<string> = (v): v is string => typeof v === 'string' && /^[0-9]+$/.test(v);
export const nullable = (check: Check): Check => (v) => v === null || check(v);
/** A field that may be absent (written before it existed, or left out when empty). */
export const optional = (check: Check): Check => (v) => v === undefined || check(v);
export const arrayOf = <T>(check: Guard<T>): Guard<T[]> => (v): v is T[] => Array.isArray(v) && v.every(check);
/** An object whose every own value passes `check` (a map by key). */
export const mapOf = (check: Check): Check => (v) => isObject(v) && Object.values(v).every(check);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object with each named field passing its check; fields not named are allowed. */
export function shapeOf<T>(fields: { [K in keyof T]-?: Check }): Guard<T> {
  return (v: unknown): v is T => isObject(v) && Object.entries<Check>(fields).every(([name, check]) => check(v[name]));
}

/** The entry `raw` (stored under `what`) as a `T`, once its shape is checked. @throws StoredEntryError */
export function readEntry<T>(raw: string, what: string, isShape: Guard<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new StoredEntryError(`The stored entry ${what} is not JSON.`);
  }
  if (!isShape(value)) throw new StoredEntryError(`The stored entry ${what} does not have the shape this service reads: ${raw.slice(0, 300)}`);
  return value;
}

/** The key entry `space/key` of `store`, checked (readEntry), or null when there is none. @throws StoredEntryError */
export async function getEntry<T>(store: Pick<ActorStore, 'getKey'>, space: string, key: string, isShape: Guard<T>): Promise<T | null> {
  const raw = await store.getKey(space, key);
  return raw === null ? null : readEntry(raw, `${space}/${key}`, isShape);
}
