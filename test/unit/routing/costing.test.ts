// Costing (spec 2.3): the execution mode of a step, the step's execution cost paid from the asset at hand, and the
// delivery cost paid from the delivered asset, checked against figures worked out by hand from COST_TABLE.
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../../src/assets/registry.js';
import { COST_TABLE, deliveryCost, executionFor, refundCost, stepCost, stepKind } from '../../../src/routing/index.js';
import { createSimMarket } from '../../../src/venues/index.js';
import { assetById, id } from './fake-market.js';

const market = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
const a = (chain: Parameters<typeof id>[0], symbol: string) => assetById(id(chain, symbol));

describe('execution: how the step runs, from where it starts', () => {
  it('a step starting on Bitcoin runs in mode bitcoin', () => {
    expect(executionFor(a('bitcoin', 'BTC'))).toEqual({ mode: 'bitcoin' });
  });
  it('a step starting on HyperCore runs in mode hyperliquid, whatever the token', () => {
    for (const s of ['USDC', 'HYPE', 'UBTC', 'UETH']) expect(executionFor(a('hyperliquid', s))).toEqual({ mode: 'hyperliquid' });
  });
  it('an EVM native coin pays its own gas: mode evm with the EVM chain id', () => {
    expect(executionFor(a('ethereum', 'ETH'))).toEqual({ mode: 'evm', chain: 1 });
    expect(executionFor(a('robinhood', 'ETH'))).toEqual({ mode: 'evm', chain: 4663 });
  });
  it('an EVM token has its gas advanced by the router: mode evm_gas_desk with the EVM chain id', () => {
    expect(executionFor(a('base', 'USDC'))).toEqual({ mode: 'evm_gas_desk', chain: 8453 });
    expect(executionFor(a('ink', 'USDT0'))).toEqual({ mode: 'evm_gas_desk', chain: 57073 });
    expect(executionFor(a('arbitrum', 'WETH'))).toEqual({ mode: 'evm_gas_desk', chain: 42161 });
  });
});

describe('step execution cost, paid from the asset at hand', () => {
  it('a native coin pays gas units × the chain gas price, in wei, exactly', () => {
    expect(stepCost(market, a('ethereum', 'ETH'), a('ethereum', 'USDC'))).toBe(180_000n * 5_000_000_000n);
    expect(stepCost(market, a('base', 'ETH'), a('arbitrum', 'ETH'))).toBe(120_000n * 20_000_000n);
  });
  it('a token reimburses the gas desk: approve + venue gas, converted from ETH at the USD prices, plus the markup', () => {
    // (180k + 46k) gas × 5 gwei = 0.00113 ETH = 3.39 USD; × 1.05 = 3.5595 USDC.
    expect(stepCost(market, a('ethereum', 'USDC'), a('ethereum', 'USDT'))).toBe(3_559_500n);
    // (120k + 46k) gas × 5 gwei = 0.00083 ETH = 2.49 USD; × 1.05 = 2.6145 USDC.
    expect(stepCost(market, a('ethereum', 'USDC'), a('base', 'USDC'))).toBe(2_614_500n);
    // 226k gas × 0.02 gwei = 4.52e12 wei = 0.01356 USD; × 1.05 = 0.014238 USDC.
    expect(stepCost(market, a('base', 'USDC'), a('base', 'USDT'))).toBe(14_238n);
  });
  it('ethereum is much dearer than the L2s for the same step', () => {
    const l1 = stepCost(market, a('ethereum', 'USDC'), a('ethereum', 'USDT'));
    for (const chain of ['base', 'arbitrum', 'ink'] as const) {
      const usdt = chain === 'ink' ? 'USDT0' : 'USDT';
      expect(stepCost(market, a(chain, 'USDC'), a(chain, usdt)) * 50n).toBeLessThan(l1);
    }
  });
  it('a bridge step (leaving the chain) and a swap step (staying) use their own gas figures', () => {
    expect(stepKind(a('base', 'USDC'), a('arbitrum', 'USDC'))).toBe('bridge');
    expect(stepKind(a('base', 'USDC'), a('base', 'ETH'))).toBe('swap');
    const swap = stepCost(market, a('ethereum', 'ETH'), a('ethereum', 'USDC'));
    const bridge = stepCost(market, a('ethereum', 'ETH'), a('base', 'ETH'));
    expect(swap * COST_TABLE.gasUnits.bridge).toBe(bridge * COST_TABLE.gasUnits.swap);
  });
  it('a Bitcoin step pays vbytes × sat/vB in sats', () => {
    expect(stepCost(market, a('bitcoin', 'BTC'), a('ethereum', 'USDC'))).toBe(141n * 10n);
  });
  it('a HyperCore step pays a small fixed USD fee in the token at hand, rounded up', () => {
    expect(stepCost(market, a('hyperliquid', 'USDC'), a('hyperliquid', 'HYPE'))).toBe(10_000_000n); // 0.10 USDC, 8 decimals
    expect(stepCost(market, a('hyperliquid', 'HYPE'), a('hyperliquid', 'USDC'))).toBe(400_000n); // 0.004 HYPE at 25 USD
    expect(stepCost(market, a('hyperliquid', 'UETH'), a('hyperliquid', 'USDC'))).toBe(33_334n); // 33333.3 rounded up
  });
  it('follows the market price: doubling ETH doubles what a token pays the gas desk', () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const before = stepCost(m, a('ethereum', 'USDC'), a('ethereum', 'USDT'));
    m.setUsdPrice('ETH', 6_000n * 10n ** 8n);
    expect(stepCost(m, a('ethereum', 'USDC'), a('ethereum', 'USDT'))).toBe(before * 2n);
  });
});

describe('delivery execution cost: a transfer of the to asset into to_address, paid from the delivered asset', () => {
  it('native coin: a plain transfer; token: an ERC-20 transfer through the gas desk', () => {
    expect(deliveryCost(market, a('ethereum', 'ETH'))).toBe(21_000n * 5_000_000_000n);
    // 65k gas × 5 gwei = 0.975 USD; × 1.05 = 1.02375 USDC.
    expect(deliveryCost(market, a('ethereum', 'USDC'))).toBe(1_023_750n);
    // 65k gas × 0.05 gwei = 0.00975 USD × 1.05 = 11.375 sats of WBTC, rounded up.
    expect(deliveryCost(market, a('arbitrum', 'WBTC'))).toBe(12n);
  });
  it('bitcoin: a transaction fee in sats; HyperCore: a spot send priced at 1 USD', () => {
    expect(deliveryCost(market, a('bitcoin', 'BTC'))).toBe(1_410n);
    expect(deliveryCost(market, a('hyperliquid', 'USDC'))).toBe(100_000_000n);
    expect(deliveryCost(market, a('hyperliquid', 'UBTC'))).toBe(111_112n); // 1111.1 rounded up
  });
  it('every asset of the registry has a positive bigint cost, as a step to any other asset and as a delivery', () => {
    for (const x of ASSETS) {
      expect(deliveryCost(market, x)).toBeGreaterThan(0n);
      for (const y of ASSETS) if (x.id !== y.id) expect(stepCost(market, x, y)).toBeGreaterThan(0n);
    }
  });
});

describe('refund execution cost: the source asset paid back from the deposit address, paid from the refunded asset', () => {
  it('EVM: two sends from the deposit address (the cost, then the refund), each after a gas top-up', () => {
    // 2 × (21k + 21k) gas × 5 gwei.
    expect(refundCost(market, a('ethereum', 'ETH'))).toBe(84_000n * 5_000_000_000n);
    // 2 × (65k + 21k) = 172k gas × 5 gwei = 0.00086 ETH = 2.58 USD; × 1.05 = 2.709 USDC.
    expect(refundCost(market, a('ethereum', 'USDC'))).toBe(2_709_000n);
  });
  it('bitcoin and HyperCore: one send, the delivery\'s cost', () => {
    expect(refundCost(market, a('bitcoin', 'BTC'))).toBe(deliveryCost(market, a('bitcoin', 'BTC')));
    expect(refundCost(market, a('hyperliquid', 'USDC'))).toBe(deliveryCost(market, a('hyperliquid', 'USDC')));
  });
});
