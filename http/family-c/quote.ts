// POST /quote of Family C: body → schema → typed currencies → the core QuoteRequest (`quote.request`) → the Quote of
// spec 2.7. Quote mode `fast`, as Family B: C has no quote_mode field and its quotes back interactive swap screens.
// EXACT_OUTPUT asks the core's exact-output search (the request's `exactOut`), which finds the smallest input.
import type Koa from 'koa';
import { MAX_AMOUNT } from '../../src/assets/index.js';
import type { Bus } from '../../src/bus/types.js';
import { InvalidAmount, InvalidRequest } from '../../src/errors.js';
import type { QuoteRequest } from '../../src/quotes/types.js';
import { BError } from '../family-b/errors.js';
import { rendered } from '../app-common.js';
import { readJsonBody } from '../json-body.js';
import { edgeState } from '../request-id.js';
import { parseCurrency } from './currency.js';
import { renderCQuote } from './render.js';
import { assertShape } from './validate.js';
import { issueQuote, type IssuedQuotes } from '../issued-quotes.js';
import type { EdgeGuard } from '../overload.js';

export const C_QUOTE_MODE = 'fast' as const;
export const C_BODY_LIMIT_BYTES = 16 * 1024;
const MAX_AMOUNT_DIGITS = MAX_AMOUNT.toString().length;

/** A base-unit decimal string (schema-checked digits) as a bigint in 1..2^256−1. */
function amountOf(text: string): bigint {
  // Leading zeros do not change the value; the length check keeps BigInt off absurdly long numbers.
  const digits = text.replace(/^0+(?=[0-9])/, '');
  const value = digits.length > MAX_AMOUNT_DIGITS ? MAX_AMOUNT + 1n : BigInt(digits);
  if (value > MAX_AMOUNT) throw new InvalidAmount('`amount` must be at most 2^256−1 (an unsigned 256-bit integer).', 'amount');
  if (value === 0n) throw new InvalidAmount('`amount` must be greater than zero.', 'amount');
  return value;
}

/** The core request of a POST /quote body. @throws InvalidRequest (400) naming the field. */
export function toCQuoteRequest(body: unknown): QuoteRequest {
  assertShape('QuoteRequest', body);
  const b = body;
  const from = parseCurrency(b.from, 'from');
  const to = parseCurrency(b.to, 'to');
  if (from.id === to.id) throw new InvalidRequest('`to` must be a different currency from `from`.', 'to');
  const amount = amountOf(b.amount);
  const exactOutput = b.type === 'EXACT_OUTPUT';
  return {
    from: from.id,
    to: to.id,
    amountIn: exactOutput ? 0n : amount,
    ...(exactOutput ? { exactOut: amount } : {}),
    slippageBps: b.slippageBps,
    mode: C_QUOTE_MODE,
    allowlist: [],
    blocklist: [],
    format: 'raw',
    returnFullRoute: true,
    includeCandidates: false,
  };
}

export function postQuoteC(deps: { bus: Bus; newId: () => string; quotes: IssuedQuotes; guard: Pick<EdgeGuard, 'quoteSlot'> }): Koa.Middleware {
  return async (ctx) => {
    const request = toCQuoteRequest(await readJsonBody(ctx, C_BODY_LIMIT_BYTES));
    const issued = await issueQuote(deps, deps.newId(), request, edgeState(ctx));
    if ('refused' in issued) throw new BError(422, 'insufficient_liquidity', issued.refused.message, {});
    ctx.status = 200;
    ctx.body = rendered(() => renderCQuote(issued.quote));
  };
}
