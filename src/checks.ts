// Checks of a value's shape at run time, for what crosses a boundary as JSON (stored key entries, bus messages, admin
// answers): read through a check, not cast, a value of another shape is refused where it arrives, with its source
// named, instead of failing later on a field it does not have. A refusal names the first place that does not read
// (`wrongAt`): each composite check registers how to find it, so the checks themselves stay plain predicates.

/** A check of one value's shape. */
export type Check = (v: unknown) => boolean;
/** A check that also tells the compiler what the value is. */
export type Guard<T> = (v: unknown) => v is T;

export const isString: Guard<string> = (v): v is string => typeof v === 'string';
export const isNumber: Guard<number> = (v): v is number => typeof v === 'number' && Number.isFinite(v);
export const isInteger: Guard<number> = (v): v is number => Number.isSafeInteger(v);
export const isBoolean: Guard<boolean> = (v): v is boolean => typeof v === 'boolean';
export const isBigint: Guard<bigint> = (v): v is bigint => typeof v === 'bigint';
/** Base units written as a decimal integer string. */
export const isUnits: Guard<string> = (v): v is string => typeof v === 'string' && /^[0-9]+$/.test(v);
/** How a composite check finds the first place in a value that fails it, as a path ('' = the value itself). */
const WHERE = new WeakMap<Check, (v: unknown) => string>();

function located<C extends Check>(check: C, where: (v: unknown) => string): C {
  WHERE.set(check, where);
  return check;
}

/** The path in `v` (`request.amountIn`, `steps[2].venue`) of the first place that fails `check`; '' for `v` itself.
 *  Meaningful for a value that fails the check. */
export function wrongAt(check: Check, v: unknown): string {
  return WHERE.get(check)?.(v) ?? '';
}

/** `wrongAt` as a reader sees it: the path in backquotes, or "the value itself". */
export function describeWrongAt(check: Check, v: unknown): string {
  const path = wrongAt(check, v);
  return path === '' ? 'the value itself' : `\`${path}\``;
}

/** `sub`, a path inside the value at `step`, joined to it. */
const under = (step: string, sub: string): string => (sub === '' || sub.startsWith('[') ? step + sub : `${step}.${sub}`);

export const nullable = (check: Check): Check => located((v) => v === null || check(v), (v) => wrongAt(check, v));
/** A field that may be absent (written before it existed, or left out when empty). */
export const optional = (check: Check): Check => located((v) => v === undefined || check(v), (v) => wrongAt(check, v));
export const arrayOf = <T>(check: Guard<T>): Guard<T[]> =>
  located((v): v is T[] => Array.isArray(v) && v.every(check), (v) => {
    if (!Array.isArray(v)) return '';
    const i = v.findIndex((x) => !check(x));
    return i < 0 ? '' : under(`[${i}]`, wrongAt(check, v[i]));
  });
/** An object whose every own value passes `check` (a map by key). */
export const mapOf = (check: Check): Check =>
  located((v) => isObject(v) && Object.values(v).every(check), (v) => {
    if (!isObject(v)) return '';
    const key = Object.keys(v).find((k) => !check(v[k]));
    return key === undefined ? '' : under(`[${JSON.stringify(key)}]`, wrongAt(check, v[key]));
  });
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
  const guard = (v: unknown): v is T => {
    if (!isObject(v)) return false;
    for (let i = 0; i < entries.length; i++) if (!entries[i]![1](v[entries[i]![0]])) return false;
    return true;
  };
  return located(guard, (v) => {
    if (!isObject(v)) return '';
    const failing = entries.find(([name, check]) => !check(v[name]));
    return failing === undefined ? '' : under(failing[0], wrongAt(failing[1], v[failing[0]]));
  });
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
  const variantOf = (v: Record<string, unknown>): Check | undefined => {
    const tag = v[field];
    return typeof tag === 'string' && Object.hasOwn(checks, tag) ? checks[tag] : undefined;
  };
  const guard = (v: unknown): v is T => {
    if (!isObject(v)) return false;
    const check = variantOf(v);
    return check !== undefined && check(v);
  };
  return located(guard, (v) => {
    if (!isObject(v)) return '';
    const check = variantOf(v);
    return check === undefined ? field : wrongAt(check, v);
  });
}
