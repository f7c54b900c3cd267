// Core → Family C wire: the Quote (both modes) and the order list item. Amounts are base-unit decimal strings,
// currencies typed (currency.ts), instants ISO 8601.
import { assetById } from '../../src/assets/index.js';
import { lessBps, plusBps } from '../../src/orders/bps.js';
import type { Quote } from '../../src/quotes/types.js';
import type { OrderListRow } from '../../src/store/types.js';
import { renderCurrency } from './currency.js';
import { renderFees } from './fees.js';
import type { WireCQuote, WireOrderListItem } from './wire.js';

export function renderCQuote(quote: Quote): WireCQuote {
  const route = quote.route;
  const bps = quote.request.slippageBps ?? 0;
  const from = renderCurrency(assetById(route.from));
  const to = renderCurrency(assetById(route.to));
  const head = { id: quote.id, fees: renderFees(quote), expiresAt: iso(quote.expiresAt) };
  const exactOut = quote.request.exactOut;
  if (exactOut !== undefined) {
    return {
      mode: 'exact_output',
      ...head,
      from: { currency: from, expected: route.amountIn.toString(), maximum: plusBps(route.amountIn, bps).toString() },
      to: { currency: to, expected: exactOut.toString() },
    };
  }
  return {
    mode: 'exact_input',
    ...head,
    from: { currency: from, expected: route.amountIn.toString() },
    to: { currency: to, expected: route.estimatedAmountOut.toString(), minimum: lessBps(route.estimatedAmountOut, bps).toString() },
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
const text = (n: bigint | null): string | null => (n === null ? null : n.toString());

/** A core value as JSON: bigints become decimal strings, everything else stays as it is. */
export function plainJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(plainJson);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainJson(v)]));
  return value;
}

/** One item of GET /orders, from the order index alone (no actor is loaded). */
export function renderListItem(row: OrderListRow): WireOrderListItem {
  const s = row.summary;
  const venues = s.route.steps.map((step) => step.venue);
  return {
    orderId: row.id,
    routeType: venues.length === 1 ? 'direct' : 'multi_hop',
    orderType: row.orderType,
    provider: venues[0] ?? '',
    path: venues,
    status: row.listStatus,
    senderAddress: s.sender,
    destinationAddress: row.destination,
    refundAddress: row.refund,
    otcSwapId: null,
    swapperSwapId: null,
    cowOrderUid: null,
    sellCurrency: renderCurrency(assetById(s.from)),
    buyCurrency: renderCurrency(assetById(s.to)),
    quoteMode: s.quoteMode,
    quotedSellAmount: s.quotedIn.toString(),
    quotedBuyAmount: s.quotedOut.toString(),
    quotedMinimumBuyAmount: text(s.minOut),
    quotedMaximumSellAmount: text(s.maxIn),
    executedSellAmount: text(s.executedIn),
    executedBuyAmount: text(s.executedOut),
    executedFeeAmount: text(s.executedFees),
    depositTxHash: s.depositTxId,
    payoutTxHash: s.payoutTxId,
    refundTxHash: s.refundTxId,
    rawRouterJson: plainJson(s.route),
    rawExternalDEXOrderJson: null,
    rawOtcJson: null,
    rawSwapperJson: null,
    externalDexStatus: null,
    teeOtcStatus: null,
    teeSwapperStatus: null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    lastSourceUpdateAt: isoOrNull(s.lastSourceUpdateAt),
    terminalAt: isoOrNull(s.terminalAt),
  };
}
