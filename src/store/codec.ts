// The one JSON codec for anything that leaves memory (snapshots, bus messages): bigint survives as {"$bigint": "<decimal>"}.
// Changing the tag breaks every stored snapshot; keep it.
// Every quote goes through it several times (bus request and reply, snapshot), so decoding avoids JSON.parse's reviver,
// a callback per value that made it twice as slow: the text is parsed plainly and the tagged objects are replaced in the
// parsed tree. (Encoding keeps stringify's replacer: tagging a copy first measured no faster.)

const TAG = '$bigint';

export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { [TAG]: v.toString() } : v));
}

/** Replaces, in place, each object that is exactly {"$bigint": "<decimal>"} by its bigint (JSON.parse's own tree). */
function untagged(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i] as unknown;
      if (typeof v === 'object' && v !== null) value[i] = untagged(v);
    }
    return value;
  }
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  const tag = o[TAG];
  if (typeof tag === 'string' && keys.length === 1 && Object.hasOwn(o, TAG)) return BigInt(tag);
  for (const k of keys) {
    const v = o[k];
    if (typeof v !== 'object' || v === null) continue;
    const u = untagged(v);
    if (u === v) continue;
    // As above: JSON.parse made "__proto__" an own data property; it stays one.
    if (k === '__proto__') Object.defineProperty(o, k, { value: u, enumerable: true, writable: true, configurable: true });
    else o[k] = u;
  }
  return o;
}

export function decodeJson<T = unknown>(text: string): T {
  return untagged(JSON.parse(text)) as T;
}

/** A value through the wire and back: what a snapshot or a bus message becomes after a store or network round trip. */
export function roundTrip<T>(value: T): T {
  return decodeJson<T>(encodeJson(value));
}
