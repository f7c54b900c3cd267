// Core → Family B wire: canonical ids become asset names and bigint base units become strings per `amountFormat`
// (`readable` = the core's `formatted`). Legs, fees, candidates, the two quote shapes and the two order shapes.
import { bpsAsDecimal } from '../../src/orders/bps.js';
import { assetById, writeAmount, writeAsset } from '../../src/assets/index.js';
import type { AmountFormat, AssetId } from '../../src/assets/types.js';
import type { OrderView } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import type { MultiHopRoute, PricedRoute, QuoteAudit } from '../../src/routing/types.js';
import { bStatusOf } from './statuses.js';
import { expectedSwapTimeMs } from './swap-time.js';
import type { BAmountFormat, BOrderType, WireBOrder, WireBQuote, WireCandidate, WireFee, WireLeg } from './wire.js';

export function coreFormat(f: BAmountFormat): AmountFormat {
  return f === 'raw' ? 'raw' : 'formatted';
}

interface Writer {
  asset(id: AssetId): string;
  amount(amount: bigint, in_: AssetId): string;
}

function writer(format: BAmountFormat): Writer {
  const f = coreFormat(format);
  return { asset: (id) => writeAsset(assetById(id), f), amount: (a, in_) => writeAmount(a, assetById(in_), f) };
}

/**
 * The route as legs. `inputRetained` is the step's execution cost, kept out of its input (stepAmountIn − venueAmountIn);
 * `outputRetained` is 0 except on the last leg, which carries the delivery cost, so its `amountOut` is what arrives
 * (= estimatedOut) and every leg's amountOut is the next leg's amountIn.
 */
export function renderLegs(route: PricedRoute, format: BAmountFormat): WireLeg[] {
  const w = writer(format);
  return route.steps.map((s, i) => {
    const last = i === route.steps.length - 1;
    const outputRetained = last ? route.delivery.executionCost : 0n;
    return {
      venue: s.venue,
      from: w.asset(s.from),
      to: w.asset(s.to),
      amountIn: w.amount(s.stepAmountIn, s.from),
      providerAmountIn: w.amount(s.venueAmountIn, s.from),
      providerAmountOut: w.amount(s.venueAmountOut, s.to),
      amountOut: w.amount(s.stepAmountOut - outputRetained, s.to),
      paymasterReimbursement: {
        inputRetained: w.amount(s.stepAmountIn - s.venueAmountIn, s.from),
        outputRetained: w.amount(outputRetained, s.to),
      },
    };
  });
}

/** One fee per cost the route pays: each step's execution cost (in its `from`), then the delivery cost (in `to`). */
export function renderFees(route: PricedRoute, format: BAmountFormat): WireFee[] {
  const w = writer(format);
  const raw = writer('raw');
  const fees: WireFee[] = route.steps.map((s, i) => {
    const cost = s.stepAmountIn - s.venueAmountIn;
    const gasDesk = s.execution.mode === 'evm_gas_desk';
    return {
      kind: gasDesk ? 'gas_desk' : 'network',
      label: `${gasDesk ? 'Gas advanced by the router (repaid in the asset)' : 'Network fee'} of step ${i + 1} (${s.venue})`,
      asset: w.asset(s.from),
      amount: w.amount(cost, s.from),
      amountRaw: raw.amount(cost, s.from),
    };
  });
  fees.push({
    kind: 'delivery',
    label: 'Transfer of the output to toAddress',
    asset: w.asset(route.to),
    amount: w.amount(route.delivery.executionCost, route.to),
    amountRaw: raw.amount(route.delivery.executionCost, route.to),
  });
  return fees;
}

const wholeMs = (ms: number): number => (Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0);

/** Single-hop entries and multi-hop routes of the audit; a route's latency is the sum of its hops' attempts. */
export function renderCandidates(audit: QuoteAudit, format: BAmountFormat): WireCandidate[] {
  const single: WireCandidate[] = audit.singleHop.map((c) => {
    const rec: WireCandidate = { family: 'single_hop', status: c.status, venues: [c.venue], latency_ms: wholeMs(c.elapsedMs) };
    if (c.status === 'quoted' && c.route) rec.raw_quote = renderLegs(c.route, format);
    return rec;
  });
  const multi: WireCandidate[] = audit.multiHop.routes.map((r) => {
    const rec: WireCandidate = { family: 'multi_hop', status: r.status, venues: [...r.venues], latency_ms: routeLatency(audit, r) };
    if (r.status === 'quoted' && r.route) rec.raw_quote = renderLegs(r.route, format);
    return rec;
  });
  return [...single, ...multi];
}

/** Hop k of a route is the attempt of its venue and pair asked what hop k-1 delivered: two routes may ask one venue
 *  the same pair with different amounts, each its own attempt. A hop that delivered nothing ends the route. */
function routeLatency(audit: QuoteAudit, r: MultiHopRoute): number {
  let sum = 0;
  let amount: bigint | undefined;
  for (let round = 0; round < r.venues.length; round++) {
    const a = audit.multiHop.attempts.find(
      (x) =>
        x.round === round && x.venue === r.venues[round] && x.from === r.assets[round] && x.to === r.assets[round + 1] &&
        (amount === undefined || x.amountIn === amount),
    );
    if (!a) break;
    sum += a.elapsedMs;
    if (!a.step) break;
    amount = a.step.stepAmountOut;
  }
  return wholeMs(sum);
}

export interface QuoteRenderOptions {
  orderType: BOrderType;
  amountFormat: BAmountFormat;
  returnFullRoute: boolean;
  includeCandidates: boolean;
}

export function renderBQuote(quote: Quote, o: QuoteRenderOptions): WireBQuote {
  const w = writer(o.amountFormat);
  const route = quote.route;
  const head = {
    quoteId: quote.id,
    from: w.asset(route.from),
    to: w.asset(route.to),
    expiry: new Date(quote.expiresAt).toISOString(),
    estimatedOut: w.amount(route.estimatedAmountOut, route.to),
    amountFormat: o.amountFormat,
  };
  let wire: WireBQuote;
  // `orderType` written second, as spec 2.6 lists the fields.
  const { quoteId, ...rest } = head;
  if (o.orderType === 'market') {
    wire = { quoteId, orderType: 'market', ...rest, venues: route.steps.map((s) => s.venue), fees: renderFees(route, o.amountFormat) };
  } else {
    wire = { quoteId, orderType: 'market_order', ...rest, expectedSwapTimeMs: expectedSwapTimeMs(route) };
    if (o.returnFullRoute) wire.route = renderLegs(route, o.amountFormat);
  }
  if (o.includeCandidates) wire.quoteCandidates = quote.audit ? renderCandidates(quote.audit, o.amountFormat) : [];
  return wire;
}

export interface OrderRenderOptions {
  amountFormat: BAmountFormat;
  orderType: BOrderType;
  /** Only creation answers (first and replayed) carry the token. */
  refundToken?: string;
}

/** An order with the quote it was made from (its route and estimate are the quote's). */
export function renderBOrder(order: OrderView, quote: Quote, o: OrderRenderOptions): WireBOrder {
  const w = writer(o.amountFormat);
  const auth = order.terms.refundAuthorization;
  const head = {
    orderId: order.id,
    orderAddress: order.depositAddress,
    amountToSend: w.amount(order.fromAmount, order.from),
    quoteId: order.quoteId,
    from: w.asset(order.from),
    to: w.asset(order.to),
    status: bStatusOf(order),
    expiry: new Date(order.depositDeadline).toISOString(),
    amountFormat: o.amountFormat,
    refundMode: auth?.mode ?? null,
    refundAuthorizer: auth?.mode === 'evmSignature' ? auth.authorizer : null,
    fromAddress: order.terms.fromAddress,
    toAddress: order.toAddress,
    refundAddress: order.refundAddress,
    cancelAfter: order.terms.cancelAfter === null ? null : new Date(order.terms.cancelAfter).toISOString(),
    createdAt: new Date(order.createdAt).toISOString(),
    statusReason: statusReason(order),
    ...(o.refundToken === undefined ? {} : { refundToken: o.refundToken }),
    ...(order.amountOut === null ? {} : { amountOut: w.amount(order.amountOut, order.to) }),
  };
  const estimated = quote.route.estimatedAmountOut;
  // An order made through another family has no slippage guard (its terms carry no minOut): it is written as what
  // it is, any slippage and no minimum, rather than as a guard at the estimate that nothing enforces.
  const guard = order.terms.minOut;
  const maxSlippage = guard === null ? '1' : bpsAsDecimal(order.terms.maxSlippageBps ?? 0);
  const minOut = w.amount(guard ?? 0n, order.to);
  if (o.orderType === 'market') {
    return {
      ...head,
      orderType: 'market',
      expectedOut: w.amount(estimated, order.to),
      maxSlippage,
      minOut,
      maxIn: w.amount(order.fromAmount, order.from),
      expectedSlippage: '0',
    };
  }
  return {
    ...head,
    orderType: 'market_order',
    estimatedOut: w.amount(estimated, order.to),
    route: renderLegs(quote.route, o.amountFormat),
    expectedSwapTimeMs: expectedSwapTimeMs(quote.route),
    maxSlippage,
    minOut,
  };
}

const CLOSED_BECAUSE = {
  underfunded: 'The deposit deadline passed before the full amount arrived; what arrived is refunded.',
  cancelled: 'The order was cancelled; what arrived is refunded.',
  unwind: 'Execution stopped and the order was unwound; its funds are refunded in the source asset.',
  slippage: 'The route re-priced below minOut; the order is refunded instead of delivering less.',
} as const;

/** Why the order is where it is, when that is not the plain path: a halt (failed), a close (refunds), the guard. */
function statusReason(order: OrderView): string | null {
  if (order.closeReason === null) return order.haltReason;
  // The guard's own halt names the venue and the figures; any other close says what happens to the money now.
  if (order.closeReason === 'slippage' && order.haltReason !== null) return order.haltReason;
  return CLOSED_BECAUSE[order.closeReason];
}
