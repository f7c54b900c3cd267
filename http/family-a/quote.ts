// POST /quote: body → schema → semantic checks → core QuoteRequest → quote actor over the bus → wire Quote.
// Everything that can be refused is refused here, before the bus, so a 400 never creates (or stores) an actor.
import type Koa from 'koa';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { InvalidAmount, InvalidRequest, QuoteRefused, VenueListConflict } from '../../src/errors.js';
import type { Quote, QuoteRequest } from '../../src/quotes/types.js';
import { readJsonBody } from '../json-body.js';
import { edgeState } from '../request-id.js';
import { statusOf } from './errors.js';
import { renderQuote, renderRefusal, type RenderContext } from './render.js';
import { assertQuoteRequestShape } from './validate.js';
import { type IssuedQuotes } from '../issued-quotes.js';

/** Validates a POST /quote body and translates it into the core's language; throws InvalidRequest (or a subclass). */
export function toQuoteRequest(body: unknown): QuoteRequest {
  assertQuoteRequestShape(body);
  const b = body;
  const allowlist = b.venue_allowlist ?? [];
  const blocklist = b.venue_blocklist ?? [];
  // Spec 8: the lists cannot both be non-empty; one of them empty is the same as absent.
  if (allowlist.length > 0 && blocklist.length > 0) {
    throw new VenueListConflict('`venue_blocklist` is not allowed together with `venue_allowlist`.', 'venue_blocklist');
  }
  const format = b.format ?? 'formatted';
  const from = parseChainAsset(b.from, 'from');
  const to = parseChainAsset(b.to, 'to');
  if (from.id === to.id) throw new InvalidRequest('`to` must be a different asset from `from`.', 'to');
  const amountIn = parseAmount(b.from_amount, from, format, 'from_amount');
  // Nothing can be swapped out of nothing; guarded here too so the rule holds whatever the amount parser allows.
  if (amountIn <= 0n) throw new InvalidAmount('`from_amount` must be greater than zero.', 'from_amount');
  return {
    from: from.id,
    to: to.id,
    amountIn,
    mode: b.quote_mode ?? 'optimal',
    allowlist: [...allowlist],
    blocklist: [...blocklist],
    format,
    returnFullRoute: b.return_full_route,
    includeCandidates: b.include_candidates ?? false,
  };
}

export interface QuoteRouteDeps {
  bus: Bus;
  quotes: IssuedQuotes;
  newId: () => string;
  bodyLimitBytes: number;
  clock: Clock;
}

export function postQuote(deps: QuoteRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const { requestId, log } = edgeState(ctx);
    const request = toQuoteRequest(await readJsonBody(ctx, deps.bodyLimitBytes));
    const id = deps.newId();
    let quote: Quote;
    try {
      quote = await deps.bus.request({ kind: 'quote', id }, { type: 'quote.request', request }, { requestId });
    } catch (err) {
      if (!(err instanceof QuoteRefused)) throw err;
      log.info({ quote_id: id }, 'quote refused');
      const audit = err.audit;
      // No quote was issued, so candidates in the audit carry the refused quote's id and expire at once.
      const rctx: RenderContext = {
        format: request.format,
        from: request.from,
        to: request.to,
        id,
        expiresAt: new Date(deps.clock.now()).toISOString(),
        allowlist: request.allowlist,
        blocklist: request.blocklist,
        returnFullRoute: request.returnFullRoute,
      };
      ctx.status = statusOf(err);
      ctx.body = rendered(() => renderRefusal(err.message, audit, rctx, request.includeCandidates));
      return;
    }
    deps.quotes.remember(quote);
    ctx.status = 200;
    ctx.body = rendered(() => renderQuote(quote));
  };
}

/**
 * A core value the renderer cannot write (an asset id the registry lacks) is our bug, not the caller's: the asset
 * module's UnknownAsset would otherwise map to 400, so it is re-thrown as a plain error and answered with 500.
 */
function rendered<T>(render: () => T): T {
  try {
    return render();
  } catch (err) {
    throw new Error(`rendering a core value failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
