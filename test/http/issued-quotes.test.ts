// Order creation reads the quote it binds: from this process's memory when this process issued it (no `quote.get`
// round trip to the actor), from the actor otherwise. The copy never decides anything: `quote.bind` at the actor does.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createIssuedQuotes } from '../../http/issued-quotes.js';
import type { Bus } from '../../src/bus/types.js';
import type { Quote } from '../../src/quotes/types.js';
import { startService, type RunningService } from '../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const REFUND = '0x000000000000000000000000000000000000dEaD';
const QUOTE = { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: false, include_candidates: true };

describe('IssuedQuotes: the quotes this process issued', () => {
  const quoteOf = (id: string): Quote => ({ id, audit: { singleHop: [] } }) as unknown as Quote;
  const busAnswering = (answer: (id: string) => Quote) => {
    const request = vi.fn(async (ref: { id: string }, _command: { type: string }) => answer(ref.id));
    return { bus: { request } as unknown as Bus, request };
  };

  it('answers a remembered quote without asking its actor, and without its candidates', async () => {
    const quotes = createIssuedQuotes();
    const { bus, request } = busAnswering(quoteOf);
    quotes.remember(quoteOf('q1'));
    const q = await quotes.get(bus, 'q1', {});
    expect(q.id).toBe('q1');
    expect(q.audit).toBeNull();
    expect(request).not.toHaveBeenCalled();
  });

  it('asks the actor (quote.get) for a quote it did not issue, and forgets the oldest beyond its bound', async () => {
    const quotes = createIssuedQuotes(2);
    const { bus, request } = busAnswering(quoteOf);
    quotes.remember(quoteOf('a'));
    quotes.remember(quoteOf('b'));
    quotes.remember(quoteOf('c'));
    await quotes.get(bus, 'b', {});
    await quotes.get(bus, 'c', {});
    expect(request).not.toHaveBeenCalled();
    await quotes.get(bus, 'a', {});
    await quotes.get(bus, 'elsewhere', {});
    expect(request.mock.calls.map((c) => c[0])).toEqual([{ kind: 'quote', id: 'a' }, { kind: 'quote', id: 'elsewhere' }]);
    expect(request.mock.calls.map((c) => c[1].type)).toEqual(['quote.get', 'quote.get']);
  });
});

describe('POST /order binds a quote this process issued without reading it back', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => svc.stop());

  it('an order is created with one quote.order (no quote.get); repeating it answers the same order', async () => {
    const quote = await svc.post('/quote', QUOTE);
    expect(quote.status).toBe(200);
    const bus = svc.service.bus;
    const original = bus.request;
    const seen: string[] = [];
    const tap: Bus['request'] = (ref, command, opts) => {
      seen.push(`${ref.kind}:${command.type}`);
      return original(ref, command, opts);
    };
    bus.request = tap;
    try {
      const order = await svc.post('/order', { quote_id: quote.body.id, to_address: TO, refund_address: REFUND });
      expect(order.status).toBe(201);
      expect(seen).toEqual(['quote:quote.order']);
      const again = await svc.post('/order', { quote_id: quote.body.id, to_address: TO, refund_address: REFUND });
      expect(again.body.id).toBe(order.body.id);
      // Another address for a bound quote is still refused: the actor decides, not the copy.
      const other = await svc.post('/order', { quote_id: quote.body.id, to_address: REFUND, refund_address: REFUND });
      expect(other.status).toBe(409);
    } finally {
      bus.request = original;
    }
  });
});
