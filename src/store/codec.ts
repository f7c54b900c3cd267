// The one JSON codec for anything that leaves memory (snapshots, bus messages): bigint survives as {"$bigint": "<decimal>"}.
// Changing the tag breaks every stored snapshot; keep it.

const TAG = '$bigint';

export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { [TAG]: v.toString() } : v));
}

/**
 * Parses without a reviver, then turns each tagged object back into a bigint in one walk: a reviver is a call from the
 * parser into JavaScript for every value, and costs about three times the parse (every bus message and stored snapshot
 * is decoded here).
 */
export function decodeJson<T = unknown>(text: string): T {
  return revive(JSON.parse(text)) as T;
}

/** `value` with every `{"$bigint": "<decimal>"}` (that key alone) replaced by its bigint, in place. */
function revive(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) value[i] = revive(v);
    }
    return value;
  }
  const o = value as Record<string, unknown>;
  const tagged = o[TAG];
  if (typeof tagged === 'string' && Object.hasOwn(o, TAG) && onlyKey(o)) return BigInt(tagged);
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v !== 'object' || v === null) continue;
    const r = revive(v);
    // Only a bigint differs from what was there; defined, not assigned, so a `__proto__` key stays a plain property.
    if (r !== v) Object.defineProperty(o, k, { value: r, writable: true, enumerable: true, configurable: true });
  }
  return o;
}

function onlyKey(o: Record<string, unknown>): boolean {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k) && ++n > 1) return false;
  return true;
}

/** A value through the wire and back: what a snapshot or a bus message becomes after a store or network round trip. */
export function roundTrip<T>(value: T): T {
  return decodeJson<T>(encodeJson(value));
}
