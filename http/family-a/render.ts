// Core → Family A wire: canonical ids become asset names and bigint base units become strings, both per the
// request's (for an order: its quote's) `format`. Every amount is written in the asset it is counted in, which this file is the one place to know.
import { assetById, writeAmount, writeAsset } from '../../src/assets/index.js';
import type { AmountFormat, AssetId } from '../../src/assets/types.js';
import type { OrderView } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import type { MultiHopAttempt, MultiHopRoute, PricedRoute, QuoteAudit, RouteStep, SingleHopCandidate } from '../../src/routing/types.js';
import type { VenueId } from '../../src/venues/types.js';
import type {
  WireMultiHopAttempt, WireMultiHopRoute, WireOrder, WireQuote, WireQuoteAudit, WireQuoteRefusal, WireRouteStep, WireSingleHopCandidate,
} from './wire.js';

/** What every Quote shape of one answer shares: the top-level quote and the candidates nested in its audit. */
export interface RenderContext {
  format: AmountFormat;
  /** The pair asked for; single-hop candidates price exactly this pair. */
  from: AssetId;
  to: AssetId;
  /** Quote id and expiry (ISO 8601, written once per answer) carried by the quote and by every candidate in its
   *  audit (see README, API notes). */
  id: string;
  expiresAt: string;
  allowlist: VenueId[];
  blocklist: VenueId[];
  returnFullRoute: boolean;
}

export function renderQuote(quote: Quote): WireQuote {
  const ctx: RenderContext = {
    format: quote.request.format,
    from: quote.request.from,
    to: quote.request.to,
    id: quote.id,
    expiresAt: new Date(quote.expiresAt).toISOString(),
    allowlist: quote.request.allowlist,
    blocklist: quote.request.blocklist,
    returnFullRoute: quote.request.returnFullRoute,
  };
  const wire = renderPricedRoute(quote.route, ctx);
  // Absent unless asked; null only if the core kept no audit although it was asked (the schema allows it).
  if (quote.request.includeCandidates) wire.quote_candidates = quote.audit ? renderAudit(quote.audit, ctx) : null;
  return wire;
}

/**
 * An order (spec 2.5) per its `format`. `amount_out` is absent (not null) until the core has set it, which it does
 * once the output is delivered; `refund_address` is always written, null while none is known. `refunds` (an addition
 * to the spec) is absent until the first refund is paid.
 */
export function renderOrder(order: OrderView): WireOrder {
  const w = writer(order.format);
  const wire: WireOrder = {
    id: order.id,
    quote_id: order.quoteId,
    vault_id: order.vaultId,
    format: order.format,
    from: w.asset(order.from),
    to: w.asset(order.to),
    from_amount: w.amount(order.fromAmount, order.from),
    deposit_address: order.depositAddress,
    to_address: order.toAddress,
    refund_address: order.refundAddress,
    venue_allowlist: [...order.allowlist],
    venue_blocklist: [...order.blocklist],
    status: order.status,
    deposit_deadline: new Date(order.depositDeadline).toISOString(),
    created_at: new Date(order.createdAt).toISOString(),
  };
  if (order.amountOut !== null) wire.amount_out = w.amount(order.amountOut, order.to);
  if (order.refunds.length > 0) {
    wire.refunds = order.refunds.map((r) => ({ amount: w.amount(r.amount, r.asset), reason: r.reason, to_address: r.to, tx_id: r.txId }));
  }
  return wire;
}

/** 422 body: the audit is shown only when the caller asked for candidates. */
export function renderRefusal(message: string, audit: QuoteAudit | null, ctx: RenderContext, includeCandidates: boolean): WireQuoteRefusal {
  const body: WireQuoteRefusal = { error: message };
  if (includeCandidates) body.quote_candidates = audit ? renderAudit(audit, ctx) : null;
  return body;
}

/** A priced route in the shape of a Quote (the top-level quote, and each quoted candidate of the audit). */
export function renderPricedRoute(route: PricedRoute, ctx: RenderContext): WireQuote {
  const w = writer(ctx.format);
  const wire: WireQuote = {
    format: ctx.format,
    id: ctx.id,
    from: w.asset(route.from),
    to: w.asset(route.to),
    from_amount: w.amount(route.amountIn, route.from),
    estimated_amount_out: w.amount(route.estimatedAmountOut, route.to),
    delivery: {
      amount_in: w.amount(route.delivery.amountIn, route.to),
      execution_cost: w.amount(route.delivery.executionCost, route.to),
      amount_out: w.amount(route.delivery.amountOut, route.to),
    },
    expires_at: ctx.expiresAt,
    venue_allowlist: [...ctx.allowlist],
    venue_blocklist: [...ctx.blocklist],
  };
  if (ctx.returnFullRoute) wire.route = route.steps.map((s) => renderStep(s, ctx.format));
  return wire;
}

export function renderStep(step: RouteStep, format: AmountFormat): WireRouteStep {
  const w = writer(format);
  return {
    execution: step.execution.mode === 'evm' || step.execution.mode === 'evm_gas_desk'
      ? { mode: step.execution.mode, chain: step.execution.chain }
      : { mode: step.execution.mode },
    from: w.asset(step.from),
    to: w.asset(step.to),
    step_amount_in: w.amount(step.stepAmountIn, step.from),
    step_amount_out: w.amount(step.stepAmountOut, step.to),
    venue: step.venue,
    venue_amount_in: w.amount(step.venueAmountIn, step.from),
    venue_amount_out: w.amount(step.venueAmountOut, step.to),
  };
}

export function renderAudit(audit: QuoteAudit, ctx: RenderContext): WireQuoteAudit {
  const w = writer(ctx.format);
  const mh = audit.multiHop;
  return {
    single_hop: audit.singleHop.map((c) => renderSingleHop(c, ctx)),
    multi_hop: {
      paths: mh.paths,
      complete: mh.complete,
      hops: mh.hops,
      attempts: mh.attempts.map((a) => renderAttempt(a, ctx.format)),
      routes: mh.routes.map((r) => renderMultiHopRoute(r, ctx, w)),
      setup_error: mh.setupError,
    },
  };
}

// The candidates' objects are written out field by field (no spread of a shared head): an answer has dozens of them,
// and the key order, which the JSON keeps, is the same.
function renderSingleHop(c: SingleHopCandidate, ctx: RenderContext): WireSingleHopCandidate {
  const venue = c.venue;
  const elapsed_ms = wholeMs(c.elapsedMs);
  const best = c.best;
  switch (c.status) {
    case 'quoted': {
      if (!c.route || !c.costing) throw new Error(`single-hop candidate ${c.venue} is quoted without a route or costing`);
      const w = writer(ctx.format);
      return {
        venue,
        elapsed_ms,
        best,
        status: 'quoted',
        quote: renderPricedRoute(c.route, ctx),
        costing_audit: {
          venue: c.costing.venue,
          observed_amount_in: w.amount(c.costing.observedAmountIn, c.route.from),
          observed_amount_out: w.amount(c.costing.observedAmountOut, c.route.to),
        },
      };
    }
    case 'failed':
      return { venue, elapsed_ms, best, status: 'failed', error: c.error ?? 'The venue failed without a reason.' };
    case 'timed_out':
      return { venue, elapsed_ms, best, status: 'timed_out' };
  }
}

function renderAttempt(a: MultiHopAttempt, format: AmountFormat): WireMultiHopAttempt {
  const w = writer(format);
  const round = a.round;
  const from = w.asset(a.from);
  const to = w.asset(a.to);
  const amount_in = w.amount(a.amountIn, a.from);
  const venue = a.venue;
  const elapsed_ms = wholeMs(a.elapsedMs);
  switch (a.status) {
    case 'quoted':
      if (!a.step) throw new Error(`multi-hop attempt ${a.venue} is quoted without a step`);
      return { round, from, to, amount_in, venue, elapsed_ms, status: 'quoted', step: renderStep(a.step, format) };
    case 'failed':
      return { round, from, to, amount_in, venue, elapsed_ms, status: 'failed', error: a.error ?? 'The venue failed without a reason.' };
    case 'timed_out':
      return { round, from, to, amount_in, venue, elapsed_ms, status: 'timed_out' };
  }
}

function renderMultiHopRoute(r: MultiHopRoute, ctx: RenderContext, w: Writer): WireMultiHopRoute {
  const assets = r.assets.map((a) => w.asset(a));
  const venues = [...r.venues];
  const best = r.best;
  if (r.status === 'quoted') {
    if (!r.route) throw new Error(`multi-hop route ${r.venues.join('>')} is quoted without a priced route`);
    return { assets, venues, best, status: 'quoted', quote: renderPricedRoute(r.route, ctx) };
  }
  return { assets, venues, best, status: 'failed', error: r.error ?? 'The path produced no quote.' };
}

/** The spec types elapsed_ms as a non-negative integer; the core measures it as a float. */
function wholeMs(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

interface Writer {
  asset(id: AssetId): string;
  amount(amount: bigint, in_: AssetId): string;
}

function makeWriter(format: AmountFormat): Writer {
  return {
    asset: (id) => writeAsset(assetById(id), format),
    amount: (amount, in_) => writeAmount(amount, assetById(in_), format),
  };
}

// One writer per format, made once: an answer with candidates asks for one per priced route, step and attempt.
const WRITERS: Readonly<Record<AmountFormat, Writer>> = { raw: makeWriter('raw'), formatted: makeWriter('formatted') };

function writer(format: AmountFormat): Writer {
  return WRITERS[format];
}
