// Checks of a value's shape at run time, for what crosses a boundary as JSON (stored key entries, bus messages, admin
// answers): read through a check, not cast, a value of another shape is refused where it arrives, with its source
// named, instead of failing later on a field it does not have.

/** A check of one value's shape. */
export type Check = (v: unknown) => boolean;
/** A check that also tells the compiler what the value is. */
export type Guard<T> = (v: unknown) => v is T;

export const isString: Guard<string> = (v): v is string => typeof v === 'string';
export const isNumber: Guard<number> = (v): v is number => typeof v === 'number' && Number.isFinite(v);
export const isInteger: Guard<number> = (v): v is number => Number.isSafeInteger(v);
export const isBoolean: Guard<boolean> = (v): v is boolean => typeof v === 'boolean';
export const isBigint: Guard<bigint> = (v): v is bigint => typeof v === 'bigint';
/** Any JSON value, present (`details` of an error, raw venue payloads). */
export const isPresent: Check = (v) => v !== undefined;
/** Base units written as a decimal integer string. */
export const isUnits: Guard<string> = (v): v is string => typeof v === 'string' && /^[0-9]+$/.test(v);
export const nullable = (check: Check): Check => (v) => v === null || check(v);
/** A field that may be absent (written before it existed, or left out when empty). */
export const optional = (check: Check): Check => (v) => v === undefined || check(v);
export const arrayOf = <T>(check: Guard<T>): Guard<T[]> => (v): v is T[] => Array.isArray(v) && v.every(check);
/** An object whose every own value passes `check` (a map by key). */
export const mapOf = (check: Check): Check => (v) => isObject(v) && Object.values(v).every(check);
/** One of the listed literals. */
export const oneOf = <const L extends readonly (string | number | boolean)[]>(values: L): Guard<L[number]> => {
  const set = new Set<unknown>(values);
  return (v): v is L[number] => set.has(v);
};

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object with each named field passing its check; fields not named are allowed. */
export function shapeOf<T>(fields: { [K in keyof T]-?: Check }): Guard<T> {
  const entries = Object.entries<Check>(fields);
  return (v: unknown): v is T => {
    if (!isObject(v)) return false;
    for (let i = 0; i < entries.length; i++) if (!entries[i]![1](v[entries[i]![0]])) return false;
    return true;
  };
}

/** Any of the guarded shapes (a union); each alternative is tried in turn. */
export function anyOf<G extends Guard<unknown>[]>(...guards: G): Guard<G[number] extends Guard<infer T> ? T : never> {
  return (v: unknown): v is G[number] extends Guard<infer T> ? T : never => guards.some((g) => g(v));
}

/** Any value, or none: a field whose content is free (an error's `details`). */
export const anything: Check = () => true;

/** A union told apart by its string `field`: one check per variant, and the compiler fails the build when a variant
 *  of `T` has none. */
export function variantsOf<T extends Record<D, string>, D extends string>(field: D, table: { readonly [V in T[D]]: Guard<Extract<T, Record<D, V>>> }): Guard<T> {
  const checks: Readonly<Record<string, Check>> = table;
  return (v): v is T => {
    if (!isObject(v)) return false;
    const tag = v[field];
    return typeof tag === 'string' && Object.hasOwn(checks, tag) && checks[tag]!(v);
  };
}
