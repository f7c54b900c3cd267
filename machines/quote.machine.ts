// The quote fan-out as a statechart: pricing → quoted | refused. Pure: the fan-out (`priceRoutes`) is a named
// effect the runtime provides, and the quoting instant comes back with its output (no clock here).
import { assign, fromPromise, setup } from 'xstate';
import type { AssetId } from '../src/assets/types.js';
import type { QuoteAudit, RoutedBest } from '../src/routing/types.js';
import { QUOTE_VALIDITY_MS, type Quote, type QuoteRequest } from '../src/quotes/types.js';

export interface QuoteInput {
  id: string;
  request: QuoteRequest;
}

/** A quote's routing: the best route, the refund cost and the audit, which is null when the request asked for no
 *  candidates (nothing reads it then, so the router does not build it). */
export interface QuoteRouting extends RoutedBest {
  audit: QuoteAudit | null;
}

/** What the runtime's priceRoutes effect answers: the routing result, the instant it was priced, the USD prices of
 *  the route's assets and the venue rounds it took (more than one for an exact-output search). */
export interface PricedAt {
  result: QuoteRouting;
  at: number;
  usdPrices: Record<AssetId, bigint>;
  rounds: number;
}

export interface QuoteRefusal {
  reason: string;
  /** The audit, kept only when candidates were asked for. */
  audit: QuoteAudit | null;
}

/** The one order a quote is bound to (spec 4, POST /order: one quote binds one order). */
export interface QuoteBinding {
  orderId: string;
  toAddress: string;
  refundAddress: string | null;
  boundAt: number;
}

export interface QuoteContext {
  id: string;
  request: QuoteRequest;
  quote: Quote | null;
  refusal: QuoteRefusal | null;
  binding: QuoteBinding | null;
}

/** `at` is the host's clock when the command arrived; the machine never reads a clock. */
export type QuoteEvent = { type: 'quote.bind'; orderId: string; toAddress: string; refundAddress: string | null; at: number };

export const PRICE_ROUTES = 'priceRoutes';

export const quoteMachine = setup({
  types: {
    context: {} as QuoteContext,
    input: {} as QuoteInput,
    events: {} as QuoteEvent,
  },
  actors: {
    // Placeholder: the runtime provides the real fan-out with machine.provide().
    [PRICE_ROUTES]: fromPromise<PricedAt, QuoteRequest>(async () => {
      throw new Error('priceRoutes is provided by the runtime');
    }),
  },
  guards: {
    somethingQuoted: ({ event }) => (event as unknown as { output: PricedAt }).output.result.best !== null,
  },
}).createMachine({
  id: 'quote',
  context: ({ input }) => ({ id: input.id, request: input.request, quote: null, refusal: null, binding: null }),
  initial: 'pricing',
  states: {
    pricing: {
      invoke: {
        id: PRICE_ROUTES,
        src: PRICE_ROUTES,
        input: ({ context }): QuoteRequest => context.request,
        onDone: [
          {
            guard: 'somethingQuoted',
            target: 'quoted',
            actions: assign({
              quote: ({ context, event }) => ({
                id: context.id,
                request: context.request,
                route: event.output.result.best!,
                refundCost: event.output.result.refundCost,
                audit: context.request.includeCandidates ? event.output.result.audit : null,
                quotedAt: event.output.at,
                expiresAt: event.output.at + QUOTE_VALIDITY_MS,
                usdPrices: event.output.usdPrices,
                rounds: event.output.rounds,
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
    /** Priced and stored, waiting for an order. After expires_at a bind attempt expires it instead. */
    quoted: {
      on: {
        'quote.bind': [
          { guard: ({ context, event }) => event.at > context.quote!.expiresAt, target: 'expired' },
          {
            target: 'bound',
            actions: assign({
              binding: ({ event }) => ({
                orderId: event.orderId,
                toAddress: event.toAddress,
                refundAddress: event.refundAddress,
                boundAt: event.at,
              }),
            }),
          },
        ],
      },
    },
    /** Bound to exactly one order; later binds are answered from the binding (same addresses → same order, else 409). */
    bound: { type: 'final' },
    expired: { type: 'final' },
    refused: { type: 'final' },
  },
});

export type QuoteMachine = typeof quoteMachine;
