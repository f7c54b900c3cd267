// The protocol's values are checked field by field where they arrive off the wire: a command as a host receives it,
// a reply as the edge receives it. What this service sends passes; what a sender of another shape sends is refused.
import { describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import { commandTypes, isOrderView, isQuote, malformedCommandAt, replyCheck, TIMER_DUE } from '../../../src/protocol/index.js';
import { createRouter, DEFAULT_DEADLINES, DEFAULT_MAX_HOPS, DEFAULT_PATH_LIMIT } from '../../../src/routing/index.js';
import { roundTrip } from '../../../src/store/codec.js';
import { createSimMarket } from '../../../src/venues/index.js';
import { orderViewOf, quoteOf, quoteRequest } from '../../support/fixtures.js';

/** A command that names a type of `kind` whose fields are not that type's. */
const isMalformedCommand = (kind: 'quote' | 'order', message: { readonly type: string; readonly [field: string]: unknown }) => malformedCommandAt(kind, message) !== null;

const deposit = { type: 'deposit', txId: 't', from: '0xa', amount: 5n, confirmations: 1, required: 3 };

describe('commands: the fields of each command type, as the kind\'s protocol has them', () => {
  it('a whole command of every type passes, through the codec as NATS carries it', () => {
    const quote = quoteOf();
    const whole = {
      quote: [
        { type: 'quote.request', request: quoteRequest() },
        { type: 'quote.get' },
        { type: 'quote.bind', orderId: 'o', toAddress: '0xto', refundAddress: null },
        { type: 'quote.order', orderId: 'o', toAddress: '0xto', refundAddress: '0xr', terms: orderViewOf().terms },
      ],
      order: [
        { type: 'order.create', quote, toAddress: '0xto', refundAddress: null },
        { type: 'order.get' },
        deposit,
        { ...deposit, fromRouter: true },
        { type: 'deposit.vanished', txId: 't' },
        { type: 'order.unwind' },
        { type: 'order.unwind', reason: 'operator' },
      ],
    } as const;
    for (const kind of ['quote', 'order'] as const) {
      expect(new Set(whole[kind].map((c) => c.type))).toEqual(new Set(commandTypes(kind)));
      for (const command of whole[kind]) expect(isMalformedCommand(kind, roundTrip(command)), command.type).toBe(false);
    }
  });

  it('a command missing a field, or with a field of another type, is malformed', () => {
    const { amount: _a, ...noAmount } = deposit;
    expect(isMalformedCommand('order', noAmount)).toBe(true);
    expect(isMalformedCommand('order', { ...deposit, amount: 5 })).toBe(true);
    expect(isMalformedCommand('order', { ...deposit, amount: '5' })).toBe(true);
    expect(isMalformedCommand('order', { ...deposit, confirmations: 1.5 })).toBe(true);
    expect(isMalformedCommand('order', { ...deposit, fromRouter: 'yes' })).toBe(true);
    expect(isMalformedCommand('quote', { type: 'quote.bind', orderId: 'o', toAddress: '0xto' })).toBe(true);
    expect(isMalformedCommand('quote', { type: 'quote.request', request: { ...quoteRequest(), amountIn: '1000' } })).toBe(true);
    expect(isMalformedCommand('quote', { type: 'quote.request', request: { ...quoteRequest(), allowlist: ['no_such_venue'] } })).toBe(true);
    expect(isMalformedCommand('order', { type: 'order.create', quote: { ...quoteOf(), route: null }, toAddress: '0xto', refundAddress: null })).toBe(true);
    expect(isMalformedCommand('order', { type: 'order.create', quote: quoteOf(), toAddress: '0xto', refundAddress: null, terms: { family: 'a' } })).toBe(true);
  });

  it('a malformed command is described by the first field that does not read, for the refusal\'s message', () => {
    expect(malformedCommandAt('order', { ...deposit, amount: 5 })).toBe('`amount`');
    expect(malformedCommandAt('quote', { type: 'quote.request', request: { ...quoteRequest(), allowlist: ['no_such_venue'] } })).toBe('`request.allowlist[0]`');
    const { route: _route, ...noRoute } = quoteOf();
    expect(malformedCommandAt('order', { type: 'order.create', quote: noRoute, toAddress: '0xto', refundAddress: null })).toBe('`quote.route`');
    expect(malformedCommandAt('order', deposit)).toBeNull();
    expect(malformedCommandAt('order', { type: 'quote.get' })).toBeNull();
  });

  it('fields the protocol does not name are let through (a newer sender may add one)', () => {
    expect(isMalformedCommand('order', { ...deposit, note: 'extra' })).toBe(false);
  });

  it('the runtime\'s wake-up carries its due time; a type the kind does not know is left to the runtime (UnknownCommand)', () => {
    expect(isMalformedCommand('order', { type: TIMER_DUE, at: 1_000 })).toBe(false);
    expect(isMalformedCommand('order', { type: TIMER_DUE })).toBe(true);
    expect(isMalformedCommand('order', { type: 'quote.get' })).toBe(false);
    expect(isMalformedCommand('order', { type: '__proto__' })).toBe(false);
  });
});

describe('replies: the value each command answers', () => {
  it('a quote the router priced, with its audit, is a Quote through the codec; so is an order', async () => {
    const market = createSimMarket({ seed: 7, latencyScale: 0, failures: false });
    const router = createRouter({ market, deadlines: { ...DEFAULT_DEADLINES }, pathLimit: DEFAULT_PATH_LIMIT, maxHops: DEFAULT_MAX_HOPS });
    const from = findAsset('bitcoin', 'BTC')!.id;
    const to = findAsset('arbitrum', 'USDC')!.id;
    const request = quoteRequest({ from, to, amountIn: 50_000_000n });
    const routed = await router.route(request);
    expect(routed.best).not.toBeNull();
    const quote = quoteOf({ request, route: routed.best!, refundCost: routed.refundCost, audit: routed.audit });
    expect(routed.audit.multiHop.attempts.length).toBeGreaterThan(0);
    expect(isQuote(roundTrip(quote))).toBe(true);
    expect(replyCheck('quote', 'quote.request')(roundTrip(quote))).toBe(true);
    expect(replyCheck('order', 'order.get')(roundTrip(orderViewOf()))).toBe(true);
  });

  it('a reply of another shape is refused by the check of its command\'s reply', () => {
    expect(isQuote({ ...quoteOf(), refundCost: 2000 })).toBe(false);
    expect(isQuote({ ...quoteOf(), route: { ...quoteOf().route, steps: [{ ...quoteOf().route.steps[0], execution: { mode: 'teleport' } }] } })).toBe(false);
    expect(isOrderView({ ...orderViewOf(), status: 'completed' })).toBe(false);
    expect(isOrderView({ ...orderViewOf(), terms: { ...orderViewOf().terms, refundAuthorization: { mode: 'evmSignature' } } })).toBe(false);
    expect(replyCheck('quote', 'quote.bind')({ orderId: 'o' })).toBe(true);
    expect(replyCheck('quote', 'quote.bind')({ order: 'o' })).toBe(false);
    expect(replyCheck('quote', 'quote.order')({ orderId: 'o', order: { id: 'o' } })).toBe(false);
    expect(replyCheck('order', 'order.unwind')(null)).toBe(false);
  });
});
