// Family B POST /quote, /health, /openapi.json and the error envelope, black-box against the served document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuoteRefused } from '../../../src/errors.js';
import { QUOTE_VALIDITY_MS } from '../../../src/quotes/types.js';
import { QUOTED_AT, requestOf } from '../family-a/support.js';
import { quoteBody, quoted, startB, type HarnessB } from './support.js';

let h: HarnessB;
beforeAll(async () => {
  h = await startB();
});
afterAll(() => h.close());

const dec = (s: string) => Number(s);

describe('GET /health answers text/plain `ok`; GET /openapi.json is the OpenAPI 3.1 document of Family B', () => {
  it('health', async () => {
    const r = await h.call('/health');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe('ok');
  });
  it('the document lists every path, schema and the error codes', async () => {
    const doc = (await h.call('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/quote', '/order/market', '/order/{orderId}', '/order/{orderId}/cancel', '/health', '/openapi.json']);
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(expect.arrayContaining([
      'invalid_request', 'not_found', 'conflict', 'quote_expired', 'unauthorized', 'payload_too_large', 'insufficient_liquidity', 'unavailable', 'internal',
    ]));
    expect(doc.components.schemas.OrderStatus.enum).toEqual(['quoted', 'funded', 'executing', 'completed', 'cancelled', 'refund_pending', 'refunded', 'expired', 'failed']);
  });
});

describe('Every non-2xx answer is {error: {code, message, details}}', () => {
  it('malformed JSON → 400 invalid_request with issues', async () => {
    const r = await h.call('/quote', { method: 'POST', body: '{"from":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.issues).toHaveLength(1);
  });
  it('a missing field names it in issues', async () => {
    const r = await h.quote({ from: 'base.usdc', to: 'arbitrum.usdc' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0]).toEqual({ path: 'fromAmount', message: '`fromAmount` is required.' });
  });
  it('wrong content type → 415 in the envelope', async () => {
    const r = await h.call('/quote', { method: 'POST', body: 'from=x', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });
  it('a body over 16 KiB → 413 payload_too_large', async () => {
    const r = await h.quote(quoteBody({ pad: 'x'.repeat(17 * 1024) }));
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });
  it('unknown path → 404 not_found; other method → 405', async () => {
    expect((await h.call('/nope')).body.error.code).toBe('not_found');
    const r = await h.call('/quote');
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
  });
  it('a failure of ours → 500 internal, never a stack; unavailable → 503 with Retry-After', async () => {
    const saved = h.bus.answer;
    h.bus.answer = () => {
      throw new Error('boom at /secret/path.ts:12');
    };
    const r = await h.quote(quoteBody());
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal');
    expect(r.text).not.toContain('boom');
    expect(r.body.error.details.requestId).toBe(r.headers.get('x-request-id'));
    const { Unavailable } = await import('../../../src/errors.js');
    h.bus.answer = () => {
      throw new Unavailable('no responders');
    };
    const u = await h.quote(quoteBody());
    expect(u.status).toBe(503);
    expect(u.headers.get('retry-after')).toBe('1');
    h.bus.answer = saved;
  });
});

describe('POST /quote sends the quote.request Family A sends, in fast mode', () => {
  it('readable → formatted, defaults: market_order, full route, no candidates', async () => {
    await quoted(h);
    const req = h.bus.lastRequest();
    expect(req).toMatchObject({ mode: 'fast', format: 'formatted', returnFullRoute: true, includeCandidates: false, amountIn: 1_000_000_000n });
  });
  it('raw amounts are base units', async () => {
    await quoted(h, { fromAmount: '1000000', amountFormat: 'raw' });
    expect(h.bus.lastRequest()).toMatchObject({ amountIn: 1_000_000n, format: 'raw' });
  });
  it.each([
    ['from', 'x'.repeat(97)],
    ['from', ''],
    ['to', 'x'.repeat(97)],
    ['fromAmount', '1'.repeat(97)],
    ['from', 'nowhere.usdc'],
    ['to', 'base.usdc'],
    ['fromAmount', '0'],
    ['fromAmount', '1.2.3'],
    ['orderType', 'limit'],
    ['amountFormat', 'formatted'],
  ])('%s=%s → 400 invalid_request naming the field', async (field, value) => {
    const r = await h.quote(quoteBody({ [field]: value }));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.issues[0].path).toBe(field);
  });
});

describe('Quote response fields: quoteId a uuid, from and to per amountFormat, expiry a date-time, amountFormat echoed', () => {
  it('readable names assets as `base.USDC`, raw by their canonical ids; route legs and fees name theirs the same way', async () => {
    const readable = await quoted(h);
    const raw = await quoted(h, { amountFormat: 'raw' });
    const market = await quoted(h, { orderType: 'market' });
    for (const q of [readable, raw, market]) {
      expect(q.quoteId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(q.expiry).toBe(new Date(QUOTED_AT + QUOTE_VALIDITY_MS).toISOString());
    }
    expect([readable.from, readable.to, readable.amountFormat]).toEqual(['base.USDC', 'arbitrum.USDC', 'readable']);
    expect([raw.from, raw.to, raw.amountFormat]).toEqual([
      'evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 'evm:42161.0xaf88d065e77c8cc2239327c5edb3a432268e5831', 'raw',
    ]);
    expect([readable.route[0].from, readable.route.at(-1).to]).toEqual(['base.USDC', 'arbitrum.USDC']);
    expect([raw.route[0].from, raw.route.at(-1).to]).toEqual([raw.from, raw.to]);
    expect(market.fees[0]).toMatchObject({ kind: 'network', label: expect.stringMatching(/\S/), asset: 'base.USDC' });
    expect(market.fees.at(-1)).toMatchObject({ kind: 'delivery', asset: 'arbitrum.USDC' });
  });
});

describe('from, to and fromAmount are required', () => {
  it.each(['from', 'to', 'fromAmount'])('%s missing → 400 invalid_request naming it', async (field) => {
    const { [field]: _f, ...without } = quoteBody();
    const r = await h.quote(without);
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe(field);
  });
});

describe('market_order quotes: route legs from the priced route, delivery cost as the last leg\'s outputRetained', () => {
  it('legs chain and the last amountOut is estimatedOut', async () => {
    const q = await quoted(h, { amountFormat: 'raw' });
    expect(q.orderType).toBe('market_order');
    expect(q.expectedSwapTimeMs).toBeGreaterThan(0);
    const legs = q.route as Array<Record<string, any>>;
    expect(legs.length).toBeGreaterThan(0);
    for (const l of legs) {
      expect(BigInt(l.amountIn) - BigInt(l.paymasterReimbursement.inputRetained)).toBe(BigInt(l.providerAmountIn));
    }
    const last = legs.at(-1)!;
    expect(last.amountOut).toBe(q.estimatedOut);
    expect(BigInt(last.amountOut) + BigInt(last.paymasterReimbursement.outputRetained)).toBe(BigInt(last.providerAmountOut));
  });
  it('returnFullRoute false: no route', async () => {
    const q = await quoted(h, { returnFullRoute: false });
    expect(q).not.toHaveProperty('route');
  });
});

describe('market quotes: venues and one fee per cost the route pays', () => {
  it('fees sum to what the route keeps, amountRaw always base units', async () => {
    const raw = await quoted(h, { orderType: 'market', amountFormat: 'raw' });
    expect(raw.orderType).toBe('market');
    expect(raw).not.toHaveProperty('route');
    expect(raw.venues.length).toBeGreaterThan(0);
    expect(raw.fees.at(-1).kind).toBe('delivery');
    for (const f of raw.fees) expect(f.amount).toBe(f.amountRaw);
    const readable = await quoted(h, { orderType: 'market' });
    expect(dec(readable.fees[0].amount)).toBeCloseTo(Number(readable.fees[0].amountRaw) / 1e6, 6);
  });
});

describe('includeQuoteCandidates adds one record per candidate of the core\'s audit', () => {
  it('single hops and multi-hop routes, raw_quote only when quoted', async () => {
    const q = await quoted(h, { includeQuoteCandidates: true });
    expect(h.bus.lastRequest().includeCandidates).toBe(true);
    const c = q.quoteCandidates as Array<Record<string, any>>;
    expect(c.map((x) => `${x.family}:${x.status}`)).toEqual([
      'single_hop:quoted', 'single_hop:failed', 'single_hop:timed_out', 'multi_hop:quoted', 'multi_hop:failed',
    ]);
    for (const x of c) expect('raw_quote' in x).toBe(x.status === 'quoted');
    // Whole milliseconds; a route's latency is the sum of its hops' attempts (kyberswap 8, relay not asked; okx failed
    // its first hop, which ends the route: 9).
    expect(c.map((x) => x.latency_ms)).toEqual([13, 40, 1500, 8, 9]);
  });
  it('a boolean, default false: absent, no quoteCandidates and none asked of the core; a string "true" → 400', async () => {
    const q = await quoted(h);
    expect(h.bus.lastRequest().includeCandidates).toBe(false);
    expect(q).not.toHaveProperty('quoteCandidates');
    const r = await h.quote(quoteBody({ includeQuoteCandidates: 'true' }));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.issues[0].path).toBe('includeQuoteCandidates');
  });
});

describe('No route → 422 insufficient_liquidity', () => {
  it('refused', async () => {
    h.world.refuseNext = new QuoteRefused('No venue could quote the pair.', { audit: null });
    const r = await h.quote(quoteBody());
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'insufficient_liquidity', details: {} });
    expect(requestOf(h.bus.calls.at(-1)!.message).mode).toBe('fast');
  });
});
