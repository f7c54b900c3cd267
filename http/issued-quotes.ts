// The quotes this edge issued, kept in memory so that making an order from one needs no `quote.get` round trip to
// its actor (in a cluster, one NATS request fewer per order). A quote never changes once issued, so a copy is as good
// as the actor's answer; what can change (bound, expired, purged) is decided by `quote.bind` at the actor, which
// order creation always asks. Bounded: the oldest entries leave first; a quote another edge issued is asked for.
import type { Bus, RequestOptions } from '../src/bus/types.js';
import type { Quote } from '../src/quotes/types.js';

export interface IssuedQuotes {
  /** Remembers a quote this edge just issued (its candidates are left out: they were rendered in its answer). */
  remember(quote: Quote): void;
  /** The quote with this id: from memory when this edge issued it, else from its actor (`quote.get`). */
  get(bus: Bus, id: string, opts: RequestOptions): Promise<Quote>;
}

/** Entries kept at most; a quote without candidates is about 2–3 KB in memory. */
export const ISSUED_QUOTES_MAX = 10_000;

export function createIssuedQuotes(max = ISSUED_QUOTES_MAX): IssuedQuotes {
  const quotes = new Map<string, Quote>();
  return {
    remember(quote) {
      quotes.set(quote.id, quote.audit === null ? quote : { ...quote, audit: null });
      // A Map iterates in insertion order: its first key is the oldest.
      if (quotes.size > max) quotes.delete(quotes.keys().next().value!);
    },
    async get(bus, id, opts) {
      return quotes.get(id) ?? bus.request({ kind: 'quote', id }, { type: 'quote.get' }, opts);
    },
  };
}
