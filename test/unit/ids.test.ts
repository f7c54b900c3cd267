import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('quote and order ids: version-7 uuids that lead with their creation time', () => {
  it('is a uuid of version 7 and the RFC variant, its first 48 bits the time in ms', () => {
    const at = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(V7);
    expect(timeOf(id)).toBe(at);
    expect(timeOf(timeOrderedId())).toBeGreaterThanOrEqual(Date.now() - 1_000);
  });

  it('sorts as its times do, as text and so in every index on it', () => {
    const times = [0, 1, 255, 65_536, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, 2 ** 48 - 1];
    const ids = times.map((t) => timeOrderedId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(timeOf)).toEqual(times);
  });

  it('keeps 74 random bits: ids of the same millisecond differ and are spread over them', () => {
    const ids = Array.from({ length: 2_000 }, () => timeOrderedId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(2_000);
    // Every hex digit after the version and variant fields takes many values across the ids.
    for (const pos of [15, 16, 17, 20, 21, 22, 24, 30, 35]) expect(new Set(ids.map((id) => id[pos])).size).toBeGreaterThan(12);
    expect(new Set(ids.map((id) => id[19])).size).toBe(4);
  });

  it('a time a version-7 uuid cannot hold is refused', () => {
    expect(() => timeOrderedId(-1)).toThrow(RangeError);
    expect(() => timeOrderedId(2 ** 48)).toThrow(RangeError);
  });
});
