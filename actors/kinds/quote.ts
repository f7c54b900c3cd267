// Hosting of quote.machine: `quote.request` creates the actor and answers once pricing has ended;
// `quote.get` reads a stored quote and `quote.bind` binds it to one order (order creation uses both).
import { fromPromise } from 'xstate';
import {
  PRICE_ROUTES, quoteMachine, type PricedAt, type QuoteBinding, type QuoteContext, type QuoteRefusal, type QuoteRouting,
} from '../../machines/quote.machine.js';
import { describeWrongAt, isNumber, isString, nullable, shapeOf } from '../../src/checks.js';
import type { Failure } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { QuoteAlreadyBound, QuoteExpired, QuoteNotFound, QuoteRefused, toErrorData } from '../../src/errors.js';
import { isQuote, isQuoteAudit, isQuoteRequest, type QuoteProtocol } from '../../src/protocol/index.js';
import { assetById, assetsOn } from '../../src/assets/index.js';
import type { AssetId } from '../../src/assets/types.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import type { ExactOutputRequest, ExactOutputResult, PricedRoute, RoutedBest, RouteRequest, RoutingResult } from '../../src/routing/types.js';
import type { Market } from '../../src/venues/types.js';
import type { ActorKindSpec } from '../kind.js';

export interface QuoteKindDeps {
  router: {
    route(req: RouteRequest): Promise<RoutingResult>;
    routeBest(req: RouteRequest): Promise<RoutedBest>;
    exactOutput(req: ExactOutputRequest): Promise<ExactOutputResult>;
  };
  /** The market's USD reference prices, stored with each quote for fee breakdowns. */
  prices: Pick<Market, 'usdPrice'>;
  clock: Clock;
}

/** Exact output when the request says so, else exact input; the audit only when the request asked for candidates. */
async function price(router: QuoteKindDeps['router'], r: QuoteRequest): Promise<{ result: QuoteRouting; rounds: number }> {
  const { from, to, mode, allowlist, blocklist } = r;
  if (r.exactOut !== undefined) {
    const result = await router.exactOutput({ from, to, amountOut: r.exactOut, mode, allowlist, blocklist });
    return { result, rounds: result.rounds };
  }
  const req: RouteRequest = { from, to, amountIn: r.amountIn, mode, allowlist, blocklist };
  if (r.includeCandidates) return { result: await router.route(req), rounds: 1 };
  const { best, refundCost } = await router.routeBest(req);
  return { result: { best, refundCost, audit: null }, rounds: 1 };
}

/** USD prices of the pair, of every asset a step of the best route starts from (the assets costs are paid in), and
 *  of the native coin of each EVM chain a step starts on (the gas desk's charge converts from it, and the money
 *  audit converts that charge back with the same prices). */
function usdPricesOf(prices: QuoteKindDeps['prices'], r: QuoteRequest, best: PricedRoute | null): Record<AssetId, bigint> {
  const steps = best?.steps ?? [];
  const gasCoins = steps.flatMap((s) =>
    s.execution.mode === 'evm_gas_desk' ? assetsOn(assetById(s.from).chain).filter((a) => a.native).map((a) => a.id) : [],
  );
  const ids = new Set<AssetId>([r.from, r.to, ...steps.flatMap((s) => [s.from, s.to]), ...gasCoins]);
  return Object.fromEntries([...ids].map((id) => [id, prices.usdPrice(assetById(id))]));
}

/** A quote answers once and is asked again at most to be bound by an order, usually seconds later. Kept in memory for
 *  the runtime's whole idle time, a busy edge's quotes (a thousand a second) would grow the heap and every garbage
 *  collection; an order made later restores the quote from its snapshot. */
export const QUOTE_IDLE_MS = 2_000;

/** A quote's context as stored: every field the kind and its machine read, the quote whole but for its audit. */
const isStoredQuoteContext = shapeOf<QuoteContext>({
  id: isString,
  request: isQuoteRequest,
  quote: nullable(isQuote),
  refusal: nullable(shapeOf<QuoteRefusal>({ reason: isString, audit: nullable(isQuoteAudit) })),
  binding: nullable(shapeOf<QuoteBinding>({ orderId: isString, toAddress: isString, refundAddress: nullable(isString), boundAt: isNumber })),
});

const fail = (err: Error): Failure => ({ ok: false, error: toErrorData(err) });
// A refused quote was never issued: for order creation it is as unknown as one that never existed.
const notFound = (id: string): Failure => fail(new QuoteNotFound(`Quote ${id} does not exist.`));

export function quoteKind(deps: QuoteKindDeps): ActorKindSpec<QuoteProtocol, typeof quoteMachine> {
  const logic = quoteMachine.provide({
    actors: {
      [PRICE_ROUTES]: fromPromise<PricedAt, QuoteRequest>(async ({ input }) => {
        const { result, rounds } = await price(deps.router, input);
        return { result, at: deps.clock.now(), usdPrices: usdPricesOf(deps.prices, input, result.best), rounds };
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
    transient: (s) => s.matches('pricing'), // a crash while pricing loses a quote nobody was given
    // The candidates (up to ~65 KB) are rendered once, in the answer to quote.request, from the actor in memory; nothing
    // reads them later, so the store keeps the quote without them.
    storedContext: ({ context: c }) => ({
      ...c,
      quote: c.quote && { ...c.quote, audit: null },
      refusal: c.refusal && { ...c.refusal, audit: null },
    }),
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
    contextProblem: (context) => (isStoredQuoteContext(context) ? null : `its context is not a quote's: it fails at ${describeWrongAt(isStoredQuoteContext, context)}`),
    idleMs: QUOTE_IDLE_MS,
  };
}
