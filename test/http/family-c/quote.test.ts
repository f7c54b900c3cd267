// Family C POST /quote through the real embedded service, black-box against the served document: both quote types,
// the slippage bounds and their rounding, currencies (errors name the field), amount and slippageBps limits, the fee
// breakdown, and 422 when no venue quotes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUR, quoteBody, quoted, startC, type HarnessC } from './support.js';

let h: HarnessC;
beforeAll(async () => {
  h = await startC();
});
afterAll(() => h.close());

const issue = (body: any) => body.error.details.issues[0] as { path: string; message: string };
async function refused(over: Record<string, unknown>, path: string): Promise<string> {
  const r = await h.quote(quoteBody(over));
  expect(r.status, r.text).toBe(400);
  expect(r.body.error.code).toBe('invalid_request');
  expect(issue(r.body).path).toBe(path);
  return r.body.error.message as string;
}

describe('POST /quote EXACT_INPUT: `from.expected` is the exact amount specified, `to.minimum` the output after slippage', () => {
  it('mode exact_input, id a uuid, expiresAt ten minutes ahead, currencies as the registry writes them', async () => {
    const q = await quoted(h);
    expect(q.mode).toBe('exact_input');
    expect(q.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Date.parse(q.expiresAt) - h.svc.service.clock.now()).toBeGreaterThan(9 * 60_000);
    expect(q.from).toEqual({ currency: CUR.baseUsdc, expected: '1000000000' });
    expect(Object.keys(q.to)).toEqual(['currency', 'expected', 'minimum']);
    expect(q.to.currency).toEqual(CUR.arbUsdc);
  });
  it.each([0, 1, 33, 50, 9999, 10_000])('minimum = expected × (10000 − %i) / 10000, rounded down', async (slippageBps) => {
    const q = await quoted(h, { slippageBps, amount: '1234567891' });
    const expected = BigInt(q.to.expected);
    expect(BigInt(q.to.minimum)).toBe((expected * BigInt(10_000 - slippageBps)) / 10_000n);
  });
  it('a fraction of a basis point is kept exactly: 12.5 bps → minimum = expected × 99 875 / 100 000, rounded down', async () => {
    const q = await quoted(h, { slippageBps: 12.5, amount: '1234567891' });
    const expected = BigInt(q.to.expected);
    expect(BigInt(q.to.minimum)).toBe((expected * 99_875n) / 100_000n);
    const exact = await quoted(h, { type: 'EXACT_OUTPUT', amount: '500000000', slippageBps: 0.25 });
    const times = BigInt(exact.from.expected) * 1_000_025n;
    expect(BigInt(exact.from.maximum)).toBe(times / 1_000_000n + (times % 1_000_000n === 0n ? 0n : 1n));
  });
  it('the contract address is accepted in any letter case and answered in lower case', async () => {
    const upper = { ...CUR.baseUsdc, token: { ...CUR.baseUsdc.token, address: '0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913' } };
    const q = await quoted(h, { from: upper });
    expect(q.from.currency).toEqual(CUR.baseUsdc);
  });
  it('HYPE on HyperCore is NATIVE, and is also accepted as TOKEN with its token id (answered as NATIVE)', async () => {
    const asToken = { chain: { kind: 'HYPERCORE' }, token: { kind: 'TOKEN', address: '0x0D01DC56DCAACA66AD901C959B4011EC', decimals: 8 } };
    const a = await quoted(h, { from: asToken, amount: '10000000000' });
    const b = await quoted(h, { from: CUR.hype, amount: '10000000000' });
    expect(a.from.currency).toEqual(CUR.hype);
    expect(b.from.currency).toEqual(CUR.hype);
  });
  it('Bitcoin and native ETH are NATIVE currencies', async () => {
    expect((await quoted(h, { from: CUR.btc, amount: '50000000' })).from.currency).toEqual(CUR.btc);
    expect((await quoted(h, { from: CUR.baseEth, amount: '1000000000000000000' })).from.currency).toEqual(CUR.baseEth);
  });
});

describe('POST /quote EXACT_OUTPUT: `to.expected` is exactly the amount, `from.maximum` the input after slippage', () => {
  it('mode exact_output; maximum = expected × (10000 + bps) / 10000, rounded up', async () => {
    const q = await quoted(h, { type: 'EXACT_OUTPUT', amount: '500000000', slippageBps: 33 });
    expect(q.mode).toBe('exact_output');
    expect(q.to).toEqual({ currency: CUR.arbUsdc, expected: '500000000' });
    expect(Object.keys(q.from)).toEqual(['currency', 'expected', 'maximum']);
    const expected = BigInt(q.from.expected);
    const times = expected * 10_033n;
    expect(BigInt(q.from.maximum)).toBe(times / 10_000n + (times % 10_000n === 0n ? 0n : 1n));
    // Stablecoin to stablecoin: the input found is a little above the output asked.
    expect(expected).toBeGreaterThan(500_000_000n);
    expect(expected).toBeLessThan(501_000_000n);
  });
});

describe('Currency: an unknown chain or token, or decimals that disagree with the registry → 400 naming the field', () => {
  it('an EVM chain id not served', async () => {
    expect(await refused({ from: { ...CUR.baseUsdc, chain: { kind: 'EVM', chainId: 10 } } }, 'from.chain.chainId')).toMatch(/10/);
  });
  it('a chain kind not served', async () => {
    await refused({ to: { chain: { kind: 'SOLANA' }, token: { kind: 'NATIVE', decimals: 9 } } }, 'to.chain.kind');
  });
  it('a token address not served on the chain', async () => {
    await refused({ to: { ...CUR.arbUsdc, token: { ...CUR.arbUsdc.token, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' } } }, 'to.token.address');
  });
  it('decimals that disagree with the registry', async () => {
    expect(await refused({ from: { ...CUR.baseUsdc, token: { ...CUR.baseUsdc.token, decimals: 18 } } }, 'from.token.decimals')).toMatch(/6 decimals/);
    await refused({ from: { ...CUR.btc, token: { kind: 'NATIVE', decimals: 18 } } }, 'from.token.decimals');
  });
  it('a TOKEN on Bitcoin', async () => {
    await refused({ from: { chain: { kind: 'BITCOIN' }, token: { kind: 'TOKEN', address: '0xabc', decimals: 8 } } }, 'from.token.kind');
  });
  it('a missing chainId, an address on a NATIVE token, a missing decimals', async () => {
    await refused({ from: { chain: { kind: 'EVM' }, token: CUR.baseUsdc.token } }, 'from.chain.chainId');
    await refused({ from: { ...CUR.baseEth, token: { kind: 'NATIVE', decimals: 18, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' } } }, 'from.token.address');
    await refused({ from: { ...CUR.baseEth, token: { kind: 'NATIVE' } } }, 'from.token.decimals');
  });
  it('the same currency on both sides', async () => {
    await refused({ to: CUR.baseUsdc }, 'to');
  });
});

describe('`amount`: an unsigned 256-bit base-unit integer, greater than 0', () => {
  it('2^256 and above → 400; 2^256−1 is accepted (and no venue can fill it: 422)', async () => {
    await refused({ amount: (2n ** 256n).toString() }, 'amount');
    await refused({ amount: '9'.repeat(200) }, 'amount');
    const max = await h.quote(quoteBody({ amount: (2n ** 256n - 1n).toString() }));
    expect(max.status).toBe(422);
  });
  it('0, a decimal, a sign, a number or an empty string → 400', async () => {
    for (const amount of ['0', '000', '1.5', '-1', '+1', '', ' 1', 1000]) await refused({ amount }, 'amount');
  });
  it('leading zeros do not change the amount', async () => {
    expect((await quoted(h, { amount: '0001000000000' })).from.expected).toBe('1000000000');
  });
});

describe('`slippageBps`: a number from 0 to 10000', () => {
  it('-1, 10001, 10000.5, a string, null → 400 naming slippageBps', async () => {
    for (const slippageBps of [-1, 10_001, 10_000.5, '50', null]) await refused({ slippageBps }, 'slippageBps');
  });
  it('missing fields and other properties → 400 naming them', async () => {
    const { slippageBps: _s, ...rest } = quoteBody();
    const r = await h.quote(rest);
    expect(issue(r.body)).toEqual({ path: 'slippageBps', message: '`slippageBps` is required.' });
    await refused({ fromAmount: '1' }, 'fromAmount');
    await refused({ type: 'EXACT' }, 'type');
    for (const field of ['from', 'to', 'amount', 'type'] as const) {
      const { [field]: _f, ...without } = quoteBody();
      expect(issue((await h.quote(without)).body)).toEqual({ path: field, message: `\`${field}\` is required.` });
    }
  });
});

describe('FeeBreakdown: preswap, postswap and rift {network, liquidity, protocol}, each in its currency, and totalUsd their sum', () => {
  const fees = (q: Record<string, any>) => [q.fees.preswap, q.fees.postswap, q.fees.rift.network, q.fees.rift.liquidity, q.fees.rift.protocol];
  it('currencies: preswap and network in `from`, postswap, liquidity and protocol in `to`; protocol is 0', async () => {
    const q = await quoted(h, { from: CUR.btc, amount: '50000000' });
    expect(q.fees.preswap.currency).toEqual(CUR.btc);
    expect(q.fees.rift.network.currency).toEqual(CUR.btc);
    for (const f of [q.fees.postswap, q.fees.rift.liquidity, q.fees.rift.protocol]) expect(f.currency).toEqual(CUR.arbUsdc);
    expect(q.fees.rift.protocol).toMatchObject({ amount: '0', usd: 0 });
  });
  it('totalUsd is the sum of the five fees\' usd', async () => {
    for (const over of [{}, { from: CUR.btc, amount: '50000000' }, { from: CUR.robinhoodUsdg, to: CUR.btc, amount: '5000000000' }]) {
      const q = await quoted(h, over);
      const sum = fees(q).reduce((a, f) => a + (f.usd as number), 0);
      expect(q.fees.totalUsd).toBeCloseTo(sum, 6);
      for (const f of fees(q)) expect(f.usd).toBeGreaterThanOrEqual(0);
    }
  });
  it('between two dollar stablecoins of the same decimals, the fees account for the whole difference between input and output', async () => {
    const q = await quoted(h);
    const f = q.fees;
    const spent = [f.preswap, f.rift.network, f.rift.liquidity, f.postswap].reduce((a, x) => a + BigInt(x.amount), 0n);
    expect(BigInt(q.from.expected) - spent).toBe(BigInt(q.to.expected));
  });
  it('a USD value is the amount at the reference price (1 USD per USDC, 90 000 USD per BTC), to the cent', async () => {
    const q = await quoted(h, { from: CUR.btc, amount: '50000000' });
    expect(q.fees.preswap.usd).toBeCloseTo((Number(q.fees.preswap.amount) / 1e8) * 90_000, 2);
    expect(q.fees.rift.liquidity.usd).toBeCloseTo(Number(q.fees.rift.liquidity.amount) / 1e6, 2);
  });
});

describe('No route: 422 insufficient_liquidity', () => {
  it('an amount no venue can fill', async () => {
    const r = await h.quote(quoteBody({ amount: '1' }));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('insufficient_liquidity');
  });
});
