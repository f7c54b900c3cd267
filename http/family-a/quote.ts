// POST /quote: body → schema → semantic checks → core QuoteRequest → quote actor over the bus → wire Quote.
// Everything that can be refused is refused here, before the bus, so a 400 never creates (or stores) an actor.
import type Koa from 'koa';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import type { Clock } from '../../src/clock.js';
import { InvalidAmount, InvalidRequest, VenueListConflict } from '../../src/errors.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import { readJsonBody } from '../json-body.js';
import { edgeState } from '../request-id.js';
import { statusOf } from './errors.js';
import { renderQuote, renderRefusal, type RenderContext } from './render.js';
import { assertQuoteRequestShape } from './validate.js';
import { rendered } from '../app-common.js';
import { issueQuote, type IssuedQuotes } from '../issued-quotes.js';
import type { EdgeGuard } from '../overload.js';

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
  guard: Pick<EdgeGuard, 'quoteSlot'>;
  newId: () => string;
  bodyLimitBytes: number;
  clock: Clock;
}

export function postQuote(deps: QuoteRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const request = toQuoteRequest(await readJsonBody(ctx, deps.bodyLimitBytes));
    const id = deps.newId();
    const issued = await issueQuote(deps, id, request, edgeState(ctx));
    if ('refused' in issued) {
      const err = issued.refused;
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
    ctx.status = 200;
    ctx.body = rendered(() => renderQuote(issued.quote));
  };
}
