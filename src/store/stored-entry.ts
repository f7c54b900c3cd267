// The store's key entries (outboxes, nonces, deposit owners, a chain's bookkeeping) are JSON text this service wrote.
// They are read back through a check of their shape, not cast: a damaged entry, or one another version wrote without a
// field this one needs, stops the read with the entry named, instead of moving money on a field it does not have.

/** A check of one value's shape. */
export type Check = (v: unknown) => boolean;

/** A key entry whose text is not JSON or not of its shape. */
export class StoredEntryError extends Error {
  override readonly name = 'StoredEntryError';
}

export const isString: Check = (v) => typeof v === 'string';
export const isInteger: Check = (v) => Number.isSafeInteger(v);
export const isBoolean: Check = (v) => typeof v === 'boolean';
/** Base units written as a decimal integer string. */
export const isUnits: Check = (v) => typeof v === 'string' && /^[0-9]+$/.test(v);
export const nullable = (check: Check): Check => (v) => v === null || check(v);
/** A field that may be absent (written before it existed, or left out when empty). */
export const optional = (check: Check): Check => (v) => v === undefined || check(v);
export const arrayOf = (check: Check): Check => (v) => Array.isArray(v) && v.every(check);
/** An object whose every own value passes `check` (a map by key). */
export const mapOf = (check: Check): Check => (v) => isObject(v) && Object.values(v).every(check);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object with each named field passing its check; fields not named are allowed. */
export function shapeOf<T>(fields: { [K in keyof T]-?: Check }): (v: unknown) => v is T {
  return (v: unknown): v is T => isObject(v) && Object.entries<Check>(fields).every(([name, check]) => check(v[name]));
}

/** The entry `raw` (stored under `what`) as a `T`, once its shape is checked. @throws StoredEntryError */
export function readEntry<T>(raw: string, what: string, isShape: (v: unknown) => v is T): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new StoredEntryError(`The stored entry ${what} is not JSON.`);
  }
  if (!isShape(value)) throw new StoredEntryError(`The stored entry ${what} does not have the shape this service reads: ${raw.slice(0, 300)}`);
  return value;
}
