// Execution on the simulated venues: idempotent by key, priced at the current market, halted on a halt or shortfall.
import { describe, expect, it } from 'vitest';
import { VenueFailed } from '../../../src/errors.js';
import { USD_ONE, createSimMarket, type VenueExecuteRequest } from '../../../src/venues/index.js';
import { asset } from './helpers.js';

const ETH = asset('base', 'ETH');
const USDC = asset('base', 'USDC');

function req(over: Partial<VenueExecuteRequest> = {}): VenueExecuteRequest {
  return { key: 'order-1:0', from: ETH, to: USDC, amountIn: 10n ** 18n, minAmountOut: 0n, ...over };
}

describe('execute is idempotent by key', () => {
  it('fills once and answers the same result for the same key', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: true });
    const v = m.venue('kyberswap');
    const first = await v.execute(req());
    expect(first).toMatchObject({ status: 'filled', key: 'order-1:0', amountIn: 10n ** 18n });
    m.setUsdPrice('ETH', 2_000n * USD_ONE);
    const again = await v.execute(req({ amountIn: 5n * 10n ** 18n }));
    expect(again).toEqual(first);
    expect(m.fills()).toHaveLength(1);
  });

  it('shares one fill among concurrent calls with one key', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const v = m.venue('okx');
    const results = await Promise.all(Array.from({ length: 8 }, () => v.execute(req({ key: 'order-2:1' }))));
    expect(new Set(results.map((r) => JSON.stringify(r, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)))).size).toBe(1);
    expect(m.fills()).toHaveLength(1);
    expect(m.fills()[0]).toMatchObject({ venue: 'okx', key: 'order-2:1' });
  });

  it('fills distinct keys separately, each with its own transaction id', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const a = await m.venue('velora').execute(req({ key: 'o:0' }));
    const b = await m.venue('velora').execute(req({ key: 'o:1' }));
    expect(a.status === 'filled' && b.status === 'filled' && a.txId !== b.txId).toBe(true);
    expect(m.fills()).toHaveLength(2);
    if (a.status === 'filled') expect(a.txId).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('shapes a Bitcoin-spending fill id as a Bitcoin txid', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const r = await m.venue('unit').execute({ key: 'b:0', from: asset('bitcoin', 'BTC'), to: asset('hyperliquid', 'UBTC'), amountIn: 10_000_000n, minAmountOut: 0n });
    expect(r.status === 'filled' && /^[0-9a-f]{64}$/.test(r.txId)).toBe(true);
  });
});

describe('execute prices at the current market, deterministically', () => {
  it('fills at the preview price, and at the moved price after setUsdPrice', async () => {
    const m = createSimMarket({ seed: 4, latencyScale: 0, failures: true });
    const before = m.preview('flytrade', ETH, USDC, 10n ** 18n);
    const r1 = await m.venue('flytrade').execute(req({ key: 'p:0' }));
    expect(r1).toMatchObject({ status: 'filled', amountOut: before });
    m.setUsdPrice('ETH', 3_300n * USD_ONE);
    const r2 = await m.venue('flytrade').execute(req({ key: 'p:1' }));
    expect(r2.status === 'filled' && r2.amountOut > before).toBe(true);
  });
});

describe('execute answers halted on a halted venue or a shortfall, and a later retry may fill', () => {
  it('halts while the venue is halted, then fills the same key once resumed', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    m.setHalted('aave', true);
    const r = await m.venue('aave').execute(req({ key: 'h:0', to: asset('base', 'WETH') }));
    expect(r).toEqual({ status: 'halted', key: 'h:0', reason: 'aave: trading is halted.' });
    m.setHalted('aave', false);
    expect(await m.venue('aave').execute(req({ key: 'h:0', to: asset('base', 'WETH') }))).toMatchObject({ status: 'filled' });
    expect(m.fills()).toHaveLength(1);
  });

  it('halts with a shortfall when the output is below minAmountOut', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const quoted = m.preview('kyberswap', ETH, USDC, 10n ** 18n);
    m.setUsdPrice('ETH', 2_900n * USD_ONE);
    const r = await m.venue('kyberswap').execute(req({ key: 's:0', minAmountOut: quoted }));
    expect(r.status).toBe('halted');
    if (r.status === 'halted') expect(r.reason).toMatch(/^kyberswap: shortfall/);
    expect(m.fills()).toHaveLength(0);
  });

  it('halts when the trade is larger than the venue can fill', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const r = await m.venue('kyberswap').execute(req({ key: 'd:0', amountIn: 100_000n * 10n ** 18n }));
    expect(r.status === 'halted' && /insufficient liquidity/.test(r.reason)).toBe(true);
  });
});

describe('execute rejects what no venue could run', () => {
  it('rejects an unsupported pair and a zero amount with VenueFailed', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    await expect(m.venue('unit').execute(req({ key: 'u:0' }))).rejects.toBeInstanceOf(VenueFailed);
    await expect(m.venue('okx').execute(req({ key: 'u:1', amountIn: 0n }))).rejects.toBeInstanceOf(VenueFailed);
  });

  it('an injected failure rejects once and is not remembered, so the same key then fills', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    m.failNextExecute('okx', 'nonce too low');
    await expect(m.venue('okx').execute(req({ key: 'f:0' }))).rejects.toThrow('okx: nonce too low');
    expect(await m.venue('okx').execute(req({ key: 'f:0' }))).toMatchObject({ status: 'filled' });
    expect(m.fills()).toHaveLength(1);
  });

  it('rejects with the reason of an already aborted signal and fills nothing', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const ac = new AbortController();
    ac.abort(new Error('order cancelled'));
    await expect(m.venue('okx').execute(req({ key: 'a:0', signal: ac.signal }))).rejects.toThrow('order cancelled');
    expect(m.fills()).toHaveLength(0);
  });
});
