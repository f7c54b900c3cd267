// A stand-in for the quote and order actors behind the fake bus, for the POST /order and GET /order/{id} tests.
// It answers the commands of src/protocol/ with the semantics of actors/kinds/quote.ts and order.ts: a quote
// binds to the first order id proposed, the same addresses get that id again, other addresses QuoteAlreadyBound,
// a bind past expires_at QuoteExpired; order.create creates once and answers the existing order afterwards.
import { createHash, randomUUID } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { getAddress } from 'viem';
import { assetById } from '../../../src/assets/registry.js';
import type { ActorRef } from '../../../src/bus/types.js';
import { ManualClock } from '../../../src/clock.js';
import { OrderNotFound, QuoteAlreadyBound, QuoteExpired, QuoteNotFound } from '../../../src/errors.js';
import { ORDER_TERMS_A, type OrderView } from '../../../src/orders/types.js';
import type { AnyCommand } from '../../../src/protocol/index.js';
import type { Quote } from '../../../src/quotes/types.js';
import { toQuoteRequest } from '../../../http/family-a/quote.js';
import { QUOTED_AT, cannedQuote, validBody } from './support.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const DEPOSIT_WINDOW_MS = 7 * DAY_MS;

/** Addresses every test agrees on; each valid one is given in the spelling validateAddress returns. */
export const ADDR = {
  /** A valid EVM address, EIP-55 checksummed (any EVM chain, HyperCore too). */
  evm: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  evmOther: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F',
  /** `evm` with one letter's case flipped: the EIP-55 checksum fails. */
  evmBadChecksum: '0x9858EFFD232B4033E47d90003D41EC34EcaEda94',
  evmZero: '0x0000000000000000000000000000000000000000',
  /** BIP-84 test vector (P2WPKH, mainnet). */
  btc: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  btcLegacy: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
  btcTestnet: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
} as const;

interface QuoteEntry {
  quote: Quote | null;
  state: 'quoted' | 'bound' | 'expired' | 'refused';
  binding: { orderId: string; toAddress: string; refundAddress: string | null } | null;
}

export class OrderWorld {
  /** The actors' clock (the host stamps each command with it); starts one second after QUOTED_AT. */
  readonly clock = new ManualClock(undefined, QUOTED_AT + 1000);
  readonly quotes = new Map<string, QuoteEntry>();
  readonly orders = new Map<string, OrderView>();
  /** Fails the next `order.create` before it creates anything (a crash between bind and create). */
  failNextCreate: Error | null = null;
  /** Upper bound of a random wait before each command, so concurrent requests interleave as on a real bus. */
  jitterMs = 0;

  /** A quote as quote.machine stores it; `over` moves its instants (e.g. an already expired one) or its refund cost. */
  addQuote(body: Record<string, unknown> = {}, over: Partial<Pick<Quote, 'quotedAt' | 'expiresAt' | 'refundCost'>> = {}): Quote {
    const quote = { ...cannedQuote(randomUUID(), toQuoteRequest(validBody(body))), ...over };
    this.quotes.set(quote.id, { quote, state: 'quoted', binding: null });
    return quote;
  }

  /** A quote id whose pricing ended in a refusal: never issued, so unknown to order creation. */
  addRefused(): string {
    const id = randomUUID();
    this.quotes.set(id, { quote: null, state: 'refused', binding: null });
    return id;
  }

  /** Moves an order on as the order actor would (deposit seen, delivered...). */
  update(orderId: string, patch: Partial<OrderView>): OrderView {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    const next = { ...order, ...patch };
    this.orders.set(orderId, next);
    return next;
  }

  ordersOf(quoteId: string): OrderView[] {
    return [...this.orders.values()].filter((o) => o.quoteId === quoteId);
  }

  /** The FakeBus answer: every command of the order flow, plus quote.request so POST /quote feeds the world. */
  readonly answer = async (ref: ActorRef, message: AnyCommand): Promise<unknown> => {
    if (this.jitterMs > 0) await new Promise((r) => setTimeout(r, Math.random() * this.jitterMs));
    // From here on nothing awaits: one command is handled whole before the next, like an actor's mailbox.
    if (ref.kind === 'quote') return this.quoteCommand(ref.id, message);
    return this.orderCommand(ref.id, message);
  };

  private quoteCommand(id: string, message: AnyCommand): unknown {
    if (message.type === 'quote.request') {
      const quote = cannedQuote(id, message.request);
      this.quotes.set(id, { quote, state: 'quoted', binding: null });
      return quote;
    }
    const entry = this.quotes.get(id);
    if (!entry?.quote) throw new QuoteNotFound(`Quote ${id} does not exist.`);
    if (message.type === 'quote.get') return entry.quote;
    if (message.type !== 'quote.bind') throw new Error(`the quote actor has no command ${message.type}`);
    if (entry.state === 'quoted') {
      if (this.clock.now() > entry.quote.expiresAt) entry.state = 'expired';
      else {
        entry.state = 'bound';
        entry.binding = { orderId: message.orderId, toAddress: message.toAddress, refundAddress: message.refundAddress };
      }
    }
    if (entry.state === 'expired') {
      throw new QuoteExpired(`Quote ${id} expired at ${new Date(entry.quote.expiresAt).toISOString()}.`);
    }
    const b = entry.binding!;
    if (b.toAddress !== message.toAddress || b.refundAddress !== message.refundAddress) {
      throw new QuoteAlreadyBound(`Quote ${id} is already bound to another order with other addresses.`);
    }
    return { orderId: b.orderId };
  }

  private orderCommand(id: string, message: AnyCommand): unknown {
    const existing = this.orders.get(id);
    if (message.type === 'order.get') {
      if (!existing) throw new OrderNotFound(`Order ${id} does not exist.`);
      return existing;
    }
    if (message.type !== 'order.create') throw new Error(`the order actor has no command ${message.type}`);
    if (existing) return existing;
    if (this.failNextCreate) {
      const err = this.failNextCreate;
      this.failNextCreate = null;
      throw err;
    }
    const { quote } = message;
    const now = this.clock.now();
    const order: OrderView = {
      id,
      quoteId: quote.id,
      vaultId: randomUUID(),
      format: quote.request.format,
      from: quote.route.from,
      to: quote.route.to,
      fromAmount: quote.route.amountIn,
      depositAddress: depositAddress(id, quote.request.from),
      toAddress: message.toAddress,
      refundAddress: message.refundAddress,
      allowlist: quote.request.allowlist,
      blocklist: quote.request.blocklist,
      status: 'awaiting_deposit',
      depositDeadline: now + DEPOSIT_WINDOW_MS,
      createdAt: now,
      amountOut: null,
      refunds: [],
      held: [],
      haltReason: null,
      terms: ORDER_TERMS_A,
      stage: 'awaiting_deposit',
      closeReason: null,
      refundPending: false,
    };
    this.orders.set(id, order);
    return order;
  }
}

/** A deterministic, valid address on the source chain of `asset` (the vaults module derives real ones). */
function depositAddress(orderId: string, asset: string): string {
  const digest = createHash('sha256').update(orderId).digest();
  if (assetById(asset).chain === 'bitcoin') return payments.p2wpkh({ hash: digest.subarray(0, 20), network: networks.bitcoin }).address!;
  return getAddress(`0x${digest.subarray(0, 20).toString('hex')}`);
}
