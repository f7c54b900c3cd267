// Hosting of quote.machine: `quote.request` creates the actor and answers once pricing has ended;
// `quote.get` reads a stored quote and `quote.bind` binds it to one order (order creation uses both).
import { fromPromise } from 'xstate';
import { PRICE_ROUTES, quoteMachine, type PricedAt } from '../../machines/quote.machine.js';
import type { Failure } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { QuoteAlreadyBound, QuoteExpired, QuoteNotFound, QuoteRefused, toErrorData } from '../../src/errors.js';
import type { QuoteProtocol } from '../../src/protocol/index.js';
import type { RouteRequest, RoutingResult } from '../../src/routing/types.js';
import type { ActorKindSpec } from '../kind.js';

export interface QuoteKindDeps {
  router: { route(req: RouteRequest): Promise<RoutingResult> };
  clock: Clock;
}

const fail = (err: Error): Failure => ({ ok: false, error: toErrorData(err) });
// A refused quote was never issued: for order creation it is as unknown as one that never existed.
const notFound = (id: string): Failure => fail(new QuoteNotFound(`Quote ${id} does not exist.`));

export function quoteKind(deps: QuoteKindDeps): ActorKindSpec<QuoteProtocol, typeof quoteMachine> {
  const logic = quoteMachine.provide({
    actors: {
      [PRICE_ROUTES]: fromPromise<PricedAt, RouteRequest>(async ({ input }) => {
        const result = await deps.router.route(input);
        return { result, at: deps.clock.now() };
      }),
    },
  });
  return {
    kind: 'quote',
    logic,
    create: (id, command) => (command.type === 'quote.request' ? { id, request: command.request } : null),
    toEvent: (command, now) => {
      if (command.type !== 'quote.bind') return null;
      const { orderId, toAddress, refundAddress } = command;
      return { type: 'quote.bind', orderId, toAddress, refundAddress, at: now };
    },
    notFound: (id) => notFound(id),
    settled: (s) => !s.matches('pricing'),
    replies: {
      'quote.request': (s) => {
        const ctx = s.context;
        if (ctx.quote) return { ok: true, value: ctx.quote };
        const refusal = ctx.refusal ?? { reason: 'No venue could quote the pair and amount.', audit: null };
        return fail(new QuoteRefused(refusal.reason, { audit: refusal.audit }));
      },
      'quote.get': (s) => (s.context.quote ? { ok: true, value: s.context.quote } : notFound(s.context.id)),
      'quote.bind': (s, command) => {
        const ctx = s.context;
        if (!ctx.quote) return notFound(ctx.id);
        if (s.matches('expired')) {
          return fail(new QuoteExpired(`Quote ${ctx.id} expired at ${new Date(ctx.quote.expiresAt).toISOString()}.`));
        }
        const b = ctx.binding!;
        if (b.toAddress !== command.toAddress || b.refundAddress !== command.refundAddress) {
          return fail(new QuoteAlreadyBound(`Quote ${ctx.id} is already bound to another order with other addresses.`));
        }
        return { ok: true, value: { orderId: b.orderId } };
      },
    },
    wakeUp: () => null,
    status: (s) => String(s.value),
  };
}
