// Hosting of quote.machine: `quote.request` creates the actor and answers once pricing has ended;
// `quote.get` reads a stored quote (order creation uses it).
import { fromPromise, type AnyMachineSnapshot } from 'xstate';
import { PRICE_ROUTES, quoteMachine, type PricedAt, type QuoteContext } from '../../machines/quote.machine.js';
import type { ActorMessage, Reply } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { QuoteAlreadyBound, QuoteExpired, QuoteNotFound, QuoteRefused, toErrorData } from '../../src/errors.js';
import type { QuoteBindMessage } from '../../src/orders/types.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import type { RouteRequest, RoutingResult } from '../../src/routing/types.js';
import type { ActorKindSpec } from '../kind.js';

export interface QuoteKindDeps {
  router: { route(req: RouteRequest): Promise<RoutingResult> };
  clock: Clock;
}

const fail = (err: Error): Reply => ({ ok: false, error: toErrorData(err) });
// A refused quote was never issued: for order creation it is as unknown as one that never existed.
const notFound = (id: string): Reply => fail(new QuoteNotFound(`Quote ${id} does not exist.`));

export function quoteKind(deps: QuoteKindDeps): ActorKindSpec {
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
    create: (id, message: ActorMessage) =>
      message.type === 'quote.request' ? { id, request: message.request as QuoteRequest } : null,
    toEvent: (message, now) => {
      if (message.type !== 'quote.bind') return null;
      const m = message as QuoteBindMessage;
      return { type: 'quote.bind', orderId: m.orderId, toAddress: m.toAddress, refundAddress: m.refundAddress, at: now };
    },
    notFound: (id) => notFound(id),
    settled: (s: AnyMachineSnapshot) => !s.matches('pricing'),
    reply(s: AnyMachineSnapshot, message: ActorMessage): Reply {
      const ctx = s.context as QuoteContext;
      if (message.type === 'quote.bind') {
        if (!ctx.quote) return notFound(ctx.id);
        if (s.matches('expired')) {
          return fail(new QuoteExpired(`Quote ${ctx.id} expired at ${new Date(ctx.quote.expiresAt).toISOString()}.`));
        }
        const b = ctx.binding!;
        const m = message as QuoteBindMessage;
        if (b.toAddress !== m.toAddress || b.refundAddress !== m.refundAddress) {
          return fail(new QuoteAlreadyBound(`Quote ${ctx.id} is already bound to another order with other addresses.`));
        }
        return { ok: true, value: { orderId: b.orderId } };
      }
      if (message.type === 'quote.get') return ctx.quote ? { ok: true, value: ctx.quote } : notFound(ctx.id);
      if (ctx.quote) return { ok: true, value: ctx.quote };
      const refusal = ctx.refusal ?? { reason: 'No venue could quote the pair and amount.', audit: null };
      return { ok: false, error: toErrorData(new QuoteRefused(refusal.reason, { audit: refusal.audit })) };
    },
    wakeUp: () => null,
    status: (s: AnyMachineSnapshot) => String(s.value),
  };
}
