// POST /quote, spec 4: one describe per row of the body table, plus the table's own rule ("no properties beyond
// these are allowed"). Every answer is checked against the served OpenAPI document by the harness.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import { ARB_USDC, BASE_USDC, startHarness, validBody, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.bus.calls.length = 0;
});

/** A refusal of the request: 400, the one-sentence envelope, and nothing reached the bus (nothing stored). */
async function expectRefused(body: unknown, message?: string | RegExp): Promise<string> {
  const res = await h.post(body);
  expect(res.status).toBe(400);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error).toMatch(/^[^\n]+[.]$/);
  if (typeof message === 'string') expect(res.body.error).toBe(message);
  else if (message) expect(res.body.error).toMatch(message);
  expect(h.bus.calls).toHaveLength(0);
  return res.body.error as string;
}

describe('POST /quote: "no properties beyond these are allowed"', () => {
  it('refuses an unknown property by name', async () => {
    await expectRefused(validBody({ foo: 1 }), 'Property `foo` is not allowed.');
  });
  it('refuses a body that is not a JSON object', async () => {
    await expectRefused([validBody()], 'The request body must be a JSON object.');
    await expectRefused('quote', 'The request body must be a JSON object.');
    await expectRefused(null, 'The request body must be a JSON object.');
  });
  it('a valid body reaches the quote actor once, with a fresh id and the request id', async () => {
    const res = await h.post(validBody(), { 'X-Request-Id': 'rid-quote-1' });
    expect(res.status).toBe(200);
    expect(h.bus.calls).toHaveLength(1);
    const call = h.bus.calls[0]!;
    expect(call.ref).toEqual({ kind: 'quote', id: h.ids.at(-1) });
    expect(call.message.type).toBe('quote.request');
    expect(call.opts?.requestId).toBe('rid-quote-1');
    expect(res.body.id).toBe(call.ref.id);
  });
});

describe('from: ChainAsset, required — "asset to sell"', () => {
  it('is required', async () => {
    const { from: _from, ...body } = validBody();
    await expectRefused(body, '`from` is required.');
  });
  it('must be a string', async () => {
    await expectRefused(validBody({ from: 8453 }), '`from` must be a string.');
  });
  it('an unknown asset is a 400 naming it', async () => {
    const msg = await expectRefused(validBody({ from: 'base.nosuchcoin' }));
    expect(msg.toLowerCase()).toContain('nosuchcoin');
    await expectRefused(validBody({ from: 'mars.usdc' }));
    await expectRefused(validBody({ from: '' }));
  });
  it('is case-insensitive and reaches the core as the canonical id', async () => {
    expect((await h.post(validBody({ from: 'BASE.usdc' }))).status).toBe(200);
    expect(h.bus.lastRequest().from).toBe(BASE_USDC);
  });
  it('accepts `evm:<chain id>.<contract address>` for the same asset', async () => {
    const address = findAsset('base', 'USDC')!.address!;
    expect((await h.post(validBody({ from: `evm:8453.${address.toUpperCase().replace('0X', '0x')}` }))).status).toBe(200);
    expect(h.bus.lastRequest().from).toBe(BASE_USDC);
  });
  it('`eth` names the native coin', async () => {
    expect((await h.post(validBody({ from: 'ethereum.eth', from_amount: '1.5' }))).status).toBe(200);
    expect(h.bus.lastRequest().from).toBe(findAsset('ethereum', 'ETH')!.id);
    expect(h.bus.lastRequest().amountIn).toBe(1_500_000_000_000_000_000n);
  });
});

describe('to: ChainAsset, required — "asset to receive, same form as `from`"', () => {
  it('is required', async () => {
    const { to: _to, ...body } = validBody();
    await expectRefused(body, '`to` is required.');
  });
  it('an unknown asset is a 400', async () => {
    await expectRefused(validBody({ to: 'arbitrum.nosuchcoin' }));
  });
  it('reaches the core as the canonical id, in any accepted form', async () => {
    expect((await h.post(validBody({ to: 'bitcoin.BTC' }))).status).toBe(200);
    expect(h.bus.lastRequest().to).toBe('bitcoin.btc');
    expect((await h.post(validBody({ to: `evm:42161.${findAsset('arbitrum', 'USDC')!.address}` }))).status).toBe(200);
    expect(h.bus.lastRequest().to).toBe(ARB_USDC);
  });
  it('the same asset as `from`, in whatever spelling, is refused', async () => {
    await expectRefused(validBody({ to: 'base.usdc' }), '`to` must be a different asset from `from`.');
    await expectRefused(validBody({ to: `evm:8453.${findAsset('base', 'USDC')!.address}` }), '`to` must be a different asset from `from`.');
  });
});

describe('from_amount: string, required — "decimal in asset units when `format` is `formatted`; integer in base units when `raw`"', () => {
  it('is required and must be a string', async () => {
    const { from_amount: _a, ...body } = validBody();
    await expectRefused(body, '`from_amount` is required.');
    await expectRefused(validBody({ from_amount: 1000 }), '`from_amount` must be a string.');
  });
  it('formatted: a decimal in the asset\'s units (USDC has 6 decimals)', async () => {
    expect((await h.post(validBody({ from_amount: '1000.5' }))).status).toBe(200);
    expect(h.bus.lastRequest().amountIn).toBe(1_000_500_000n);
    expect((await h.post(validBody({ from_amount: '0.000001' }))).status).toBe(200);
    expect(h.bus.lastRequest().amountIn).toBe(1n);
  });
  it('formatted: more decimals than the asset has, or not a number, is a 400', async () => {
    await expectRefused(validBody({ from_amount: '1.0000001' }));
    await expectRefused(validBody({ from_amount: 'ten' }));
    await expectRefused(validBody({ from_amount: '-5' }));
  });
  it('raw: an integer in base units', async () => {
    expect((await h.post(validBody({ from_amount: '1000500000', format: 'raw' }))).status).toBe(200);
    expect(h.bus.lastRequest().amountIn).toBe(1_000_500_000n);
  });
  it('raw: a decimal point is a 400', async () => {
    await expectRefused(validBody({ from_amount: '1000.5', format: 'raw' }));
  });
  it('zero cannot be quoted', async () => {
    await expectRefused(validBody({ from_amount: '0' }));
    await expectRefused(validBody({ from_amount: '0', format: 'raw' }));
  });
  it('amounts beyond 2^64 stay exact (no float on the way)', async () => {
    const big = '123456789012345678901234567890';
    expect((await h.post(validBody({ from_amount: big, format: 'raw' }))).status).toBe(200);
    expect(h.bus.lastRequest().amountIn).toBe(BigInt(big));
  });
});

describe('return_full_route: boolean, required — "include `route` in the response"', () => {
  it('is required and must be a boolean', async () => {
    const { return_full_route: _r, ...body } = validBody();
    await expectRefused(body, '`return_full_route` is required.');
    await expectRefused(validBody({ return_full_route: 'true' }), '`return_full_route` must be a boolean.');
  });
  it('true: `route` lists the steps; false: `route` is absent', async () => {
    const withRoute = await h.post(validBody({ return_full_route: true }));
    expect(Array.isArray(withRoute.body.route)).toBe(true);
    expect(withRoute.body.route).toHaveLength(1);
    expect(h.bus.lastRequest().returnFullRoute).toBe(true);
    const without = await h.post(validBody({ return_full_route: false }));
    expect(without.status).toBe(200);
    expect('route' in without.body).toBe(false);
    expect(h.bus.lastRequest().returnFullRoute).toBe(false);
  });
});

describe('format: AmountFormat, optional, default `formatted` — "writing of amounts and assets in request and response"', () => {
  it('defaults to formatted', async () => {
    const res = await h.post(validBody());
    expect(res.body.format).toBe('formatted');
    expect(h.bus.lastRequest().format).toBe('formatted');
  });
  it('accepts raw', async () => {
    const res = await h.post(validBody({ format: 'raw', from_amount: '1000000000' }));
    expect(res.body.format).toBe('raw');
    expect(h.bus.lastRequest().format).toBe('raw');
  });
  it('refuses anything else', async () => {
    await expectRefused(validBody({ format: 'decimal' }), '`format` must be one of raw, formatted.');
    await expectRefused(validBody({ format: null }), '`format` must be one of raw, formatted.');
  });
});

describe('quote_mode: QuoteMode, optional, default `optimal` — "`optimal` gives each venue up to 10 seconds; `fast` cuts each off at 1.5 seconds"', () => {
  it('defaults to optimal', async () => {
    await h.post(validBody());
    expect(h.bus.lastRequest().mode).toBe('optimal');
  });
  it('passes fast to the core', async () => {
    await h.post(validBody({ quote_mode: 'fast' }));
    expect(h.bus.lastRequest().mode).toBe('fast');
  });
  it('refuses anything else', async () => {
    await expectRefused(validBody({ quote_mode: 'slow' }), '`quote_mode` must be one of fast, optimal.');
  });
});

describe('include_candidates: boolean, optional, default false — "include `quote_candidates`"', () => {
  it('defaults to false: `quote_candidates` is absent', async () => {
    const res = await h.post(validBody());
    expect('quote_candidates' in res.body).toBe(false);
    expect(h.bus.lastRequest().includeCandidates).toBe(false);
  });
  it('true: `quote_candidates` is the audit', async () => {
    const res = await h.post(validBody({ include_candidates: true }));
    expect(h.bus.lastRequest().includeCandidates).toBe(true);
    expect(Object.keys(res.body.quote_candidates).sort()).toEqual(['multi_hop', 'single_hop']);
  });
  it('must be a boolean', async () => {
    await expectRefused(validBody({ include_candidates: 1 }), '`include_candidates` must be a boolean.');
  });
});

describe('venue_allowlist: VenueId[], optional, default [] — "quote only these; empty means every venue; cannot be combined with `venue_blocklist`"', () => {
  it('defaults to empty (every venue) and is echoed', async () => {
    const res = await h.post(validBody());
    expect(h.bus.lastRequest().allowlist).toEqual([]);
    expect(res.body.venue_allowlist).toEqual([]);
  });
  it('reaches the core and is echoed in the order given', async () => {
    const res = await h.post(validBody({ venue_allowlist: ['relay', 'across'] }));
    expect(h.bus.lastRequest().allowlist).toEqual(['relay', 'across']);
    expect(res.body.venue_allowlist).toEqual(['relay', 'across']);
    expect(res.body.venue_blocklist).toEqual([]);
  });
  it('refuses a venue outside VenueId, naming the item', async () => {
    const msg = await expectRefused(validBody({ venue_allowlist: ['relay', 'uniswap'] }));
    expect(msg).toMatch(/^`venue_allowlist\[1\]` must be one of aave, across, .*velora\.$/);
  });
  it('refuses the same venue twice', async () => {
    await expectRefused(validBody({ venue_allowlist: ['relay', 'relay'] }), '`venue_allowlist` must not list the same item twice.');
  });
  it('must be an array', async () => {
    await expectRefused(validBody({ venue_allowlist: 'relay' }), '`venue_allowlist` must be an array.');
  });
  it('cannot be combined with a non-empty `venue_blocklist`', async () => {
    await expectRefused(
      validBody({ venue_allowlist: ['relay'], venue_blocklist: ['across'] }),
      '`venue_blocklist` is not allowed together with `venue_allowlist`.',
    );
  });
  it('an empty blocklist beside it is no combination', async () => {
    const res = await h.post(validBody({ venue_allowlist: ['relay'], venue_blocklist: [] }));
    expect(res.status).toBe(200);
  });
});

describe('venue_blocklist: VenueId[], optional, default [] — "never quote these; cannot be combined with `venue_allowlist`"', () => {
  it('defaults to empty and is echoed', async () => {
    const res = await h.post(validBody());
    expect(h.bus.lastRequest().blocklist).toEqual([]);
    expect(res.body.venue_blocklist).toEqual([]);
  });
  it('reaches the core and is echoed', async () => {
    const res = await h.post(validBody({ venue_blocklist: ['mayan'], venue_allowlist: [] }));
    expect(h.bus.lastRequest().blocklist).toEqual(['mayan']);
    expect(res.body.venue_blocklist).toEqual(['mayan']);
  });
  it('refuses unknown and repeated venues', async () => {
    await expectRefused(validBody({ venue_blocklist: ['nope'] }));
    await expectRefused(validBody({ venue_blocklist: ['okx', 'okx'] }), '`venue_blocklist` must not list the same item twice.');
  });
});
