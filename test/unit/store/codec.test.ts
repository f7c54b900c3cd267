// The JSON codec every snapshot and bus message goes through: bigints survive as {"$bigint": "<decimal>"}, and only
// an object with that key alone is read back as one.
import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson, roundTrip } from '../../../src/store/codec.js';

describe('JSON codec', () => {
  it('carries bigints at any depth, in objects and arrays, and at the top', () => {
    const value = { a: 1n, b: [2n, { c: -3n, d: [4n] }], e: 'x', f: null, g: 12345678901234567890123n, h: [] as bigint[] };
    expect(encodeJson({ a: 1n })).toBe('{"a":{"$bigint":"1"}}');
    expect(roundTrip(value)).toEqual(value);
    expect(decodeJson(encodeJson(7n))).toBe(7n);
    expect(decodeJson(encodeJson([8n, 9n]))).toEqual([8n, 9n]);
  });

  it('leaves a tagged object with other keys, or a tag that is not a string, as it is', () => {
    expect(decodeJson('{"x":{"$bigint":"1","y":2}}')).toEqual({ x: { $bigint: '1', y: 2 } });
    expect(decodeJson('{"x":{"$bigint":1}}')).toEqual({ x: { $bigint: 1 } });
    expect(decodeJson('{"x":{}}')).toEqual({ x: {} });
  });

  it('keeps a `__proto__` key a plain property, also when it holds a bigint', () => {
    const o = decodeJson<Record<string, unknown>>('{"__proto__":{"$bigint":"5"},"n":{"__proto__":{"polluted":true}}}');
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(o, '__proto__')?.value).toBe(5n);
    const n = o.n as Record<string, unknown>;
    expect(Object.getPrototypeOf(n)).toBe(Object.prototype);
    expect((n as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
