// ROUTER_ORDER_MAX_DEPOSIT: per source asset, the most one order takes in. Read from whole units of `chain.symbol`
// pairs; an order selling more is refused with a sentence naming both amounts; an asset without a limit takes any.
import { describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import { loadConfig } from '../../../src/config.js';
import { AmountAboveLimit, ConfigError } from '../../../src/errors.js';
import { assertWithinLimit, NO_LIMITS, parseDepositLimits } from '../../../src/orders/limits.js';
import type { Quote } from '../../../src/quotes/types.js';

const USDC = findAsset('base', 'USDC')!;
const BTC = findAsset('bitcoin', 'BTC')!;
const ETH = findAsset('arbitrum', 'ETH')!;
const quoteOf = (asset: typeof USDC, amountIn: bigint) => ({ id: 'q-1', route: { from: asset.id, amountIn } }) as unknown as Quote;

describe('deposit limits: ROUTER_ORDER_MAX_DEPOSIT', () => {
  it('reads chain.symbol=amount pairs in whole units, any case, spaces around them allowed', () => {
    const limits = parseDepositLimits('ROUTER_ORDER_MAX_DEPOSIT', ' base.USDC=100000 , bitcoin.btc=2.5');
    expect([...limits]).toEqual([
      [USDC.id, 100_000n * 10n ** 6n],
      [BTC.id, 250_000_000n],
    ]);
    expect(parseDepositLimits('X', undefined).size).toBe(0);
    expect(parseDepositLimits('X', ' ').size).toBe(0);
  });

  it('refuses an unknown asset, a malformed pair, a bad amount and an asset named twice, naming the variable', () => {
    const bad = ['base.nope=1', 'base.usdc', 'base.usdc=1=2', 'base.usdc=0.0000001', 'base.usdc=-5', 'base.usdc=1,base.USDC=2'];
    for (const raw of bad) {
      expect(() => parseDepositLimits('ROUTER_ORDER_MAX_DEPOSIT', raw), raw).toThrow(ConfigError);
      expect(() => parseDepositLimits('ROUTER_ORDER_MAX_DEPOSIT', raw), raw).toThrow(/^ROUTER_ORDER_MAX_DEPOSIT/);
    }
  });

  it('is part of the one config; absent, no asset has a limit', () => {
    expect(loadConfig({ ROUTER_ORDER_MAX_DEPOSIT: 'arbitrum.eth=10' }).orders.maxDeposit.get(ETH.id)).toBe(10n ** 19n);
    expect(loadConfig({}).orders.maxDeposit.size).toBe(0);
    expect(() => loadConfig({ ROUTER_ORDER_MAX_DEPOSIT: 'arbitrum.eth=ten' })).toThrow(ConfigError);
  });

  it('an order selling up to the limit passes; one above it is refused naming both amounts; other assets take any amount', () => {
    const limits = parseDepositLimits('X', 'base.usdc=3000');
    expect(() => assertWithinLimit(limits, quoteOf(USDC, 3_000_000_000n))).not.toThrow();
    expect(() => assertWithinLimit(limits, quoteOf(USDC, 3_000_000_001n))).toThrow(AmountAboveLimit);
    expect(() => assertWithinLimit(limits, quoteOf(USDC, 3_000_000_001n))).toThrow(
      "Quote q-1 sells 3000.000001 base.USDC, above this router's limit of 3000 base.USDC per order; quote a smaller amount.",
    );
    expect(() => assertWithinLimit(limits, quoteOf(BTC, 10n ** 12n))).not.toThrow();
    expect(() => assertWithinLimit(NO_LIMITS, quoteOf(USDC, 10n ** 30n))).not.toThrow();
  });

  it('an exact-output order is judged by the most it accepts (from.maximum), not only what it expects to sell', () => {
    const limits = parseDepositLimits('X', 'base.usdc=1000');
    expect(() => assertWithinLimit(limits, quoteOf(USDC, 1_000_000_000n), 1_000_000_000n)).not.toThrow();
    expect(() => assertWithinLimit(limits, quoteOf(USDC, 1_000_000_000n), 1_010_000_000n)).toThrow(
      "Quote q-1 accepts deposits up to 1010 base.USDC, above this router's limit of 1000 base.USDC per order; quote a smaller amount.",
    );
  });
});
