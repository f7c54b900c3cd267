// A stand-in for the quote and order actors behind the fake bus, for Family B's black-box tests: the semantics of
// actors/kinds/quote.ts and order.ts as the edge sees them (binding rules, creation once, terms kept, a cancel asked
// again answering the order, OrderNotCancellable once executing).
import { createHash, randomUUID } from 'node:crypto';
import { getAddress } from 'viem';
import type { ActorRef } from '../../../src/bus/types.js';
import { ManualClock } from '../../../src/clock.js';
import { OrderNotCancellable, OrderNotFound, QuoteAlreadyBound, QuoteExpired, QuoteNotFound } from '../../../src/errors.js';
import { ORDER_TERMS_A, type OrderView } from '../../../src/orders/types.js';
import type { AnyCommand } from '../../../src/protocol/index.js';
import type { Quote } from '../../../src/quotes/types.js';
import { QUOTED_AT, cannedQuote } from '../family-a/support.js';

export const DEPOSIT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

interface QuoteEntry {
  quote: Quote;
  binding: { orderId: string; toAddress: string; refundAddress: string | null } | null;
}

export class BWorld {
  readonly clock = new ManualClock(undefined, QUOTED_AT + 1000);
  readonly quotes = new Map<string, QuoteEntry>();
  readonly orders = new Map<string, OrderView>();
  /** What the next quote.request answers instead of a canned quote (e.g. a refusal). */
  refuseNext: Error | null = null;

  update(orderId: string, patch: Partial<OrderView>): OrderView {
    const next = { ...this.orders.get(orderId)!, ...patch };
    this.orders.set(orderId, next);
    return next;
  }

  readonly answer = (ref: ActorRef, message: AnyCommand): unknown => (ref.kind === 'quote' ? this.quoteCommand(ref.id, message) : this.orderCommand(ref.id, message));

  private quoteCommand(id: string, message: AnyCommand): unknown {
    if (message.type === 'quote.request') {
      if (this.refuseNext) {
        const err = this.refuseNext;
        this.refuseNext = null;
        throw err;
      }
      const quote = cannedQuote(id, message.request);
      this.quotes.set(id, { quote, binding: null });
      return quote;
    }
    const entry = this.quotes.get(id);
    if (!entry) throw new QuoteNotFound(`Quote ${id} does not exist.`);
    if (message.type === 'quote.get') return entry.quote;
    if (message.type !== 'quote.bind') throw new Error(`no quote command ${message.type}`);
    if (!entry.binding) {
      if (this.clock.now() > entry.quote.expiresAt) throw new QuoteExpired(`Quote ${id} expired.`);
      entry.binding = { orderId: message.orderId, toAddress: message.toAddress, refundAddress: message.refundAddress };
    }
    if (entry.binding.toAddress !== message.toAddress || entry.binding.refundAddress !== message.refundAddress) {
      throw new QuoteAlreadyBound(`Quote ${id} is already bound to another order with other addresses.`);
    }
    return { orderId: entry.binding.orderId };
  }

  private orderCommand(id: string, message: AnyCommand): unknown {
    const existing = this.orders.get(id);
    if (message.type === 'order.create') {
      if (existing) return existing;
      const { quote } = message;
      const now = this.clock.now();
      const order: OrderView = {
        id, quoteId: quote.id, vaultId: randomUUID(), format: quote.request.format, from: quote.route.from, to: quote.route.to,
        fromAmount: quote.route.amountIn, depositAddress: getAddress(`0x${createHash('sha256').update(id).digest('hex').slice(0, 40)}`),
        toAddress: message.toAddress, refundAddress: message.refundAddress, allowlist: [], blocklist: [], status: 'awaiting_deposit',
        depositDeadline: now + DEPOSIT_WINDOW_MS, createdAt: now, amountOut: null, refunds: [], held: [], haltReason: null,
        terms: message.terms ?? ORDER_TERMS_A, stage: 'awaiting_deposit', closeReason: null, refundPending: false,
      };
      this.orders.set(id, order);
      return order;
    }
    if (!existing) throw new OrderNotFound(`Order ${id} does not exist.`);
    if (message.type === 'order.get') return existing;
    if (message.type !== 'order.unwind') throw new Error(`no order command ${message.type}`);
    if (existing.stage === 'awaiting_deposit') return this.update(id, { stage: 'refunded', status: 'expired', closeReason: 'cancelled' });
    if (existing.stage === 'underfunded' || existing.stage === 'funded') {
      return this.update(id, { stage: 'refunding.cancelled', status: 'expired', closeReason: 'cancelled', refundPending: true });
    }
    if (existing.closeReason === 'cancelled') return existing;
    throw new OrderNotCancellable(`Order ${id} is ${existing.status}: it can be cancelled before it executes.`);
  }
}
