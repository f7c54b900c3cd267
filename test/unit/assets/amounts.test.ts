// Amounts (spec 2.1 "Amount and asset writing depends on format", spec 4 `from_amount`): formatted is a decimal in the
// asset's own units, raw an integer in base units; exact bigint arithmetic both ways, and every refusal named.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASSETS, MAX_AMOUNT, findAsset, parseAmount, writeAmount, type AmountFormat, type Asset } from '../../../src/assets/index.js';
import { InvalidAmount } from '../../../src/errors.js';

const USDC = findAsset('base', 'USDC')!; // 6
const BTC = findAsset('bitcoin', 'BTC')!; // 8
const UETH = findAsset('hyperliquid', 'UETH')!; // 9
const UBTC = findAsset('hyperliquid', 'UBTC')!; // 10
const ETH = findAsset('ethereum', 'ETH')!; // 18
const FORMATS = ['formatted', 'raw'] as const;

function refusal(input: string, asset: Asset, format: AmountFormat, field = 'from_amount'): InvalidAmount {
  try {
    parseAmount(input, asset, format, field);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidAmount);
    const e = err as InvalidAmount;
    expect(e.code).toBe('invalid_amount');
    expect(e.field).toBe(field);
    expect(e.message).toMatch(new RegExp(`^\`${field}\` [^\\n]+\\.$`));
    return e;
  }
  throw new Error(`${JSON.stringify(input)} (${format}) was accepted`);
}

describe('from_amount (formatted): "decimal in the asset\'s own units"', () => {
  it.each([
    [USDC, '1', 1_000_000n],
    [USDC, '1.5', 1_500_000n],
    [USDC, '0.000001', 1n],
    [USDC, '1000.5', 1_000_500_000n],
    [USDC, '1.000000', 1_000_000n], // trailing zeros within the decimals are fine
    [USDC, '007.25', 7_250_000n], // leading zeros are harmless
    [BTC, '0.00000001', 1n],
    [BTC, '21000000', 2_100_000_000_000_000n],
    [UETH, '0.000000001', 1n],
    [UBTC, '1.0000000001', 10_000_000_001n],
    [ETH, '1.5', 1_500_000_000_000_000_000n],
    [ETH, '0.000000000000000001', 1n],
    [ETH, '123456789012345678901234567890.123456789012345678', 123456789012345678901234567890123456789012345678n],
  ])('%#: %s', (asset, input, units) => {
    expect(parseAmount(input, asset, 'formatted', 'from_amount')).toBe(units);
  });
});

describe('from_amount (raw): "integer in base units"', () => {
  it.each([
    [USDC, '1', 1n],
    [USDC, '1000500000', 1_000_500_000n],
    [ETH, '1500000000000000000', 1_500_000_000_000_000_000n],
    [BTC, '0001', 1n],
    [ETH, '123456789012345678901234567890', 123456789012345678901234567890n], // beyond 2^64, still exact
  ])('%#: %s', (asset, input, units) => {
    expect(parseAmount(input, asset, 'raw', 'from_amount')).toBe(units);
  });
});

describe('from_amount refusals: InvalidAmount, one sentence naming the field and the rule', () => {
  const CASES: ReadonlyArray<readonly [string, AmountFormat, string]> = [
    ['', 'formatted', '`from_amount` must not be empty.'],
    [' ', 'raw', '`from_amount` must not contain spaces or other whitespace.'],
    [' 1', 'formatted', '`from_amount` must not contain spaces or other whitespace.'],
    ['1 ', 'raw', '`from_amount` must not contain spaces or other whitespace.'],
    ['1 000', 'formatted', '`from_amount` must not contain spaces or other whitespace.'],
    ['1\n', 'formatted', '`from_amount` must not contain spaces or other whitespace.'],
    ['-5', 'formatted', '`from_amount` must be greater than zero, not negative.'],
    ['-0', 'raw', '`from_amount` must be greater than zero, not negative.'],
    ['+1', 'formatted', '`from_amount` must be written without a sign.'],
    ['+1', 'raw', '`from_amount` must be written without a sign.'],
    ['1e5', 'formatted', '`from_amount` must be written without an exponent (100000, not 1e5).'],
    ['1E5', 'raw', '`from_amount` must be written without an exponent (100000, not 1e5).'],
    ['1.5e-3', 'formatted', '`from_amount` must be written without an exponent (100000, not 1e5).'],
    ['0x10', 'raw', '`from_amount` must be written in decimal digits, not hexadecimal.'],
    ['0XFF', 'formatted', '`from_amount` must be written in decimal digits, not hexadecimal.'],
    ['1000.5', 'raw', '`from_amount` must be an integer in base units when format is raw, without a decimal point.'],
    ['1.0', 'raw', '`from_amount` must be an integer in base units when format is raw, without a decimal point.'],
    ['.5', 'formatted', '`from_amount` must have a digit before the decimal point (0.5, not .5).'],
    ['5.', 'formatted', '`from_amount` must have a digit after the decimal point (5, not 5.).'],
    ['ten', 'formatted', '`from_amount` must be a decimal number in whole units of the asset, for example 1.5.'],
    ['1.2.3', 'formatted', '`from_amount` must be a decimal number in whole units of the asset, for example 1.5.'],
    ['1,5', 'formatted', '`from_amount` must be a decimal number in whole units of the asset, for example 1.5.'],
    ['Infinity', 'formatted', '`from_amount` must be a decimal number in whole units of the asset, for example 1.5.'],
    ['NaN', 'raw', '`from_amount` must be an integer in base units, for example 1500000.'],
    ['１', 'raw', '`from_amount` must be an integer in base units, for example 1500000.'], // a fullwidth digit
    ['1_000', 'raw', '`from_amount` must be an integer in base units, for example 1500000.'],
    ['0', 'formatted', '`from_amount` must be greater than zero.'],
    ['0.000000', 'formatted', '`from_amount` must be greater than zero.'],
    ['0', 'raw', '`from_amount` must be greater than zero.'],
    ['000', 'raw', '`from_amount` must be greater than zero.'],
  ];
  it.each(CASES)('%j (%s)', (input, format, message) => {
    expect(refusal(input, USDC, format).message).toBe(message);
  });
  it('more fractional digits than the asset has: the message names the asset and its decimals', () => {
    expect(refusal('1.0000001', USDC, 'formatted').message).toBe('`from_amount` has 7 digits after the decimal point, but base.USDC has 6 decimals.');
    expect(refusal('1.0000000', USDC, 'formatted').message).toMatch(/has 7 digits .* has 6 decimals/); // even when zeros
    expect(refusal('0.000000001', BTC, 'formatted').message).toBe('`from_amount` has 9 digits after the decimal point, but bitcoin.BTC has 8 decimals.');
    expect(refusal('0.0000000000000000001', ETH, 'formatted').message).toMatch(/19 digits .* ethereum\.ETH has 18 decimals\.$/);
  });
  it('the field named is the one given', () => {
    expect(refusal('-1', USDC, 'raw', 'fromAmount').message).toBe('`fromAmount` must be greater than zero, not negative.');
  });
});

describe('from_amount upper bound: at most 2^256−1 base units (an EVM uint256)', () => {
  const max = MAX_AMOUNT.toString();
  it('2^256−1 base units are accepted in both formats; one more is refused', () => {
    expect(MAX_AMOUNT).toBe(115792089237316195423570985008687907853269984665640564039457584007913129639935n);
    expect(parseAmount(max, USDC, 'raw', 'from_amount')).toBe(MAX_AMOUNT);
    expect(parseAmount(`${max.slice(0, -6)}.${max.slice(-6)}`, USDC, 'formatted', 'from_amount')).toBe(MAX_AMOUNT);
    const over = (MAX_AMOUNT + 1n).toString();
    expect(refusal(over, USDC, 'raw').message).toBe('`from_amount` must not exceed 2^256-1 base units.');
    expect(refusal(`${over.slice(0, -6)}.${over.slice(-6)}`, USDC, 'formatted').message).toBe('`from_amount` must not exceed 2^256-1 base units.');
    expect(refusal(max, ETH, 'formatted').message).toBe('`from_amount` must not exceed 2^256-1 base units.'); // ×10^18
  });
  it('leading zeros do not count toward the bound, and a huge value is refused without a huge BigInt', () => {
    expect(parseAmount(`${'0'.repeat(500)}${max}`, USDC, 'raw', 'from_amount')).toBe(MAX_AMOUNT);
    expect(refusal('9'.repeat(100_000), USDC, 'raw').message).toBe('`from_amount` must not exceed 2^256-1 base units.');
  });
  it('long hostile inputs are answered in linear time (no regular-expression backtracking blow-up)', () => {
    const n = 200_000;
    const hostile = ['9'.repeat(n), `${'9'.repeat(n)}x`, `${'1.'.repeat(n / 2)}`, `${'1'.repeat(n)}e`, `${'0'.repeat(n)}.`, `.${'0'.repeat(n)}x`];
    const started = performance.now();
    for (const input of hostile) for (const format of FORMATS) refusal(input, ETH, format);
    expect(performance.now() - started).toBeLessThan(2_000); // quadratic matching takes tens of seconds here
  });
});

describe('Amount writing per format: raw the integer in base units; formatted the shortest decimal in the asset\'s units', () => {
  it.each([
    [USDC, 1_500_000n, '1.5', '1500000'],
    [USDC, 1n, '0.000001', '1'],
    [USDC, 0n, '0', '0'],
    [USDC, 10_000_000n, '10', '10000000'],
    [USDC, 1_000_500_000n, '1000.5', '1000500000'],
    [BTC, 123_456_789n, '1.23456789', '123456789'],
    [UBTC, 10_000_000_000n, '1', '10000000000'],
    [ETH, 10n ** 18n + 1n, '1.000000000000000001', '1000000000000000001'],
    [ETH, MAX_AMOUNT, '115792089237316195423570985008687907853269984665640564039457.584007913129639935', MAX_AMOUNT.toString()],
  ])('%#: %s', (asset, units, formatted, raw) => {
    expect(writeAmount(units, asset, 'formatted')).toBe(formatted);
    expect(writeAmount(units, asset, 'raw')).toBe(raw);
  });
  it('a negative amount is a bug of the caller, not a value to write', () => {
    expect(() => writeAmount(-1n, USDC, 'raw')).toThrow(RangeError);
  });
});

describe('Amounts round trip: parseAmount(writeAmount(x)) is x for every asset and format', () => {
  const amounts = fc.oneof(fc.bigInt(1n, MAX_AMOUNT), fc.bigInt(1n, 10n ** 24n), fc.bigInt({ min: 1n, max: 1000n }));
  it('write → parse, random amounts up to 2^256−1', () => {
    fc.assert(
      fc.property(amounts, fc.constantFrom(...ASSETS), fc.constantFrom(...FORMATS), (x, asset, format) => {
        const written = writeAmount(x, asset, format);
        expect(parseAmount(written, asset, format, 'from_amount')).toBe(x);
        if (format === 'formatted') expect(written).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/); // shortest form
        else expect(written).toMatch(/^[1-9][0-9]*$/);
      }),
      { numRuns: 2000 },
    );
  });
  it('parse → write gives the same number in its shortest spelling', () => {
    const decimal = fc.tuple(fc.stringMatching(/^[0-9]{1,30}$/), fc.stringMatching(/^[0-9]{0,6}$/));
    fc.assert(
      fc.property(decimal, ([whole, fraction]) => {
        const input = fraction === '' ? whole : `${whole}.${fraction}`;
        const expected = `${whole.replace(/^0+(?=.)/, '')}${fraction.replace(/0+$/, '') === '' ? '' : `.${fraction.replace(/0+$/, '')}`}`;
        if (/^[0.]+$/.test(input)) {
          expect(refusal(input, USDC, 'formatted').message).toBe('`from_amount` must be greater than zero.');
          return;
        }
        expect(writeAmount(parseAmount(input, USDC, 'formatted', 'from_amount'), USDC, 'formatted')).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
  it('any string at all is either an amount in range or an InvalidAmount (never another error)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[-+0-9.eExX ]{0,12}$/)), fc.constantFrom(...FORMATS), (input, format) => {
        try {
          const x = parseAmount(input, ETH, format, 'from_amount');
          expect(x > 0n && x <= MAX_AMOUNT).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidAmount);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
