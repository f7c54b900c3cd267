// POST /quote answers, spec 2.2–2.4 and 7: the Quote per `format`, `route` only with return_full_route,
// `quote_candidates` only with include_candidates, the 422 QuoteRefusal, and 5xx that reveal nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QuoteRefused, Unavailable } from '../../../src/errors.js';
import { QUOTE_VALIDITY_MS } from '../../../src/quotes/types.js';
import {
  BASE_CBBTC, BASE_USDC, BTC, QUOTED_AT, cannedQuote, decimalToBase, fullAudit, pricedRoute, requestOf, startHarness, validBody, type Harness,
} from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.bus.calls.length = 0;
  h.bus.answer = (ref, message) => cannedQuote(ref.id, requestOf(message));
});

/** base.USDC → base.cbBTC (EVM, Base) → bitcoin.btc (bridged on Bitcoin): three assets, two decimals (6 and 8). */
function twoStepAnswer() {
  h.bus.answer = (ref, message) => {
    const request = requestOf(message);
    const route = pricedRoute(request.amountIn, [BASE_USDC, BASE_CBBTC, BTC], ['kyberswap', 'chainflip'], [
      { mode: 'evm', chain: 8453 },
      { mode: 'bitcoin' },
    ]);
    return cannedQuote(ref.id, request, route, fullAudit(route, BASE_CBBTC));
  };
}
const usdcToBtc = (over: Record<string, unknown> = {}) => validBody({ to: 'bitcoin.btc', from_amount: '1234.567891', ...over });

describe('Quote (2.2): "format of every amount and asset name in the response"', () => {
  it('raw writes base units and canonical names; formatted writes the same values in asset units and <chain>.<symbol>', async () => {
    twoStepAnswer();
    const f = (await h.post(usdcToBtc({ include_candidates: true }))).body;
    const r = (await h.post(usdcToBtc({ format: 'raw', from_amount: '1234567891', include_candidates: true }))).body;
    expect(f.format).toBe('formatted');
    expect(r.format).toBe('raw');
    // Names: canonical ids in raw; chain name and symbol in formatted.
    expect(r.from).toBe(BASE_USDC);
    expect(r.to).toBe(BTC);
    expect(f.from.toLowerCase()).toBe('base.usdc');
    expect(f.to.toLowerCase()).toBe('bitcoin.btc');
    expect(r.route.map((s: { from: string; to: string }) => [s.from, s.to])).toEqual([[BASE_USDC, BASE_CBBTC], [BASE_CBBTC, BTC]]);
    expect(f.route[0].to.toLowerCase()).toBe('base.cbbtc');
    // Amounts: every formatted amount is the raw one in the decimals of the asset it is counted in.
    const usdc = 6, cbbtc = 8, btc = 8;
    const same = (formatted: string, raw: string, decimals: number) => expect(decimalToBase(formatted, decimals)).toBe(BigInt(raw));
    expect(r.from_amount).toBe('1234567891');
    same(f.from_amount, r.from_amount, usdc);
    same(f.estimated_amount_out, r.estimated_amount_out, btc);
    for (const k of ['amount_in', 'execution_cost', 'amount_out']) same(f.delivery[k], r.delivery[k], btc);
    const decimals = [[usdc, cbbtc], [cbbtc, btc]] as const;
    r.route.forEach((rs: Record<string, string>, i: number) => {
      const [din, dout] = decimals[i]!;
      same(f.route[i].step_amount_in, rs.step_amount_in!, din);
      same(f.route[i].venue_amount_in, rs.venue_amount_in!, din);
      same(f.route[i].venue_amount_out, rs.venue_amount_out!, dout);
      same(f.route[i].step_amount_out, rs.step_amount_out!, dout);
    });
    // The audit follows the same format.
    expect(r.quote_candidates.multi_hop.routes[0].assets).toEqual([BASE_USDC, BASE_CBBTC, BTC]);
    same(f.quote_candidates.multi_hop.attempts[2].amount_in, r.quote_candidates.multi_hop.attempts[2].amount_in, cbbtc);
    same(f.quote_candidates.single_hop[0].costing_audit.observed_amount_out, r.quote_candidates.single_hop[0].costing_audit.observed_amount_out, btc);
  });

  it('amounts satisfy the invariants of 2.2–2.3 on the wire', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc({ format: 'raw', from_amount: '5000000000' }))).body;
    const n = (s: string) => BigInt(s);
    expect(q.route[0].step_amount_in).toBe(q.from_amount);
    expect(q.route[1].step_amount_in).toBe(q.route[0].step_amount_out);
    for (const s of q.route) expect(n(s.venue_amount_in)).toBeLessThanOrEqual(n(s.step_amount_in));
    expect(q.delivery.amount_in).toBe(q.route.at(-1).step_amount_out);
    expect(n(q.delivery.amount_out)).toBe(n(q.delivery.amount_in) - n(q.delivery.execution_cost));
    expect(q.delivery.amount_out).toBe(q.estimated_amount_out);
  });

  it('`execution` is discriminated by mode; the EVM modes carry the chain id', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc())).body;
    expect(q.route[0].execution).toEqual({ mode: 'evm', chain: 8453 });
    expect(q.route[1].execution).toEqual({ mode: 'bitcoin' });
  });

  it('`evm_gas_desk` carries the chain id too; `hyperliquid` carries nothing else', async () => {
    h.bus.answer = (ref, message) => {
      const request = requestOf(message);
      const route = pricedRoute(request.amountIn, [BASE_USDC, BASE_CBBTC, BTC], ['kyberswap', 'chainflip'], [
        { mode: 'evm_gas_desk', chain: 8453 },
        { mode: 'hyperliquid' },
      ]);
      return cannedQuote(ref.id, request, route);
    };
    const q = (await h.post(usdcToBtc())).body;
    expect(q.route[0].execution).toEqual({ mode: 'evm_gas_desk', chain: 8453 });
    expect(q.route[1].execution).toEqual({ mode: 'hyperliquid' });
  });

  it('`id` is the quote actor\'s id and `expires_at` is ten minutes after quoting, ISO-8601', async () => {
    const q = (await h.post(validBody())).body;
    expect(q.id).toBe(h.bus.calls[0]!.ref.id);
    expect(q.expires_at).toBe(new Date(QUOTED_AT + QUOTE_VALIDITY_MS).toISOString());
    expect(q.expires_at).toBe('2026-11-22T10:10:00.000Z');
  });

  it('`from_amount` is echoed in `format` as the same amount in its canonical form, not the client\'s text', async () => {
    expect((await h.post(validBody({ from_amount: '02500' }))).body.from_amount).toBe('2500');
    expect((await h.post(validBody({ from_amount: '2500.100000' }))).body.from_amount).toBe('2500.1');
    expect((await h.post(validBody({ format: 'raw', from_amount: '0002500000000' }))).body.from_amount).toBe('2500000000');
  });
});

describe('Quote (2.2): "route — present only when `return_full_route` was set"', () => {
  it('absent (not null) without it, in the quote and in every candidate', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc({ return_full_route: false, include_candidates: true }))).body;
    expect(q).not.toHaveProperty('route');
    expect(q.quote_candidates.single_hop[0].quote).not.toHaveProperty('route');
    expect(q.quote_candidates.multi_hop.routes[0].quote).not.toHaveProperty('route');
  });
  it('present with it, in the quote and in every candidate', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc({ return_full_route: true, include_candidates: true }))).body;
    expect(q.route).toHaveLength(2);
    expect(q.quote_candidates.single_hop[0].quote.route).toHaveLength(1);
    expect(q.quote_candidates.multi_hop.routes[0].quote.route).toHaveLength(2);
  });
});

describe('QuoteAudit (2.4): "present only when `include_candidates` was set"', () => {
  it('renders every entry shape', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc({ include_candidates: true }))).body;
    const [quoted, failed, timedOut] = q.quote_candidates.single_hop;
    expect(quoted).toMatchObject({ venue: 'across', status: 'quoted', best: false, elapsed_ms: 13 });
    expect(quoted.costing_audit.venue).toBe('across');
    expect(quoted.costing_audit.observed_amount_in).toBe(quoted.quote.route[0].venue_amount_in);
    expect(failed).toEqual({ venue: 'mayan', elapsed_ms: 40, best: false, status: 'failed', error: 'insufficient liquidity' });
    expect(timedOut).toEqual({ venue: 'relay', elapsed_ms: 1500, best: false, status: 'timed_out' });
    const mh = q.quote_candidates.multi_hop;
    expect(mh).toMatchObject({ paths: 3, complete: false, hops: 2, setup_error: null });
    expect(mh.attempts.map((a: { status: string }) => a.status)).toEqual(['quoted', 'failed', 'timed_out']);
    expect(mh.attempts[0].step).toEqual(q.route[0]);
    expect(mh.attempts[1]).not.toHaveProperty('step');
    expect(mh.routes[0]).toMatchObject({ best: true, status: 'quoted', venues: ['kyberswap', 'relay'] });
    expect(mh.routes[1]).toMatchObject({ best: false, status: 'failed', error: 'a hop timed out' });
  });
  it('a candidate in the shape of a Quote carries the enclosing quote\'s id, expiry, format and venue lists, never candidates of its own', async () => {
    twoStepAnswer();
    const q = (await h.post(usdcToBtc({ include_candidates: true, venue_blocklist: ['okx'] }))).body;
    for (const nested of [q.quote_candidates.single_hop[0].quote, q.quote_candidates.multi_hop.routes[0].quote]) {
      expect(nested).toMatchObject({ id: q.id, expires_at: q.expires_at, format: q.format, from: q.from, venue_blocklist: ['okx'], venue_allowlist: [] });
      expect(nested).not.toHaveProperty('quote_candidates');
    }
    // The best route of the search is the quote returned.
    const best = q.quote_candidates.multi_hop.routes[0].quote;
    expect(best.estimated_amount_out).toBe(q.estimated_amount_out);
    expect(best.delivery).toEqual(q.delivery);
  });
  it('null when candidates were asked but the core kept none', async () => {
    h.bus.answer = (ref, message) => ({ ...cannedQuote(ref.id, requestOf(message)), audit: null });
    const q = (await h.post(validBody({ include_candidates: true }))).body;
    expect(q.quote_candidates).toBeNull();
  });
});

describe('422 QuoteRefusal: "no venue could quote the pair and amount"', () => {
  const refuse = (withAudit: boolean) => {
    h.bus.answer = (_ref, message) => {
      const request = requestOf(message);
      const failedOnly = fullAudit(pricedRoute(request.amountIn, [request.from, request.to], ['across']), request.from);
      throw new QuoteRefused('No venue could quote the pair and amount.', { audit: withAudit ? failedOnly : null });
    };
  };
  it('without include_candidates: only `error`', async () => {
    refuse(false);
    const res = await h.post(validBody());
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'No venue could quote the pair and amount.' });
  });
  it('the audit is never shown unless it was asked for', async () => {
    refuse(true);
    const res = await h.post(validBody({ include_candidates: false }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['error']);
  });
  it('with include_candidates: `quote_candidates` is the audit; quoted candidates expire at once (no quote was issued)', async () => {
    refuse(true);
    const res = await h.post(validBody({ include_candidates: true, format: 'raw', from_amount: '1000000' }));
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('No venue could quote the pair and amount.');
    const single = res.body.quote_candidates.single_hop;
    expect(single.map((c: { status: string }) => c.status)).toEqual(['quoted', 'failed', 'timed_out']);
    expect(single[0].quote.id).toBe(h.bus.calls[0]!.ref.id);
    expect(single[0].quote.expires_at).toBe(new Date(QUOTED_AT + 1000).toISOString());
    expect(single[0].quote.from).toBe(BASE_USDC);
  });
  it('with include_candidates but no audit kept: `quote_candidates` is null', async () => {
    refuse(false);
    const res = await h.post(validBody({ include_candidates: true }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'No venue could quote the pair and amount.', quote_candidates: null });
  });
});

describe('Errors (7): "5xx say only that something failed and carry a request id that the log also has"', () => {
  it('an unexpected failure is a 500 that hides its message', async () => {
    h.bus.answer = () => {
      throw new Error('sqlite: database is locked at /secret/path');
    };
    const res = await h.post(validBody(), { 'X-Request-Id': 'rid-500' });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('Something failed on our side (request id rid-500).');
    expect(res.text).not.toContain('secret');
    const logged = h.logs.find((l) => l.req_id === 'rid-500' && l.msg === 'request failed');
    expect(JSON.stringify(logged)).toContain('database is locked');
  });
  it('an unavailable actor host is a 503 with Retry-After, also without its message', async () => {
    h.bus.answer = () => {
      throw new Unavailable('No responders on router.shard.17.');
    };
    const res = await h.post(validBody(), { 'X-Request-Id': 'rid-503' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error).toContain('rid-503');
    expect(res.text).not.toContain('shard');
  });
  it('a core value the renderer cannot write is our failure (500), not the caller\'s (400)', async () => {
    h.bus.answer = (ref, message) => {
      const q = cannedQuote(ref.id, requestOf(message));
      return { ...q, route: { ...q.route, to: 'evm:1.0x000000000000000000000000000000000000dead' } };
    };
    const res = await h.post(validBody());
    expect(res.status).toBe(500);
  });
});
