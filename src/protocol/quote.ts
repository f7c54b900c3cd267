// Commands of the quote actor and the replies they answer with. `quote.request` creates the actor and answers once
// pricing has ended; order creation reads the quote (`quote.get`) and binds it to one order (`quote.bind`).
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

export interface QuoteProtocol {
  'quote.request': { command: QuoteRequestCommand; reply: Quote };
  'quote.get': { command: QuoteGet; reply: Quote };
  'quote.bind': { command: QuoteBind; reply: QuoteBound };
}

export type QuoteCommand = CommandOf<QuoteProtocol>;
