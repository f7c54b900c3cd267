// The one JSON codec for anything that leaves memory (snapshots, bus messages): bigint survives as {"$bigint": "<decimal>"}.
// Changing the tag breaks every stored snapshot; keep it.

const TAG = '$bigint';

export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { [TAG]: v.toString() } : v));
}

export function decodeJson<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const tagged = o[TAG];
      if (typeof tagged === 'string' && Object.keys(o).length === 1) return BigInt(tagged);
    }
    return v;
  }) as T;
}

/** A value through the wire and back: what a snapshot or a bus message becomes after a store or network round trip. */
export function roundTrip<T>(value: T): T {
  return decodeJson<T>(encodeJson(value));
}
