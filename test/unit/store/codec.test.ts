// The JSON codec: bigints survive as {"$bigint": "<decimal>"}, and the text is exactly what JSON.stringify with a
// bigint-tagging replacer writes (the stored snapshots of earlier builds were written that way and must still read).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson, roundTrip } from '../../../src/store/codec.js';

const TAG = '$bigint';
const referenceEncode = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { [TAG]: v.toString() } : v));
const referenceDecode = (text: string): unknown =>
  JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o[TAG] === 'string' && Object.keys(o).length === 1) return BigInt(o[TAG]);
    }
    return v;
  });

/** JSON-like values with bigints, undefined members and tag look-alikes mixed in. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.bigInt(), fc.integer(), fc.double({ noNaN: true }), fc.string(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
  tagLike: fc.oneof(
    fc.record({ [TAG]: fc.bigInt().map(String) }),
    fc.record({ [TAG]: fc.bigInt().map(String), other: fc.integer() }),
    fc.record({ [TAG]: fc.integer() }),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('tagLike'), fc.array(tie('node'), { maxLength: 5 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 5 })),
})).node;

describe('codec', () => {
  it('writes the same text as stringify with the tagging replacer, and reads it back as the reviver did', () => {
    fc.assert(
      fc.property(value, (v) => {
        const text = encodeJson(v);
        expect(text).toBe(referenceEncode(v));
        if (text !== undefined) expect(decodeJson(text)).toEqual(referenceDecode(text));
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips bigints at any depth, and leaves an object with the tag and another key an object', () => {
    const v = { a: 1n, b: [2n, { c: -3n }], d: { [TAG]: '4', e: 5 }, f: 10n ** 40n };
    expect(roundTrip(v)).toEqual(v);
    expect(decodeJson('{"x":{"$bigint":"7"}}')).toEqual({ x: 7n });
    expect(decodeJson('[{"$bigint":"-8"}]')).toEqual([-8n]);
    expect(decodeJson('{"$bigint":"9"}')).toBe(9n);
  });

  it('applies toJSON as stringify does, tagging a bigint it returns, and does not change the value encoded', () => {
    const at = new Date(Date.UTC(2026, 10, 26));
    const v = { at, amount: { toJSON: () => 12n }, list: [1n] };
    expect(encodeJson(v)).toBe('{"at":"2026-11-26T00:00:00.000Z","amount":{"$bigint":"12"},"list":[{"$bigint":"1"}]}');
    expect(v.list[0]).toBe(1n);
  });

  it('writes what stringify writes for the values a replacer never sees alike: boxed primitives, holes, non-finite numbers, -0, functions', () => {
    const holes = [1, 2, 3];
    delete holes[1];
    const v = { n: Object(5), s: Object('x'), b: Object(false), holes, bad: [NaN, Infinity, -0], f: () => 1, u: undefined, list: [undefined, () => 1, Symbol('s')] };
    expect(encodeJson(v)).toBe(referenceEncode(v));
    expect(encodeJson(undefined)).toBe(undefined);
    expect(encodeJson(() => 1)).toBe(undefined);
    expect(encodeJson('plain')).toBe('"plain"');
  });

  it('keeps a "__proto__" key as data in both directions, never as the prototype', () => {
    const text = '{"__proto__":{"$bigint":"5"},"y":{"__proto__":{"polluted":true}}}';
    const got = decodeJson<Record<string, unknown>>(text);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toBe(5n);
    expect((got.y as Record<string, unknown>).polluted).toBeUndefined();
    expect(encodeJson(got)).toBe(text);
  });
});
