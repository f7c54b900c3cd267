import { describe, expect, it } from 'vitest';
import { orderTypeOf, quoteIdFor } from '../../../http/family-b/order-type.js';

const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe("Family B: a quote's id carries its orderType and leads with its creation time", () => {
  it('market → a version-8 uuid; market_order → version 7; both read back as made, both time-ordered', () => {
    const before = Date.now();
    const market = quoteIdFor('market');
    const marketOrder = quoteIdFor('market_order');
    expect(market).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(marketOrder).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(orderTypeOf(market)).toBe('market');
    expect(orderTypeOf(marketOrder)).toBe('market_order');
    for (const id of [market, marketOrder]) expect(timeOf(id)).toBeGreaterThanOrEqual(before);
  });

  it('ids issued by earlier builds (random version 4) still read as market_order; upper case and urn: too', () => {
    expect(orderTypeOf('0b9e3c1a-5d2f-4e61-9a7b-3c2d1e0f9a8b')).toBe('market_order');
    expect(orderTypeOf('urn:uuid:0B9E3C1A-5D2F-8E61-9A7B-3C2D1E0F9A8B')).toBe('market');
  });
});
