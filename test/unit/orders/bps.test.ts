// Basis points as exact fractions: a slippage guard of a fraction of a basis point is computed exactly in base units.
import { describe, expect, it } from 'vitest';
import { bpsAsDecimal, bpsFraction, lessBps, plusBps } from '../../../src/orders/bps.js';

describe('Basis points: any number from 0 to 10000, kept exactly', () => {
  it('reads a number from its shortest decimal form', () => {
    expect(bpsFraction(100)).toEqual({ num: 100n, den: 1n });
    expect(bpsFraction(12.5)).toEqual({ num: 125n, den: 10n });
    expect(bpsFraction(0.1)).toEqual({ num: 1n, den: 10n });
    expect(bpsFraction(1e-7)).toEqual({ num: 1n, den: 10_000_000n });
    expect(bpsFraction(0)).toEqual({ num: 0n, den: 1n });
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => bpsFraction(bad)).toThrow(RangeError);
  });

  it('lessBps rounds down and plusBps rounds up, exactly at whole and fractional basis points', () => {
    expect(lessBps(1_000_000n, 100)).toBe(990_000n);
    expect(lessBps(1_000_001n, 12.5)).toBe((1_000_001n * 99_875n) / 100_000n);
    expect(plusBps(1_000_001n, 33)).toBe(1_003_302n); // 1 003 301.0033 up
    expect(plusBps(1_000_000n, 0.25)).toBe(1_000_025n);
    expect(lessBps(5n, 10_000)).toBe(0n);
    expect(plusBps(7n, 0)).toBe(7n);
  });

  it('bpsAsDecimal writes bps / 10000 without trailing zeros', () => {
    expect(bpsAsDecimal(100)).toBe('0.01');
    expect(bpsAsDecimal(12.5)).toBe('0.00125');
    expect(bpsAsDecimal(10_000)).toBe('1');
    expect(bpsAsDecimal(0)).toBe('0');
    expect(bpsAsDecimal(15_000)).toBe('1.5');
  });
});
