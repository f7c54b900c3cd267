// ROUTER_ORDER_MAX_DEPOSIT through the embedded service: an order selling more than its asset's limit is refused at
// creation by every family (400, naming both amounts); deposits adding up to more than
// the limit freeze an order for an operator, nothing of them spent, and an unwind pays them back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAsset } from '../../src/assets/registry.js';
import { pollUntil } from '../support/poll.js';
import { startService, type RunningService } from '../support/service.js';

const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const BASE_USDC = findAsset('base', 'USDC')!;
const USDC_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: BASE_USDC.address, decimals: 6 } };
const USDC_ARB = { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: findAsset('arbitrum', 'USDC')!.address, decimals: 6 } };
const LIMIT = /above this router's limit of 3000 base\.USDC per order/;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50', ROUTER_ORDER_MAX_DEPOSIT: 'base.usdc=3000' });
});
afterAll(async () => svc.stop());

const quoteA = async (amount: string) => {
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: amount, return_full_route: true });
  expect(q.status).toBe(200);
  return q.body.id as string;
};

describe('deposit limit per source asset', () => {
  it('Family A: an order above the limit is 400 naming both amounts; one at the limit is created', async () => {
    const id = await quoteA('3500');
    const o = await svc.post('/order', { quote_id: id, to_address: EVM });
    expect(o.status).toBe(400);
    expect(o.body.error).toMatch(/sells 3500 base\.USDC/);
    expect(o.body.error).toMatch(LIMIT);
    expect((await svc.post('/order', { quote_id: await quoteA('3000'), to_address: EVM })).status).toBe(201);
  });

  it('Family B: an order above the limit is 400 invalid_request', async () => {
    const q = await svc.post(`${svc.urlB}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '3500' });
    expect(q.status).toBe(200);
    const o = await svc.post(`${svc.urlB}/order/market`, { quoteId: q.body.quoteId, fromAddress: EVM, toAddress: EVM, refundMode: 'token' });
    expect(o.status).toBe(400);
    expect(o.body.error).toMatchObject({ code: 'invalid_request' });
    expect(o.body.error.message).toMatch(/sells 3500 base\.USDC/);
    expect(o.body.error.message).toMatch(LIMIT);
  });

  it('Family C: an order above the limit is 400 invalid_request', async () => {
    const q = await svc.post(`${svc.urlC}/quote`, { type: 'EXACT_INPUT', from: USDC_BASE, to: USDC_ARB, amount: '3500000000', slippageBps: 50 });
    expect(q.status).toBe(200);
    const o = await svc.post(`${svc.urlC}/order/market`, { id: q.body.id, destinationAddress: EVM, refundAddress: SENDER, senderAddress: SENDER });
    expect(o.status).toBe(400);
    expect(o.body.error).toMatchObject({ code: 'invalid_request' });
    expect(o.body.error.message).toMatch(/sells 3500 base\.USDC/);
    expect(o.body.error.message).toMatch(LIMIT);
  });

  it('Family C exact output: an order accepting deposits up to a from.maximum above the limit is 400 invalid_request', async () => {
    // About 2 980 USDC expected, and 5 % slippage lets deposits reach about 3 130: above the 3 000 limit.
    const q = await svc.post(`${svc.urlC}/quote`, { type: 'EXACT_OUTPUT', from: USDC_BASE, to: USDC_ARB, amount: '2980000000', slippageBps: 500 });
    expect(q.status).toBe(200);
    expect(BigInt(q.body.from.expected)).toBeLessThanOrEqual(3_000_000_000n);
    expect(BigInt(q.body.from.maximum)).toBeGreaterThan(3_000_000_000n);
    const o = await svc.post(`${svc.urlC}/order/market`, { id: q.body.id, destinationAddress: EVM, refundAddress: SENDER, senderAddress: SENDER });
    expect(o.status).toBe(400);
    expect(o.body.error).toMatchObject({ code: 'invalid_request' });
    expect(o.body.error.message).toMatch(/accepts deposits up to \d+(\.\d+)? base\.USDC/);
    expect(o.body.error.message).toMatch(LIMIT);
  });

  it('deposits adding up to more than the limit freeze the order: shown frozen, nothing spent; unwound, both go back', async () => {
    const o = await svc.post('/order', { quote_id: await quoteA('2500'), to_address: EVM });
    expect(o.status).toBe(201);
    const address = o.body.deposit_address as string;
    for (const amount of ['2000', '1500']) {
      expect((await svc.post(`${svc.devUrl}/deposits`, { to: address, asset: 'base.usdc', amount, from: SENDER })).status).toBeLessThan(300);
    }
    const read = async () => (await (await fetch(`${svc.url}/order/${o.body.id}`)).json()) as Record<string, any>;
    const shown = await pollUntil(read, (s) => s.status === 'frozen', 10_000, 20);
    expect(shown.status).toBe('frozen');
    expect(await svc.service.chains.balanceOf('base', address, BASE_USDC.id)).toBe(3_500_000_000n);

    // The operator unwinds it: both deposits go back to their sender, less each refund's cost.
    expect((await svc.post(`${svc.devUrl}/orders/${o.body.id}/unwind`, {})).status).toBeLessThan(300);
    await pollUntil(() => svc.service.chains.balanceOf('base', address, BASE_USDC.id), (held) => held <= 0n, 10_000, 20);
    expect(await svc.service.chains.balanceOf('base', address, BASE_USDC.id)).toBe(0n);
    const back = (await svc.service.chains.transfers({ address: SENDER })).filter((t) => t.from === address);
    expect(back.map((t) => t.amount).sort()).toEqual([1_499_989_164n, 1_999_989_164n]);
  });
});
