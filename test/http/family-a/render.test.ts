import { describe, expect, it } from 'vitest';
import { renderQuote } from '../../../http/family-a/render.js';
import type { Quote } from '../../../src/quotes/types.js';
import { audit, oneStepRoute, quoteRequest } from '../../support/fixtures.js';

function quote(id: string, expiresAt: number, format: 'formatted' | 'raw'): Quote {
  const route = oneStepRoute();
  return {
    id,
    request: quoteRequest({ format }),
    route,
    refundCost: 2_000n,
    audit: audit(route),
    quotedAt: expiresAt - 600_000,
    expiresAt,
    usdPrices: {},
    rounds: 1,
  };
}

describe('Family A rendering of a quote', () => {
  it('gives each answer and each of its candidates that answer\'s own expiry and format, whatever was rendered before', () => {
    const a = quote('q-a', Date.UTC(2026, 10, 22, 10, 10), 'formatted');
    const b = quote('q-b', Date.UTC(2026, 10, 22, 11, 0), 'raw');
    for (const [q, expires, amount] of [[a, '2026-11-22T10:10:00.000Z', '1000'], [b, '2026-11-22T11:00:00.000Z', '1000000000'], [a, '2026-11-22T10:10:00.000Z', '1000']] as const) {
      const wire = renderQuote(q);
      expect(wire.expires_at).toBe(expires);
      expect(wire.from_amount).toBe(amount);
      const first = wire.quote_candidates!.single_hop[0]!;
      expect(first.status === 'quoted' && first.quote).toMatchObject({ id: q.id, expires_at: expires, from_amount: amount });
    }
  });

  it('writes each candidate\'s fields in one order: venue, elapsed_ms, best, status, then what the status carries', () => {
    const wire = renderQuote(quote('q', Date.UTC(2026, 10, 22), 'formatted'));
    const [quoted, timedOut] = wire.quote_candidates!.single_hop;
    expect(Object.keys(quoted!)).toEqual(['venue', 'elapsed_ms', 'best', 'status', 'quote', 'costing_audit']);
    expect(Object.keys(timedOut!)).toEqual(['venue', 'elapsed_ms', 'best', 'status']);
  });
});
