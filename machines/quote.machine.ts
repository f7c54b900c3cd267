// The quote fan-out as a statechart: pricing → quoted | refused. Pure: the fan-out (`priceRoutes`) is a named
// effect the runtime provides, and the quoting instant comes back with its output (no clock here).
import { assign, fromPromise, setup } from 'xstate';
import type { QuoteAudit, RouteRequest, RoutingResult } from '../src/routing/types.js';
import { QUOTE_VALIDITY_MS, type Quote, type QuoteRequest } from '../src/quotes/types.js';

export interface QuoteInput {
  id: string;
  request: QuoteRequest;
}

/** What the runtime's priceRoutes effect answers: the routing result and the instant it was priced. */
export interface PricedAt {
  result: RoutingResult;
  at: number;
}

export interface QuoteRefusal {
  reason: string;
  /** The audit, kept only when candidates were asked for. */
  audit: QuoteAudit | null;
}

export interface QuoteContext {
  id: string;
  request: QuoteRequest;
  quote: Quote | null;
  refusal: QuoteRefusal | null;
}

export type QuoteEvent = { type: 'quote.noop' };

export const PRICE_ROUTES = 'priceRoutes';

export const quoteMachine = setup({
  types: {
    context: {} as QuoteContext,
    input: {} as QuoteInput,
    events: {} as QuoteEvent,
  },
  actors: {
    // Placeholder: the runtime provides the real fan-out with machine.provide().
    [PRICE_ROUTES]: fromPromise<PricedAt, RouteRequest>(async () => {
      throw new Error('priceRoutes is provided by the runtime');
    }),
  },
  guards: {
    somethingQuoted: ({ event }) => (event as unknown as { output: PricedAt }).output.result.best !== null,
  },
}).createMachine({
  id: 'quote',
  context: ({ input }) => ({ id: input.id, request: input.request, quote: null, refusal: null }),
  initial: 'pricing',
  states: {
    pricing: {
      invoke: {
        id: PRICE_ROUTES,
        src: PRICE_ROUTES,
        input: ({ context }): RouteRequest => {
          const { from, to, amountIn, mode, allowlist, blocklist } = context.request;
          return { from, to, amountIn, mode, allowlist, blocklist };
        },
        onDone: [
          {
            guard: 'somethingQuoted',
            target: 'quoted',
            actions: assign({
              quote: ({ context, event }) => ({
                id: context.id,
                request: context.request,
                route: event.output.result.best!,
                audit: context.request.includeCandidates ? event.output.result.audit : null,
                quotedAt: event.output.at,
                expiresAt: event.output.at + QUOTE_VALIDITY_MS,
              }),
            }),
          },
          {
            target: 'refused',
            actions: assign({
              refusal: ({ context, event }) => ({
                reason: 'No venue could quote the pair and amount.',
                audit: context.request.includeCandidates ? event.output.result.audit : null,
              }),
            }),
          },
        ],
        onError: {
          target: 'refused',
          actions: assign({
            refusal: () => ({ reason: 'Pricing failed before any venue could quote.', audit: null }),
          }),
        },
      },
    },
    /** Priced and stored; the order issue adds binding to one order here. */
    quoted: {},
    refused: { type: 'final' },
  },
});

export type QuoteMachine = typeof quoteMachine;
