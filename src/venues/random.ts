// Seeded randomness of the simulated market: one small PRNG stream per venue, derived from the market's seed,
// so a run with the same seed and the same call order repeats exactly. Floats here never touch an amount.

/** 32-bit FNV-1a of a string; mixes the seed and a venue id into a stream seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast and good enough for simulated latencies and fault draws (not for keys). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The stream of one venue: independent of the other venues, so adding calls to one never shifts another. */
export function venueStream(seed: number, venue: string): () => number {
  return mulberry32(hash32(`sim-market:${seed}:${venue}`));
}

/** A log-normal sample around `median` (Box-Muller on two uniforms); sigma is the spread of ln(latency). */
export function logNormal(median: number, sigma: number, u1: number, u2: number): number {
  const r = Math.sqrt(-2 * Math.log(1 - u1)); // 1 - u1 is in (0, 1], so the log is finite
  const z = r * Math.cos(2 * Math.PI * u2);
  return median * Math.exp(sigma * z);
}
