// Hosting of quote.machine: `quote.request` creates the actor and answers once pricing has ended;
// `quote.get` reads a stored quote (order creation uses it).
import { fromPromise, type AnyMachineSnapshot } from 'xstate';
import { PRICE_ROUTES, quoteMachine, type PricedAt, type QuoteContext } from '../../machines/quote.machine.js';
import type { ActorMessage, Reply } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { QuoteNotFound, QuoteRefused, toErrorData } from '../../src/errors.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import type { RouteRequest, RoutingResult } from '../../src/routing/types.js';
import type { ActorKindSpec } from '../kind.js';

export interface QuoteKindDeps {
  router: { route(req: RouteRequest): Promise<RoutingResult> };
  clock: Clock;
}

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
    toEvent: () => null,
    notFound: (id) => ({ ok: false, error: toErrorData(new QuoteNotFound(`Quote ${id} does not exist.`)) }),
    settled: (s: AnyMachineSnapshot) => !s.matches('pricing'),
    reply(s: AnyMachineSnapshot): Reply {
      const ctx = s.context as QuoteContext;
      if (ctx.quote) return { ok: true, value: ctx.quote };
      const refusal = ctx.refusal ?? { reason: 'No venue could quote the pair and amount.', audit: null };
      return { ok: false, error: toErrorData(new QuoteRefused(refusal.reason, { audit: refusal.audit })) };
    },
    wakeUp: () => null,
  };
}
