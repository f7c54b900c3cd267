// The two steps of order creation every family shares: the quote an order names (this edge's copy, else its actor's),
// and one `quote.order` to the quote's host, which binds the quote (the first order id proposed wins) and creates the
// bound order; a repeat after an attempt cut short between the two completes the creation. The actor's "Quote X does
// not exist." names no field, so both answer a missing quote naming the request's own field.
import type { Bus, RequestOptions } from '../src/bus/types.js';
import { QuoteNotFound } from '../src/errors.js';
import type { QuoteOrder, QuoteOrdered } from '../src/protocol/index.js';
import type { Quote } from '../src/quotes/types.js';
import type { IssuedQuotes } from './issued-quotes.js';

export interface QuoteOrderDeps {
  bus: Bus;
  quotes: IssuedQuotes;
}

/** The request's field that names the quote (`quote_id`, `quoteId`, `id`) and its canonical value. */
export interface QuoteField {
  field: string;
  quoteId: string;
}

/** What the order is to be: the id this request proposes, its addresses and its family's terms (none for Family A). */
export type ProposedOrder = Omit<QuoteOrder, 'type'>;

export function quoteNamed(deps: QuoteOrderDeps, named: QuoteField, opts: RequestOptions): Promise<Quote> {
  return known(named, () => deps.quotes.get(deps.bus, named.quoteId, opts));
}

// Which families can order a quote. Family C's quotes carry the client's `slippageBps` (and may be exact output), from
// which a C order's bounds derive; Families A and B have no terms that honour either, and C's orders have no bounds
// without them. So C's quotes are ordered through C, and A's and B's through A or B; the other way answers "not a
// known quote" (each family's own status for it), naming the request's field.

/** The slippage a quote made through Family C was asked with; a quote made elsewhere is refused. */
export function cSlippageOf(named: QuoteField, quote: Quote): number {
  const slippageBps = quote.request.slippageBps;
  if (slippageBps === undefined) throw madeElsewhere(named, 'another API');
  return slippageBps;
}

/** Refuses a quote made through Family C, whose slippage and mode Families A and B cannot honour. */
export function assertNotCQuote(named: QuoteField, quote: Quote): void {
  if (quote.request.slippageBps !== undefined) throw madeElsewhere(named, 'the typed-currency API (with `slippageBps`)');
}

function madeElsewhere({ field, quoteId }: QuoteField, where: string): QuoteNotFound {
  return new QuoteNotFound(`\`${field}\` ${quoteId} is a quote made through ${where}, not POST /quote of this one; quote here first.`);
}

/** Orders the named quote: its host makes the order from the quote its actor holds (the edge's copy only validated
 *  the request). */
export function orderFromQuote(deps: Pick<QuoteOrderDeps, 'bus'>, named: QuoteField, order: ProposedOrder, opts: RequestOptions): Promise<QuoteOrdered> {
  return known(named, () => deps.bus.request({ kind: 'quote', id: named.quoteId }, { type: 'quote.order', ...order }, opts));
}

async function known<T>({ field, quoteId }: QuoteField, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof QuoteNotFound) throw new QuoteNotFound(`\`${field}\` ${quoteId} is not a known quote.`);
    throw err;
  }
}
