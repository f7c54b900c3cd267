// Family A POST /quote through the whole embedded service: edge → bus → quote actor → routing → simulated market
// → store. The simulated market answers at latency scale 0 without random failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import { checkRouteInvariants } from '../../src/routing/index.js';
import type { Quote } from '../../src/quotes/types.js';
import type { PricedRoute } from '../../src/routing/types.js';
import { startService, type RunningService } from '../support/service.js';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

/** Reads a rendered raw-format route back into core terms, to check the invariants on what the client sees. */
function coreRoute(body: any): PricedRoute {
  const asset = (s: string) => parseChainAsset(s, 'asset');
  const amt = (s: string, a: string) => parseAmount(s === '0' ? '1' : s, asset(a), 'raw', 'amount') - (s === '0' ? 1n : 0n);
  const steps = (body.route as any[]).map((s) => ({
    venue: s.venue,
    from: asset(s.from).id,
    to: asset(s.to).id,
    execution: s.execution,
    stepAmountIn: amt(s.step_amount_in, s.from),
    venueAmountIn: amt(s.venue_amount_in, s.from),
    venueAmountOut: amt(s.venue_amount_out, s.to),
    stepAmountOut: amt(s.step_amount_out, s.to),
  }));
  return {
    from: asset(body.from).id,
    to: asset(body.to).id,
    amountIn: amt(body.from_amount, body.from),
    steps,
    delivery: {
      amountIn: amt(body.delivery.amount_in, body.to),
      executionCost: amt(body.delivery.execution_cost, body.to),
      amountOut: amt(body.delivery.amount_out, body.to),
    },
    estimatedAmountOut: amt(body.estimated_amount_out, body.to),
  };
}

describe('POST /quote: creates a quote, the best route across admitted venues', () => {
  it('a direct pair (base.usdc → arbitrum.usdc) answers 200 with a one-step route whose amounts hold every invariant', async () => {
    const r = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500000000', return_full_route: true, format: 'raw' });
    expect(r.status).toBe(200);
    expect(r.body.route).toHaveLength(1);
    const route = coreRoute(r.body);
    expect(checkRouteInvariants(route, { from: route.from, to: route.to, amountIn: 2_500_000_000n })).toEqual([]);
  });

  it('bitcoin → an Arbitrum stablecoin has no direct venue: multi-hop search decides the answer', async () => {
    const r = await svc.post('/quote', {
      from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '50000000', return_full_route: true, include_candidates: true, format: 'raw',
    });
    expect(r.status).toBe(200);
    expect(r.body.quote_candidates.single_hop).toEqual([]);
    expect(r.body.quote_candidates.multi_hop.hops).toBe(2);
    expect(r.body.route.length).toBe(2);
    const route = coreRoute(r.body);
    expect(checkRouteInvariants(route, { from: route.from, to: route.to, amountIn: 50_000_000n })).toEqual([]);
    const best = r.body.quote_candidates.multi_hop.routes.filter((x: any) => x.best);
    expect(best).toHaveLength(1);
    expect(best[0].venues).toEqual(r.body.route.map((s: any) => s.venue));
  });

  it('the quote is stored: its actor snapshot is in the store, quoted, with expires_at ten minutes after quoting', async () => {
    const r = await svc.post('/quote', { from: 'ethereum.eth', to: 'ethereum.usdc', from_amount: '1', return_full_route: false });
    expect(r.status).toBe(200);
    expect(r.body.route).toBeUndefined();
    const stored = await svc.service.store.load('quote', r.body.id);
    const snap = stored!.snapshot as { value: string; context: { quote: Quote } };
    expect(snap.value).toBe('quoted');
    expect(snap.context.quote.expiresAt - snap.context.quote.quotedAt).toBe(600_000);
    expect(Date.parse(r.body.expires_at)).toBe(snap.context.quote.expiresAt);
  });

  it('the same quote is found after a restart of the service on the same data dir', async () => {
    const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'router-restart-'));
    const first = await startService({}, dir);
    const r = await first.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '10', return_full_route: false });
    await first.stop();
    const second = await startService({}, dir);
    const quote = await second.service.bus.request({ kind: 'quote', id: r.body.id }, { type: 'quote.get' });
    expect(quote.id).toBe(r.body.id);
    expect(quote.route.estimatedAmountOut.toString()).toBe(
      parseAmount(r.body.estimated_amount_out, parseChainAsset('arbitrum.usdc', 'to'), 'formatted', 'x').toString(),
    );
    await second.stop();
  });

  it('venue_allowlist restricts quoting to those venues', async () => {
    const r = await svc.post('/quote', {
      from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '100', return_full_route: true, include_candidates: true, venue_allowlist: ['across'],
    });
    expect(r.status).toBe(200);
    expect(r.body.venue_allowlist).toEqual(['across']);
    expect(r.body.quote_candidates.single_hop.map((c: any) => c.venue)).toEqual(['across']);
    expect(r.body.route.every((s: any) => s.venue === 'across')).toBe(true);
  });

  it('422 QuoteRefusal when no venue can quote, with candidates when asked', async () => {
    const r = await svc.post('/quote', {
      from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.5', return_full_route: true, include_candidates: true, venue_allowlist: ['kyberswap'],
    });
    expect(r.status).toBe(422);
    expect(typeof r.body.error).toBe('string');
    expect(r.body.quote_candidates.multi_hop.hops).toBeNull();
    const plain = await svc.post('/quote', {
      from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.5', return_full_route: true, venue_allowlist: ['kyberswap'],
    });
    expect(plain.status).toBe(422);
    expect(plain.body.quote_candidates).toBeUndefined();
  });

  it('400 and nothing stored when both venue lists are set', async () => {
    const r = await svc.post('/quote', {
      from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '100', return_full_route: true, venue_allowlist: ['across'], venue_blocklist: ['relay'],
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/venue_allowlist|venue_blocklist/);
  });
});

describe('POST /order and GET /order/{id} through the whole embedded service', () => {
  it('binds a quote to one order with a fresh deposit address; repeats return it, other addresses 409, GET reads it', async () => {
    const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '100', return_full_route: false });
    expect(q.status).toBe(200);
    const to = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
    const first = await svc.post('/order', { quote_id: q.body.id, to_address: to });
    expect(first.status).toBe(201);
    expect(first.body.status).toBe('awaiting_deposit');
    expect(first.body.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Date.parse(first.body.deposit_deadline) - Date.parse(first.body.created_at)).toBe(7 * 24 * 3600 * 1000);
    const again = await Promise.all(Array.from({ length: 20 }, () => svc.post('/order', { quote_id: q.body.id, to_address: to })));
    expect(new Set(again.map((r) => r.body.id))).toEqual(new Set([first.body.id]));
    const other = await svc.post('/order', { quote_id: q.body.id, to_address: '0x000000000000000000000000000000000000dEaD' });
    expect(other.status).toBe(409);
    const got = await fetch(`${svc.url}/order/${first.body.id}`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as { deposit_address: string }).deposit_address).toBe(first.body.deposit_address);
    expect((await fetch(`${svc.url}/order/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await svc.post('/order', { quote_id: '00000000-0000-4000-8000-000000000000', to_address: to })).status).toBe(400);
  });
});
