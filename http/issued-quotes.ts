// The quotes this edge issued, kept in memory so that making an order from one needs no `quote.get` round trip to
// its actor (in a cluster, one NATS request fewer per order). A quote never changes once issued, so a copy is as good
// as the actor's answer; what can change (bound, expired, purged) is decided by `quote.bind` at the actor, which
// order creation always asks. Bounded: the oldest entries leave first; a quote another edge issued is asked for.
import type { Logger } from 'pino';
import type { Bus, RequestOptions } from '../src/bus/types.js';
import { QuoteRefused } from '../src/errors.js';
import type { Quote, QuoteRequest } from '../src/quotes/types.js';
import type { EdgeGuard } from './overload.js';

export interface IssuedQuotes {
  /** Remembers a quote this edge just issued (its candidates are left out: they were rendered in its answer). */
  remember(quote: Quote): void;
  /** The quote with this id: from memory when this edge issued it, else from its actor (`quote.get`). */
  get(bus: Bus, id: string, opts: RequestOptions): Promise<Quote>;
}

/** Entries kept at most; a quote without candidates is about 2–3 KB in memory. */
export const ISSUED_QUOTES_MAX = 10_000;

/**
 * Asks a new quote actor (`id`) for a quote, in one of the edge's quote slots, and remembers the quote it issues. A
 * refusal (no route) is answered, not thrown, since each family renders it in its own envelope; every other failure is
 * thrown, a full edge's 503 included.
 */
export async function issueQuote(
  deps: { bus: Bus; quotes: IssuedQuotes; guard: Pick<EdgeGuard, 'quoteSlot'> },
  id: string,
  request: QuoteRequest,
  edge: { requestId: string; log: Logger },
): Promise<{ quote: Quote } | { refused: QuoteRefused }> {
  try {
    const quote = await deps.guard.quoteSlot(() => deps.bus.request({ kind: 'quote', id }, { type: 'quote.request', request }, { requestId: edge.requestId }));
    deps.quotes.remember(quote);
    return { quote };
  } catch (err) {
    if (!(err instanceof QuoteRefused)) throw err;
    edge.log.info({ quote_id: id }, 'quote refused');
    return { refused: err };
  }
}

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
