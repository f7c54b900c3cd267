// The one JSON codec for anything that leaves memory (snapshots, bus messages): bigint survives as {"$bigint": "<decimal>"}.
// Changing the tag breaks every stored snapshot; keep it.
// Every quote goes through it several times (bus request and reply, snapshot), so neither direction calls back per
// value: decoding parses plainly and replaces the tagged objects in the parsed tree (JSON.parse's reviver made it twice
// as slow), and encoding writes the text itself, with JSON.stringify only for strings (stringify with a tagging
// replacer took about twice as long; the text is the same, which the codec's tests check against it).

const TAG = '$bigint';

/** JSON.stringify(value, replacer tagging bigints): the same text, undefined where stringify gives undefined. */
export function encodeJson(value: unknown): string {
  return text(value, '') as string;
}

// Object keys repeat across every snapshot and message: each one's quoted form is made once.
const KEY_CACHE_LIMIT = 4096;
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < KEY_CACHE_LIMIT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** The text of one value as stringify writes it under `key` of its holder; undefined where stringify leaves it out. */
function text(value: unknown, key: string | number): string | undefined {
  let v = value;
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint')) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = (toJSON as (k: string) => unknown).call(v, String(key));
  }
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `{"${TAG}":"${v.toString()}"}`;
    case 'object': {
      if (v === null) return 'null';
      // Boxed primitives are written as their values (none of the router's own values is one).
      if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) return text(v.valueOf(), key);
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + (text(v[i], i) ?? 'null');
        return `${out}]`;
      }
      const o = v as Record<string, unknown>;
      let out = '{';
      for (const k of Object.keys(o)) {
        const t = text(o[k], k);
        if (t !== undefined) out += (out.length === 1 ? '' : ',') + quotedKey(k) + t;
      }
      return `${out}}`;
    }
    default:
      // undefined, functions and symbols: left out of objects, null in arrays, as stringify does.
      return undefined;
  }
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
