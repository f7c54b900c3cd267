// One typed protocol: each command of each actor kind is mapped to its reply, so the reply of `bus.request` follows
// from the ref's kind and the command's `type`, and the kinds receive the command union, never an untyped message.
// The type assertions are checked by `tsc` (expectTypeOf does nothing at run time); the lists are checked by vitest.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { orderKind } from '../../../actors/kinds/order.js';
import type { quoteKind } from '../../../actors/kinds/quote.js';
import type { Bus } from '../../../src/bus/types.js';
import type { OrderView } from '../../../src/orders/types.js';
import {
  ACTOR_KINDS, ADMIN_ENDPOINTS, ADMIN_SUBJECTS, commandTypes, isCommandOf,
  type AdminAnswer, type AdminCountsAnswer, type AdminShardsAnswer, type Command, type CommandType, type OrderCommand,
  type OrderCreate, type OrderDeposit, type OrderDepositVanished, type OrderUnwind, type QuoteBind, type QuoteBound, type QuoteCommand, type ReplyTo,
  type TimerDue,
} from '../../../src/protocol/index.js';
import type { Quote } from '../../../src/quotes/types.js';
import { quoteRequest } from '../../support/fixtures.js';

declare const bus: Bus;
declare const quote: Quote;

describe('Each command is mapped to its reply type', () => {
  it('quote commands', () => {
    expectTypeOf<ReplyTo<'quote', 'quote.request'>>().toEqualTypeOf<Quote>();
    expectTypeOf<ReplyTo<'quote', 'quote.get'>>().toEqualTypeOf<Quote>();
    expectTypeOf<ReplyTo<'quote', 'quote.bind'>>().toEqualTypeOf<QuoteBound>();
  });

  it('order commands, order.unwind included: every one answers the order', () => {
    expectTypeOf<CommandType<'order'>>().toEqualTypeOf<'order.create' | 'order.get' | 'deposit' | 'deposit.vanished' | 'order.unwind'>();
    expectTypeOf<ReplyTo<'order', 'order.create'>>().toEqualTypeOf<OrderView>();
    expectTypeOf<ReplyTo<'order', 'order.get'>>().toEqualTypeOf<OrderView>();
    expectTypeOf<ReplyTo<'order', 'deposit'>>().toEqualTypeOf<OrderView>();
    expectTypeOf<ReplyTo<'order', 'deposit.vanished'>>().toEqualTypeOf<OrderView>();
    expectTypeOf<ReplyTo<'order', 'order.unwind'>>().toEqualTypeOf<OrderView>();
    expectTypeOf<Command<'order', 'order.unwind'>>().toEqualTypeOf<OrderUnwind>();
    expectTypeOf<OrderUnwind>().toEqualTypeOf<{ type: 'order.unwind'; reason?: string }>();
  });

  it('the runtime\'s own wake-up is a typed message too', () => {
    expectTypeOf<TimerDue>().toEqualTypeOf<{ type: 'timer.due'; at: number }>();
  });
});

describe('bus.request: the reply follows from the kind and the command; the caller names no type', () => {
  it('answers the mapped reply for each command', () => {
    const ask = {
      quote: () => bus.request({ kind: 'quote', id: 'q' }, { type: 'quote.request', request: quoteRequest() }),
      bind: () => bus.request({ kind: 'quote', id: 'q' }, { type: 'quote.bind', orderId: 'o', toAddress: '0xA', refundAddress: null }),
      create: () => bus.request({ kind: 'order', id: 'o' }, { type: 'order.create', quote, toAddress: '0xA', refundAddress: null }),
      unwind: () => bus.request({ kind: 'order', id: 'o' }, { type: 'order.unwind', reason: 'operator' }),
    };
    expectTypeOf(ask.quote).returns.resolves.toEqualTypeOf<Quote>();
    expectTypeOf(ask.bind).returns.resolves.toEqualTypeOf<QuoteBound>();
    expectTypeOf(ask.create).returns.resolves.toEqualTypeOf<OrderView>();
    expectTypeOf(ask.unwind).returns.resolves.toEqualTypeOf<OrderView>();
  });

  it('refuses at compile time what the protocol does not have', () => {
    const refused = [
      // @ts-expect-error a quote command sent to an order
      () => bus.request({ kind: 'order', id: 'o' }, { type: 'quote.get' }),
      // @ts-expect-error a command no kind has
      () => bus.request({ kind: 'order', id: 'o' }, { type: 'order.cancel' }),
      // @ts-expect-error a field the command does not have
      () => bus.request({ kind: 'order', id: 'o' }, { type: 'order.get', n: 7 }),
      // @ts-expect-error a field the command needs is missing (refundAddress)
      () => bus.request({ kind: 'order', id: 'o' }, { type: 'order.create', quote, toAddress: '0xA' }),
      // @ts-expect-error a field of the wrong type (amounts are bigints)
      () => bus.request({ kind: 'order', id: 'o' }, { type: 'deposit', txId: 't', from: 'f', amount: 1, confirmations: 0, required: 1 }),
      // @ts-expect-error the caller no longer chooses the reply type
      () => bus.request<'order', 'order.get', OrderView>({ kind: 'order', id: 'o' }, { type: 'order.get' }),
    ];
    expect(refused).toHaveLength(6);
  });
});

describe('Actor kinds receive the typed command union, not an untyped message', () => {
  type QuoteSpec = ReturnType<typeof quoteKind>;
  type OrderSpec = ReturnType<typeof orderKind>;
  it('create, toEvent and notFound take the kind\'s commands', () => {
    expectTypeOf<Parameters<QuoteSpec['create']>[1]>().toEqualTypeOf<QuoteCommand>();
    expectTypeOf<Parameters<QuoteSpec['toEvent']>[0]>().toEqualTypeOf<QuoteCommand>();
    expectTypeOf<Parameters<OrderSpec['create']>[1]>().toEqualTypeOf<OrderCommand>();
    expectTypeOf<Parameters<OrderSpec['toEvent']>[0]>().toEqualTypeOf<OrderCommand>();
    expectTypeOf<Parameters<OrderSpec['notFound']>[1]>().toEqualTypeOf<OrderCommand>();
    expectTypeOf<OrderCommand>().toEqualTypeOf<OrderCreate | { type: 'order.get' } | OrderDeposit | OrderDepositVanished | OrderUnwind>();
  });

  it('each reply is typed by its own command', () => {
    expectTypeOf<Parameters<QuoteSpec['replies']['quote.bind']>[1]>().toEqualTypeOf<QuoteBind>();
    expectTypeOf<ReturnType<QuoteSpec['replies']['quote.bind']>>().extract<{ ok: true }>().toEqualTypeOf<{ ok: true; value: QuoteBound }>();
    expectTypeOf<ReturnType<OrderSpec['replies']['order.unwind']>>().extract<{ ok: true }>().toEqualTypeOf<{ ok: true; value: OrderView }>();
  });
});

describe('At run time the protocol lists the same commands the types have', () => {
  it('every kind and its command types', () => {
    expect(ACTOR_KINDS).toEqual(['quote', 'order']);
    expect(commandTypes('quote')).toEqual(['quote.request', 'quote.get', 'quote.bind', 'quote.order']);
    expect(commandTypes('order')).toEqual(['order.create', 'order.get', 'deposit', 'deposit.vanished', 'order.unwind']);
  });

  it('a command belongs to one kind only; the runtime\'s wake-up and inherited names belong to none', () => {
    expect(isCommandOf('order', { type: 'order.unwind' })).toBe(true);
    expect(isCommandOf('quote', { type: 'order.unwind' })).toBe(false);
    expect(isCommandOf('order', { type: 'quote.bind' })).toBe(false);
    expect(isCommandOf('order', { type: 'timer.due' })).toBe(false);
    expect(isCommandOf('order', { type: 'toString' })).toBe(false);
    expect(isCommandOf('order', { type: '__proto__' })).toBe(false);
  });

  it('the admin subject: one subject per endpoint, each with its answer type', () => {
    expect(ADMIN_ENDPOINTS).toEqual(['actor', 'actors', 'shards', 'counts', 'audit']);
    expect(Object.values(ADMIN_SUBJECTS)).toEqual(ADMIN_ENDPOINTS.map((e) => `router.admin.${e}`));
    expectTypeOf<AdminAnswer<'shards'>>().toEqualTypeOf<AdminShardsAnswer>();
    expectTypeOf<AdminAnswer<'counts'>>().toEqualTypeOf<AdminCountsAnswer>();
  });
});
