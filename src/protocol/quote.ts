// Commands of the quote actor and the replies they answer with. `quote.request` creates the actor and answers once
// pricing has ended; order creation binds the quote to one order and creates it (`quote.order`: `quote.bind`, then
// `order.create`, in one message to the quote's host); `quote.get` reads a quote another edge issued.
import type { OrderTerms, OrderView } from '../orders/types.js';
import type { Quote, QuoteRequest } from '../quotes/types.js';
import type { CommandOf } from './protocol.js';

/** Prices a swap and creates the quote actor under the id of the ref. Fails with QuoteRefused (its `details` carry
 *  the core QuoteAudit when candidates were asked for); a refused quote is stored too, but can never be ordered. */
export interface QuoteRequestCommand {
  type: 'quote.request';
  request: QuoteRequest;
}

/** Reads a stored quote. Fails with QuoteNotFound when it is absent or was refused (a refusal was never issued). */
export interface QuoteGet {
  type: 'quote.get';
}

/**
 * Binds the quote to one order: the first `orderId` proposed wins; the same addresses again answer the bound
 * orderId; other addresses fail with QuoteAlreadyBound; past `expiresAt` with QuoteExpired; an absent or refused
 * quote with QuoteNotFound. Addresses must already be normalised (validateAddress), so that spellings of one
 * address compare equal.
 */
export interface QuoteBind {
  type: 'quote.bind';
  orderId: string;
  toAddress: string;
  refundAddress: string | null;
}

/** The order a quote is bound to. */
export interface QuoteBound {
  orderId: string;
}

/**
 * Binds the quote to one order and creates that order: `quote.bind` with `orderId` proposed, then `order.create` of
 * the order the quote is bound to, in one message to the quote's shard. The quote's host answers it (not the quote
 * actor: actors/placement.ts) and makes the order from the quote as the quote's actor holds it, never from a copy the
 * message carries; it fails as either command would. Repeats are safe as each command's are: the same addresses again
 * answer the bound order, and its creation completes if an earlier attempt stopped after the bind.
 */
export interface QuoteOrder {
  type: 'quote.order';
  /** The id proposed for the order; the quote's first bind decides the id it gets. */
  orderId: string;
  toAddress: string;
  refundAddress: string | null;
  /** Family B's and C's terms; absent for Family A. */
  terms?: OrderTerms;
}

/** The order a `quote.order` bound the quote to, as it is after its creation. */
export interface QuoteOrdered {
  orderId: string;
  order: OrderView;
}

/** The commands the quote actor itself answers. */
export interface QuoteProtocol {
  'quote.request': { command: QuoteRequestCommand; reply: Quote };
  'quote.get': { command: QuoteGet; reply: Quote };
  'quote.bind': { command: QuoteBind; reply: QuoteBound };
}

/** The commands sent to a quote's shard that its host answers by messaging more than the quote actor. */
export interface QuoteHostProtocol {
  'quote.order': { command: QuoteOrder; reply: QuoteOrdered };
}

export type QuoteCommand = CommandOf<QuoteProtocol>;
