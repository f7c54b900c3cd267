// Hand-built core values for tests that must not depend on the simulated market.
import { findAsset } from '../../src/assets/registry.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
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
