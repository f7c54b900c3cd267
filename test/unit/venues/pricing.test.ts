// Venue prices in bigint: conversion through the USD reference table, fee, skew, and impact that grows with size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VenueFailed } from '../../../src/errors.js';
import { USD_ONE, VENUE_IDS, createSimMarket } from '../../../src/venues/index.js';
import { asset, assetById, never } from './helpers.js';

const market = createSimMarket({ seed: 11, latencyScale: 0, failures: false });

describe('USD reference prices, fixed point with 8 decimals', () => {
  it('prices one whole unit by the asset price key', () => {
    expect(market.usdPrice(asset('ethereum', 'ETH'))).toBe(3_000n * USD_ONE);
    expect(market.usdPrice(asset('hyperliquid', 'UETH'))).toBe(3_000n * USD_ONE);
    expect(market.usdPrice(asset('bitcoin', 'BTC'))).toBe(90_000n * USD_ONE);
    expect(market.usdPrice(asset('base', 'USDC'))).toBe(100_000_000n);
    expect(market.usdPrice(asset('hyperliquid', 'HYPE'))).toBe(25n * USD_ONE);
  });

  it('moves a price in one market only', () => {
    const other = createSimMarket({ seed: 11, latencyScale: 0, failures: false });
    other.setUsdPrice('ETH', 2_000n * USD_ONE);
    expect(other.usdPrice(asset('base', 'ETH'))).toBe(2_000n * USD_ONE);
    expect(market.usdPrice(asset('base', 'ETH'))).toBe(3_000n * USD_ONE);
  });
});

describe('a venue output converts through both USD prices and decimals, then takes fee, skew and impact', () => {
  it('CCTP standard (no fee, no skew, 1 bn depth): 1000 USDC -> 999.999 USDC, exactly', () => {
    const out = market.preview('cctp_standard', asset('base', 'USDC'), asset('arbitrum', 'USDC'), 1_000_000_000n);
    // 1e9 * 1e9 / (1e9 + 1000) rounded down
    expect(out).toBe(999_999_000n);
  });

  it('across decimals: 1 ETH (18) into UETH (9) through unit, 10 bps fee, 5 M depth', () => {
    const out = market.preview('unit', asset('ethereum', 'ETH'), asset('hyperliquid', 'UETH'), 10n ** 18n);
    // 0.999e9 * 5e6 / (5e6 + 3000) rounded down
    expect(out).toBe((999_000_000n * 5_000_000n) / 5_003_000n);
  });

  it('into a 6-decimal stablecoin from an 8-decimal BTC, within the skew band', () => {
    const out = market.preview('chainflip', asset('bitcoin', 'BTC'), asset('ethereum', 'USDC'), 10_000_000n);
    const spec = market.spec('chainflip');
    const depth = spec.depthUsd;
    const bound = (skew: bigint) => (9_000_000_000n * (10_000n - 15n - skew) * depth) / (10_000n * (depth + 9_000n));
    expect(out).toBeLessThanOrEqual(bound(0n));
    expect(out).toBeGreaterThanOrEqual(bound(BigInt(spec.maxSkewBps)));
  });

  it('gives different venues different answers on the same pair', () => {
    const from = asset('ethereum', 'ETH');
    const to = asset('ethereum', 'USDC');
    const outs = ['kyberswap', 'okx', 'velora', 'flytrade'].map((v) => market.preview(v as 'okx', from, to, 10n ** 18n));
    expect(new Set(outs).size).toBe(outs.length);
  });
});

describe('price impact grows with size: a bigger trade gets a worse rate', () => {
  const all = VENUE_IDS.flatMap((id) => market.venue(id).routes().map(([a, b]) => ({ id, from: assetById(a), to: assetById(b) })));

  it('holds for every route of every venue, at 1 % to 40 % of its depth against twice that', () => {
    fc.assert(
      fc.property(fc.nat(all.length - 1), fc.integer({ min: 10, max: 200 }), (i, perMille) => {
        const { id, from, to } = all[i]!;
        const usd = (market.spec(id).depthUsd * BigInt(perMille)) / 1000n;
        const a = (usd * USD_ONE * 10n ** BigInt(from.decimals)) / market.usdPrice(from);
        const b = 2n * a;
        const outA = market.preview(id, from, to, a);
        const outB = market.preview(id, from, to, b);
        expect(outB).toBeGreaterThan(outA);
        // rate(b) < rate(a)  <=>  outB / b < outA / a
        expect(outB * a).toBeLessThan(outA * b);
      }),
      { numRuns: 300 },
    );
  });

  it('shows on a DEX aggregator between 1 ETH and 1000 ETH', () => {
    const from = asset('arbitrum', 'ETH');
    const to = asset('arbitrum', 'USDC');
    const small = market.preview('velora', from, to, 10n ** 18n);
    const big = market.preview('velora', from, to, 1_000n * 10n ** 18n);
    expect(big * 1n).toBeLessThan(small * 1_000n);
  });
});

describe('a venue refuses what it cannot fill', () => {
  it('refuses a trade above its depth with VenueFailed (insufficient liquidity)', async () => {
    const p = market.venue('transit').quote({ from: asset('ethereum', 'ETH'), to: asset('arbitrum', 'ETH'), amountIn: 1_000n * 10n ** 18n, signal: never() });
    await expect(p).rejects.toBeInstanceOf(VenueFailed);
    await expect(p).rejects.toThrow(/insufficient liquidity/);
  });

  it('refuses a zero amount and an unsupported pair with VenueFailed', async () => {
    const v = market.venue('relay');
    await expect(v.quote({ from: asset('base', 'USDC'), to: asset('arbitrum', 'USDC'), amountIn: 0n, signal: never() })).rejects.toBeInstanceOf(VenueFailed);
    await expect(v.quote({ from: asset('bitcoin', 'BTC'), to: asset('arbitrum', 'USDC'), amountIn: 1n, signal: never() })).rejects.toThrow(/not served/);
  });

  it('refuses a dust amount whose output rounds to zero', async () => {
    const p = market.venue('unit').quote({ from: asset('ethereum', 'ETH'), to: asset('hyperliquid', 'UETH'), amountIn: 1n, signal: never() });
    await expect(p).rejects.toThrow(/rounds to zero/);
  });
});

describe('quoteBound: an upper bound on any quote of the venue, for the router to prune with', () => {
  it('is at least the output of every venue, pair and size, and at most the reference rate less the fee', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VENUE_IDS), fc.nat(), fc.bigInt({ min: 1n, max: 10n ** 26n }), (id, pick, amountIn) => {
        const v = market.venue(id);
        const [fromId, toId] = market.spec(id).routes[pick % market.spec(id).routes.length]!;
        const from = assetById(fromId);
        const to = assetById(toId);
        const bound = v.quoteBound!(from, to, amountIn);
        let out: bigint | null = null;
        try {
          out = market.preview(id, from, to, amountIn);
        } catch (err) {
          expect(err).toBeInstanceOf(VenueFailed);
        }
        if (out !== null) expect(out).toBeLessThanOrEqual(bound);
        const reference = (amountIn * market.usdPrice(from) * 10n ** BigInt(to.decimals)) / (market.usdPrice(to) * 10n ** BigInt(from.decimals));
        expect(bound).toBeLessThanOrEqual(reference);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is 0 for a pair the venue does not serve', () => {
    expect(market.venue('unit').quoteBound!(asset('base', 'USDC'), asset('arbitrum', 'USDC'), 1_000_000n)).toBe(0n);
  });
});
