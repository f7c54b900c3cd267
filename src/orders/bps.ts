// Basis points (100 is 1 %). Family C's `slippageBps` is any number from 0 to 10000, so a fraction of a basis point is
// kept exactly: the number is read from its shortest decimal form (for any value JSON carries, what the client wrote)
// as num / 10^k, and every bound computed from it is exact integer arithmetic on base units.

/** `bps` as the exact fraction num / den, den a power of ten. @throws RangeError for a negative or non-finite number */
export function bpsFraction(bps: number): { num: bigint; den: bigint } {
  const m = Number.isFinite(bps) && bps >= 0 ? /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(bps)) : null;
  if (!m) throw new RangeError(`Basis points must be a finite number of at least 0, not ${bps}.`);
  const fraction = m[2] ?? '';
  let digits = m[1]! + fraction;
  let scale = fraction.length - Number(m[3] ?? 0);
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  return { num: BigInt(digits), den: 10n ** BigInt(scale) };
}

/** amount × (10000 − bps) / 10000, rounded down: the least an order may deliver under a slippage guard of `bps`. */
export function lessBps(amount: bigint, bps: number): bigint {
  const { num, den } = bpsFraction(bps);
  return (amount * (10_000n * den - num)) / (10_000n * den);
}

/** amount × (10000 + bps) / 10000, rounded up: the most an exact-output order accepts under `bps`. */
export function plusBps(amount: bigint, bps: number): bigint {
  const { num, den } = bpsFraction(bps);
  const d = 10_000n * den;
  return (amount * (d + num) + d - 1n) / d;
}

/** bps / 10000 as a decimal string: 100 → "0.01", 12.5 → "0.00125", 10000 → "1". */
export function bpsAsDecimal(bps: number): string {
  const { num, den } = bpsFraction(bps);
  const scale = den.toString().length - 1 + 4;
  const text = num.toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
