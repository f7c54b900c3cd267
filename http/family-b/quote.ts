// POST /quote of Family B: body → schema → the same core QuoteRequest Family A sends (`quote.request`) → one of the
// two quote shapes. Quote mode: `fast` (1.5 s per venue): B has no quote_mode field and its quotes back interactive
// swap screens, where a 10 s wait per venue is worse than a slightly less complete search.
import type Koa from 'koa';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import { InvalidAmount, InvalidRequest } from '../../src/errors.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import { rendered } from '../app-common.js';
import { readJsonBody } from '../json-body.js';
import { edgeState } from '../request-id.js';
import { BError } from './errors.js';
import { quoteIdFor } from './order-type.js';
import { coreFormat, renderBQuote, renderCandidates } from './render.js';
import { assertShape } from './validate.js';
import type { BAmountFormat, BOrderType } from './wire.js';
import { issueQuote, type IssuedQuotes } from '../issued-quotes.js';
import type { EdgeGuard } from '../overload.js';

export const B_QUOTE_MODE = 'fast' as const;
export const B_BODY_LIMIT_BYTES = 16 * 1024;

export interface BQuoteAsk {
  request: QuoteRequest;
  orderType: BOrderType;
  amountFormat: BAmountFormat;
  returnFullRoute: boolean;
}

export function toBQuoteRequest(body: unknown): BQuoteAsk {
  assertShape('QuoteRequest', body);
  const b = body;
  const amountFormat = b.amountFormat ?? 'readable';
  const from = parseChainAsset(b.from, 'from');
  const to = parseChainAsset(b.to, 'to');
  if (from.id === to.id) throw new InvalidRequest('`to` must be a different asset from `from`.', 'to');
  const amountIn = parseAmount(b.fromAmount, from, coreFormat(amountFormat), 'fromAmount');
  if (amountIn <= 0n) throw new InvalidAmount('`fromAmount` must be greater than zero.', 'fromAmount');
  const returnFullRoute = b.returnFullRoute ?? true;
  return {
    request: {
      from: from.id,
      to: to.id,
      amountIn,
      mode: B_QUOTE_MODE,
      allowlist: [],
      blocklist: [],
      format: coreFormat(amountFormat),
      returnFullRoute,
      includeCandidates: b.includeQuoteCandidates ?? false,
    },
    orderType: b.orderType ?? 'market_order',
    amountFormat,
    returnFullRoute,
  };
}

export function postQuoteB(deps: { bus: Bus; quotes: IssuedQuotes; guard: Pick<EdgeGuard, 'quoteSlot'> }): Koa.Middleware {
  return async (ctx) => {
    const ask = toBQuoteRequest(await readJsonBody(ctx, B_BODY_LIMIT_BYTES));
    const id = quoteIdFor(ask.orderType);
    const issued = await issueQuote(deps, id, ask.request, edgeState(ctx));
    if ('refused' in issued) {
      const err = issued.refused;
      const audit = err.audit;
      const details: Record<string, unknown> = {};
      if (ask.request.includeCandidates) details.quoteCandidates = audit ? rendered(() => renderCandidates(audit, ask.amountFormat)) : [];
      throw new BError(422, 'insufficient_liquidity', err.message, details);
    }
    ctx.status = 200;
    ctx.body = rendered(() =>
      renderBQuote(issued.quote, { orderType: ask.orderType, amountFormat: ask.amountFormat, returnFullRoute: ask.returnFullRoute, includeCandidates: ask.request.includeCandidates }),
    );
  };
}
