// Valid order summaries and indexes for the store tests: every bigint field beyond 2^64 where it can be, so a codec
// that loses precision (a JSON number, a BSON int64) shows up, and every nullable field both ways.
import type { OrderSummary } from '../../../src/orders/summary.js';
import type { OrderIndex } from '../../../src/store/types.js';

const USDC_BASE = 'evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const BTC = 'bitcoin.btc';
const ETH_BASE = 'evm:8453.native';

/** A summary of an order from USDC on Base to BTC over two steps, quoted and not yet executed. */
export function orderSummary(overrides: Partial<OrderSummary> = {}): OrderSummary {
  const amountIn = 123_456_789_012_345_678_901_234_567_890n;
  return {
    quoteId: '6f9619ff-8b86-4011-b42d-00c04fc964ff',
    from: USDC_BASE,
    to: BTC,
    route: {
      from: USDC_BASE,
      to: BTC,
      amountIn,
      steps: [
        {
          venue: 'kyberswap',
          from: USDC_BASE,
          to: ETH_BASE,
          execution: { mode: 'evm', chain: 8453 },
          stepAmountIn: amountIn,
          venueAmountIn: amountIn - 1_000n,
          venueAmountOut: 98_765_432_109_876_543_210_987n,
          stepAmountOut: 98_765_432_109_876_543_210_000n,
        },
        {
          venue: 'chainflip',
          from: ETH_BASE,
          to: BTC,
          execution: { mode: 'bitcoin' },
          stepAmountIn: 98_765_432_109_876_543_210_000n,
          venueAmountIn: 98_765_432_109_876_543_200_000n,
          venueAmountOut: 18_446_744_073_709_551_617n,
          stepAmountOut: 18_446_744_073_709_551_616n,
        },
      ],
      delivery: { amountIn: 18_446_744_073_709_551_616n, executionCost: 1n, amountOut: 18_446_744_073_709_551_615n },
      estimatedAmountOut: 18_446_744_073_709_551_615n,
    },
    quoteMode: 'exact_input',
    quotedIn: amountIn,
    quotedOut: 18_446_744_073_709_551_615n,
    minOut: 18_000_000_000_000_000_000n,
    maxIn: null,
    executedIn: null,
    executedOut: null,
    executedFees: null,
    depositTxId: null,
    payoutTxId: null,
    refundTxId: null,
    sender: null,
    integrator: null,
    lastSourceUpdateAt: null,
    terminalAt: null,
    ...overrides,
  };
}

/** A settled order's summary: every nullable field set, the executed amounts above 2^64, fees exactly 0. */
export function settledSummary(): OrderSummary {
  return orderSummary({
    quoteMode: 'exact_output',
    maxIn: 200_000_000_000_000_000_000_000_000_000n,
    minOut: null,
    executedIn: 123_456_789_012_345_678_901_234_567_000n,
    executedOut: 18_446_744_073_709_551_999n,
    executedFees: 0n,
    depositTxId: '0xdeposit',
    payoutTxId: 'btc-payout-tx',
    refundTxId: '0xrefund',
    sender: '0xsender',
    integrator: 'acme',
    lastSourceUpdateAt: 1_700_000_000_123,
    terminalAt: 1_700_000_000_456,
  });
}

/** A valid order index created at `createdAt`: destination 0xdest, no sender or refund, unfilled, a quoted summary. */
export function orderIndex(o: Partial<OrderIndex> & { createdAt: number }): OrderIndex {
  return {
    sender: null,
    destination: '0xdest',
    refund: null,
    orderType: 'market',
    listStatus: 'unfilled',
    summary: orderSummary(),
    ...o,
  };
}
