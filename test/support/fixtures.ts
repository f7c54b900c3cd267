// Hand-built core values for tests that must not depend on the simulated market.
import { findAsset } from '../../src/assets/registry.js';
import { ORDER_TERMS_A, type OrderView } from '../../src/orders/types.js';
import type { Quote, QuoteRequest } from '../../src/quotes/types.js';
import type { PricedRoute, QuoteAudit, RoutingResult } from '../../src/routing/types.js';

export const BASE_USDC = findAsset('base', 'USDC')!.id;
export const ARB_USDC = findAsset('arbitrum', 'USDC')!.id;

export function quoteRequest(over: Partial<QuoteRequest> = {}): QuoteRequest {
  return {
    from: BASE_USDC,
    to: ARB_USDC,
    amountIn: 1_000_000_000n,
    mode: 'optimal',
    allowlist: [],
    blocklist: [],
    format: 'formatted',
    returnFullRoute: true,
    includeCandidates: true,
    ...over,
  };
}

/** A one-step route whose amounts satisfy every invariant of spec 2.2–2.3. */
export function oneStepRoute(amountIn = 1_000_000_000n): PricedRoute {
  const cost = 20_000n;
  const venueOut = amountIn - cost - 100_000n;
  const deliveryCost = 5_000n;
  return {
    from: BASE_USDC,
    to: ARB_USDC,
    amountIn,
    steps: [
      {
        venue: 'cctp_fast',
        from: BASE_USDC,
        to: ARB_USDC,
        execution: { mode: 'evm_gas_desk', chain: 8453 },
        stepAmountIn: amountIn,
        venueAmountIn: amountIn - cost,
        venueAmountOut: venueOut,
        stepAmountOut: venueOut,
      },
    ],
    delivery: { amountIn: venueOut, executionCost: deliveryCost, amountOut: venueOut - deliveryCost },
    estimatedAmountOut: venueOut - deliveryCost,
  };
}

export function audit(route: PricedRoute | null): QuoteAudit {
  return {
    singleHop: [
      route
        ? {
            venue: 'cctp_fast',
            elapsedMs: 3,
            best: true,
            status: 'quoted',
            route,
            costing: {
              venue: 'cctp_fast',
              observedAmountIn: route.steps[0]!.venueAmountIn,
              observedAmountOut: route.steps[0]!.venueAmountOut,
            },
          }
        : { venue: 'cctp_fast', elapsedMs: 3, best: false, status: 'failed', error: 'insufficient liquidity' },
      { venue: 'across', elapsedMs: 1500, best: false, status: 'timed_out' },
    ],
    multiHop: { paths: 0, complete: true, hops: null, attempts: [], routes: [], setupError: 'No path of 2 to 3 hops.' },
  };
}

export function routingResult(quoted: boolean): RoutingResult {
  const route = quoted ? oneStepRoute() : null;
  return { best: route, refundCost: 2_000n, audit: audit(route) };
}

/** A quote of `oneStepRoute`, with its audit: every field of the protocol's Quote. */
export function quoteOf(over: Partial<Quote> = {}): Quote {
  const route = oneStepRoute();
  return {
    id: 'q-1', request: quoteRequest(), route, refundCost: 2_000n, audit: audit(route), quotedAt: 1_000, expiresAt: 601_000,
    usdPrices: { [BASE_USDC]: 100_000_000n, [ARB_USDC]: 100_000_000n }, rounds: 1, ...over,
  };
}

/** An order awaiting its deposit: every field of the protocol's OrderView. */
export function orderViewOf(over: Partial<OrderView> = {}): OrderView {
  return {
    id: 'o-1', quoteId: 'q-1', vaultId: 'v-1', format: 'formatted', from: BASE_USDC, to: ARB_USDC, fromAmount: 1_000_000_000n,
    depositAddress: '0x0000000000000000000000000000000000000001', toAddress: '0x0000000000000000000000000000000000000002', refundAddress: null,
    allowlist: [], blocklist: [], status: 'awaiting_deposit', depositDeadline: 3_601_000, createdAt: 1_000, amountOut: null, refunds: [], held: [],
    haltReason: null, terms: ORDER_TERMS_A, stage: 'awaiting_deposit', closeReason: null, refundPending: false, ...over,
  };
}
