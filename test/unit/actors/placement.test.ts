// `quote.order` at the quote's host (actors/placement.ts): the quote as its actor holds it, the quote's bind, then the
// bound order's creation from that quote, here when the host holds the order's shard and over the bus when it does
// not; a failed step answers its own failure; an order above its asset's deposit limit is refused before the bind.
import { describe, expect, it } from 'vitest';
import { withOrderPlacement } from '../../../actors/placement.js';
import { runtimeOver } from '../../support/fake-runtime.js';
import type { ActorRef, Bus, Envelope, Reply } from '../../../src/bus/types.js';
import { AmountAboveLimit, QuoteExpired, QuoteNotFound, Unavailable, fromErrorData, toErrorData } from '../../../src/errors.js';
import { findAsset } from '../../../src/assets/registry.js';
import { parseDepositLimits } from '../../../src/orders/limits.js';
import type { AnyCommand, QuoteOrder } from '../../../src/protocol/index.js';
import type { Quote } from '../../../src/quotes/types.js';
import { orderViewOf, quoteOf } from '../../support/fixtures.js';

const QUOTE = quoteOf({ id: 'q-1', audit: null });
const ORDER_VIEW = orderViewOf({ id: 'o-bound' });
const place: QuoteOrder = { type: 'quote.order', orderId: 'o-proposed', toAddress: '0xto', refundAddress: null };

type Step = 'quote.get' | 'quote.bind' | 'order.create';

/** A host's runtime whose quote actor holds `quote`, that binds every quote to `o-bound` and creates any order;
 *  `fail` answers a step's failure. */
function host(fail: Partial<Record<Step, Error>> = {}, quote: Quote = QUOTE) {
  const seen: Envelope[] = [];
  const handle = async (e: Envelope): Promise<Reply> => {
    seen.push(e);
    const err = fail[e.message.type as Step];
    if (err) return { ok: false, error: toErrorData(err) };
    if (e.message.type === 'quote.get' && e.ref.kind === 'quote') return { ok: true, value: quote };
    if (e.message.type === 'quote.bind') return { ok: true, value: { orderId: 'o-bound' } };
    if (e.message.type === 'order.create') return { ok: true, value: ORDER_VIEW };
    return { ok: true, value: `passed ${e.message.type}` };
  };
  const sent: Array<{ ref: ActorRef; command: AnyCommand }> = [];
  const bus: Pick<Bus, 'request'> = {
    request: (async (ref: ActorRef, command: AnyCommand) => {
      sent.push({ ref, command });
      return ORDER_VIEW;
    }) as Bus['request'],
  };
  return { seen, sent, handle, bus };
}

const envelope = (message: Envelope['message'], kind: ActorRef['kind'] = 'quote'): Envelope => ({ ref: { kind, id: 'q-1' }, message, requestId: 'rid-7' });

describe('quote.order at the quote\'s host', () => {
  it('reads the quote from its actor, binds it, then creates the bound order from it here when this host holds its shard', async () => {
    const h = host();
    const reply = await withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus })(envelope({ ...place }));
    expect(reply).toEqual({ ok: true, value: { orderId: 'o-bound', order: ORDER_VIEW } });
    expect(h.seen).toEqual([
      { ref: { kind: 'quote', id: 'q-1' }, message: { type: 'quote.get' }, requestId: 'rid-7' },
      { ref: { kind: 'quote', id: 'q-1' }, message: { type: 'quote.bind', orderId: 'o-proposed', toAddress: '0xto', refundAddress: null }, requestId: 'rid-7' },
      { ref: { kind: 'order', id: 'o-bound' }, message: { type: 'order.create', quote: QUOTE, toAddress: '0xto', refundAddress: null }, requestId: 'rid-7' },
    ]);
    expect(h.sent).toEqual([]);
  });

  it('makes the order from the quote without its candidates, which were rendered once when it was issued', async () => {
    const h = host({}, quoteOf({ id: 'q-1' }));
    expect(quoteOf().audit).not.toBeNull();
    await withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus })(envelope({ ...place }));
    expect(h.seen.find((e) => e.message.type === 'order.create')?.message).toEqual({ type: 'order.create', quote: QUOTE, toAddress: '0xto', refundAddress: null });
  });

  it('answers a quote its actor does not hold (never issued, or refused) as the actor does, binding nothing', async () => {
    const h = host({ 'quote.get': new QuoteNotFound('Quote q-1 does not exist.') });
    const reply = await withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus })(envelope({ ...place }));
    expect(!reply.ok && fromErrorData(reply.error)).toBeInstanceOf(QuoteNotFound);
    expect(h.seen.map((e) => e.message.type)).toEqual(['quote.get']);
  });

  it('creates the order over the bus when another host holds its shard, with the terms given', async () => {
    const h = host();
    const terms = { minOut: 5n } as unknown as QuoteOrder['terms'];
    const held: ActorRef[] = [];
    const reply = await withOrderPlacement(runtimeOver(h.handle), { holds: (ref) => (held.push(ref), false), bus: h.bus })(envelope({ ...place, terms }));
    expect(reply).toEqual({ ok: true, value: { orderId: 'o-bound', order: ORDER_VIEW } });
    expect(held).toEqual([{ kind: 'order', id: 'o-bound' }]);
    expect(h.seen.map((e) => e.message.type)).toEqual(['quote.get', 'quote.bind']);
    expect(h.sent).toEqual([{ ref: { kind: 'order', id: 'o-bound' }, command: { type: 'order.create', quote: QUOTE, toAddress: '0xto', refundAddress: null, terms } }]);
  });

  it('answers a refused bind as it is, creating nothing', async () => {
    const h = host({ 'quote.bind': new QuoteExpired('Quote q-1 expired.') });
    const reply = await withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus })(envelope({ ...place }));
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(fromErrorData(reply.error)).toBeInstanceOf(QuoteExpired);
    expect(h.seen.map((e) => e.message.type)).toEqual(['quote.get', 'quote.bind']);
  });

  it('refuses an order selling more than its asset\'s deposit limit before binding anything', async () => {
    const usdc = findAsset('base', 'USDC')!;
    const big = quoteOf({ id: 'q-1', audit: null, route: { ...QUOTE.route, from: usdc.id, amountIn: 5_000_000_000n } });
    const limits = parseDepositLimits('ROUTER_ORDER_MAX_DEPOSIT', 'base.usdc=4000');
    const h = host({}, big);
    const reply = await withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus, limits })(envelope({ ...place }));
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(fromErrorData(reply.error)).toBeInstanceOf(AmountAboveLimit);
    expect(h.seen.map((e) => e.message.type)).toEqual(['quote.get']);
    const within = { ...big, route: { ...big.route, amountIn: 4_000_000_000n } };
    expect((await withOrderPlacement(runtimeOver(host({}, within).handle), { holds: () => true, bus: h.bus, limits })(envelope({ ...place }))).ok).toBe(true);
    // Exact output: the order would accept deposits up to maxIn, above the limit.
    const exact = { maxIn: 4_040_000_000n } as unknown as QuoteOrder['terms'];
    const over = await withOrderPlacement(runtimeOver(host({}, within).handle), { holds: () => true, bus: h.bus, limits })(envelope({ ...place, terms: exact }));
    expect(!over.ok && fromErrorData(over.error)).toBeInstanceOf(AmountAboveLimit);
  });

  it('answers a failed creation (here or over the bus) as a failure the edge may retry', async () => {
    const here = host({ 'order.create': new Unavailable('The actor is moving; try again.') });
    const local = await withOrderPlacement(runtimeOver(here.handle), { holds: () => true, bus: here.bus })(envelope({ ...place }));
    expect(local.ok === false && fromErrorData(local.error)).toBeInstanceOf(Unavailable);

    const away = host();
    away.bus.request = (async () => {
      throw new Unavailable('No worker holds shard router.shard.3 yet; try again.');
    }) as Bus['request'];
    const remote = await withOrderPlacement(runtimeOver(away.handle), { holds: () => false, bus: away.bus })(envelope({ ...place }));
    expect(remote.ok === false && fromErrorData(remote.error)).toBeInstanceOf(Unavailable);
  });

  it('passes every other message to the runtime unchanged', async () => {
    const h = host();
    const handle = withOrderPlacement(runtimeOver(h.handle), { holds: () => true, bus: h.bus });
    expect(await handle(envelope({ type: 'quote.get' }))).toEqual({ ok: true, value: QUOTE });
    expect(await handle(envelope({ type: 'order.get' }, 'order'))).toEqual({ ok: true, value: 'passed order.get' });
    expect(h.seen.map((e) => e.message.type)).toEqual(['quote.get', 'order.get']);
  });
});
