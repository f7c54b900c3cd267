// Amounts on the wire ⇄ bigint base units: the one module that parses and writes amounts (docs/architecture.md, one internal
// language). Pure string and bigint arithmetic; a Number or parseFloat here would silently round large amounts.
import { InvalidAmount } from '../errors.js';
import type { AmountFormat, Asset } from './types.js';

/** The largest amount any venue or chain can carry: an EVM uint256. */
export const MAX_AMOUNT = 2n ** 256n - 1n;
const MAX_AMOUNT_DIGITS = MAX_AMOUNT.toString().length;

const DIGITS = /^[0-9]+$/;
const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Reads an amount of `asset` written per `format`: `formatted` is a decimal in whole units (`1`, `1.5`, `0.000001`),
 * `raw` an integer in base units. Digits only, optionally one point with digits on both sides in `formatted`; leading
 * zeros are harmless and accepted (`007` is 7). `.5` and `5.` are refused: a point must sit between digits.
 * @throws InvalidAmount (with `field`) for anything else: blanks, whitespace, signs, exponents, hexadecimal, a point
 *         in `raw`, more fractional digits than the asset's decimals, zero, or more than 2^256−1 base units.
 */
export function parseAmount(input: string, asset: Asset, format: AmountFormat, field: string): bigint {
  const refuse = (rule: string): InvalidAmount => new InvalidAmount(`\`${field}\` ${rule}.`, field);
  if (typeof input !== 'string') throw refuse('must be a string');
  if (input === '') throw refuse('must not be empty');
  if (/\s/.test(input)) throw refuse('must not contain spaces or other whitespace');
  if (input.startsWith('-')) throw refuse('must be greater than zero, not negative');
  if (input.startsWith('+')) throw refuse('must be written without a sign');
  if (/^0x/i.test(input)) throw refuse('must be written in decimal digits, not hexadecimal');
  // One greedy class before the `e`, so a long input costs linear time (no nested quantifiers to backtrack through).
  if (/^[0-9.]+e/i.test(input)) throw refuse('must be written without an exponent (100000, not 1e5)');

  let units: bigint;
  if (format === 'raw') {
    if (input.includes('.')) throw refuse('must be an integer in base units when format is raw, without a decimal point');
    if (!DIGITS.test(input)) throw refuse('must be an integer in base units, for example 1500000');
    units = toUnits(input, '', refuse);
  } else {
    if (/^\.[0-9]+$/.test(input)) throw refuse('must have a digit before the decimal point (0.5, not .5)');
    if (/^[0-9]+\.$/.test(input)) throw refuse('must have a digit after the decimal point (5, not 5.)');
    const m = DECIMAL.exec(input);
    if (!m) throw refuse('must be a decimal number in whole units of the asset, for example 1.5');
    const fraction = m[2] ?? '';
    if (fraction.length > asset.decimals) {
      throw refuse(
        `has ${fraction.length} digits after the decimal point, but ${asset.chain}.${asset.symbol} has ` +
          `${asset.decimals} decimals`,
      );
    }
    units = toUnits(m[1]!, fraction.padEnd(asset.decimals, '0'), refuse);
  }
  if (units === 0n) throw refuse('must be greater than zero');
  return units;
}

/**
 * Writes base units of `asset` per `format`: `raw` the decimal integer, `formatted` the shortest decimal in whole
 * units (no trailing zeros, no trailing point, `0.5` not `.5`). parseAmount reads it back to the same bigint.
 * @throws RangeError for a negative amount, which no core value can be.
 */
export function writeAmount(amount: bigint, asset: Asset, format: AmountFormat): string {
  if (amount < 0n) throw new RangeError(`An amount cannot be negative, got ${amount}.`);
  const digits = amount.toString();
  if (format === 'raw' || asset.decimals === 0) return digits;
  const padded = digits.padStart(asset.decimals + 1, '0');
  const whole = padded.slice(0, -asset.decimals);
  const fraction = padded.slice(-asset.decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** Whole digits followed by exactly-`decimals` fraction digits, as base units; refuses beyond uint256. */
function toUnits(whole: string, fraction: string, refuse: (rule: string) => InvalidAmount): bigint {
  // Leading zeros are cut first so the length check below bounds the BigInt work whatever the input's length.
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  const tooLarge = () => refuse('must not exceed 2^256-1 base units');
  if (digits.length > MAX_AMOUNT_DIGITS) throw tooLarge();
  const units = digits === '' ? 0n : BigInt(digits);
  if (units > MAX_AMOUNT) throw tooLarge();
  return units;
}
