// includeQuoteCandidates' multi-hop records: a route's latency_ms is the sum of its own hops' attempts. Routes share
// venues: hop k of a route is the attempt asked what its hop k-1 delivered, not any attempt of the same venue and pair.
import { describe, expect, it } from 'vitest';
import { renderCandidates } from '../../../http/family-b/render.js';
import type { QuoteAudit } from '../../../src/routing/types.js';
import { BASE_CBBTC, BASE_USDC, BTC, pricedRoute, step } from '../family-a/support.js';

describe('includeQuoteCandidates: a multi-hop route\'s latency_ms', () => {
  it('sums the attempts its own amounts went through when two routes ask one venue the same pair', () => {
    const viaKyber = step('kyberswap', BASE_USDC, BASE_CBBTC, 1_000_000n);
    const viaOkx = { ...step('okx', BASE_USDC, BASE_CBBTC, 1_000_000n), stepAmountOut: viaKyber.stepAmountOut - 7n };
    const last = (amountIn: bigint) => step('chainflip', BASE_CBBTC, BTC, amountIn);
    const audit: QuoteAudit = {
      singleHop: [],
      multiHop: {
        paths: 2,
        complete: true,
        hops: 2,
        attempts: [
          { round: 0, from: BASE_USDC, to: BASE_CBBTC, amountIn: 1_000_000n, venue: 'kyberswap', elapsedMs: 8, status: 'quoted', step: viaKyber },
          { round: 0, from: BASE_USDC, to: BASE_CBBTC, amountIn: 1_000_000n, venue: 'okx', elapsedMs: 9, status: 'quoted', step: viaOkx },
          { round: 1, from: BASE_CBBTC, to: BTC, amountIn: viaKyber.stepAmountOut, venue: 'chainflip', elapsedMs: 30, status: 'quoted', step: last(viaKyber.stepAmountOut) },
          { round: 1, from: BASE_CBBTC, to: BTC, amountIn: viaOkx.stepAmountOut, venue: 'chainflip', elapsedMs: 1500, status: 'timed_out' },
        ],
        routes: [
          { assets: [BASE_USDC, BASE_CBBTC, BTC], venues: ['kyberswap', 'chainflip'], best: true, status: 'quoted', route: pricedRoute(1_000_000n, [BASE_USDC, BASE_CBBTC, BTC], ['kyberswap', 'chainflip']) },
          { assets: [BASE_USDC, BASE_CBBTC, BTC], venues: ['okx', 'chainflip'], best: false, status: 'failed', error: 'a hop timed out' },
        ],
        setupError: null,
      },
    };
    expect(renderCandidates(audit, 'raw').map((c) => [c.venues.join('+'), c.latency_ms])).toEqual([
      ['kyberswap+chainflip', 38],
      ['okx+chainflip', 1509],
    ]);
  });
});
