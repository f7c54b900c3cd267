// GET /orders of Family C: query → filters of the store's order index → one page, newest first, read from the index
// alone (no actor is loaded). One row more than the page is read to know whether a next page exists; the cursor is
// the keyset position of the page's last item, authenticated (cursor.ts).
import type Koa from 'koa';
import { validateAddress } from '../../src/assets/index.js';
import { InvalidAddress, InvalidRequest } from '../../src/errors.js';
import { LIST_STATUSES, type ListStatus } from '../../src/orders/summary.js';
import type { ActorStore, OrderQuery } from '../../src/store/types.js';
import { rendered } from '../app-common.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { renderListItem } from './render.js';
import type { WireOrderList } from './wire.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 100;
export const ORDERS_QUERY_PARAMS = ['sender', 'destination', 'refund', 'orderType', 'status', 'limit', 'cursor'] as const;
type Param = (typeof ORDERS_QUERY_PARAMS)[number];

export interface COrdersDeps {
  orders: Pick<ActorStore, 'listOrders'>;
  cursorKey: Uint8Array;
}

/** What a GET /orders query asks, in store terms; `empty` when the answer is known to be an empty page. */
export interface OrdersAsk {
  query: OrderQuery;
  /** The page size the client gets (the store is asked for one more). */
  pageSize: number;
  empty: boolean;
}

/**
 * An address filter in the one spelling the index stores: a valid EVM (or HyperCore) address in its EIP-55 form, a
 * valid Bitcoin mainnet address in its normal form (bech32 lower case, base58 as given).
 */
export function addressFilter(value: string, name: Param): string {
  for (const chain of ['ethereum', 'bitcoin'] as const) {
    try {
      return validateAddress(chain, value, name);
    } catch {
      // not this chain's address: try the next
    }
  }
  throw new InvalidAddress(`\`${name}\` must be an EVM or Bitcoin mainnet address.`, name);
}

/** An integer string clamped to 1..100; anything else is refused. */
export function pageSizeOf(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new InvalidRequest(`\`limit\` must be an integer (it is clamped to 1–${MAX_PAGE}).`, 'limit');
  const n = Number(text);
  return Math.min(MAX_PAGE, Math.max(1, n));
}

/** The query of GET /orders. Unknown or repeated parameters are refused (400): a misspelt filter must not widen the list. */
const isParam = (name: string): name is Param => (ORDERS_QUERY_PARAMS as readonly string[]).includes(name);
const isListStatus = (value: string): value is ListStatus => (LIST_STATUSES as readonly string[]).includes(value);

export function toOrdersAsk(raw: Record<string, string | string[] | undefined>, cursorKey: Uint8Array): OrdersAsk {
  const q: Partial<Record<Param, string>> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (!isParam(name)) {
      const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
      throw new InvalidRequest(`Query parameter \`${shown.replace(/[^\x20-\x7e]/g, '?')}\` is not accepted; use ${ORDERS_QUERY_PARAMS.join(', ')}.`, shown);
    }
    if (Array.isArray(value)) throw new InvalidRequest(`Query parameter \`${name}\` must be given once.`, name);
    q[name] = value;
  }
  const query: OrderQuery = { limit: DEFAULT_PAGE + 1 };
  if (q.sender !== undefined) query.sender = addressFilter(q.sender, 'sender');
  if (q.destination !== undefined) query.destination = addressFilter(q.destination, 'destination');
  if (q.refund !== undefined) query.refund = addressFilter(q.refund, 'refund');
  let empty = false;
  if (q.orderType !== undefined) {
    if (q.orderType !== 'market' && q.orderType !== 'limit') throw new InvalidRequest('`orderType` must be one of market, limit.', 'orderType');
    // Limit orders are not offered, so none exists.
    if (q.orderType === 'limit') empty = true;
    query.orderType = q.orderType;
  }
  if (q.status !== undefined) {
    const status = q.status;
    if (!isListStatus(status)) throw new InvalidRequest(`\`status\` must be one of ${LIST_STATUSES.join(', ')}.`, 'status');
    query.listStatus = status;
  }
  const pageSize = q.limit === undefined ? DEFAULT_PAGE : pageSizeOf(q.limit);
  query.limit = pageSize + 1;
  if (q.cursor !== undefined) query.after = decodeCursor(cursorKey, q.cursor);
  return { query, pageSize, empty };
}

export function getOrdersC(deps: COrdersDeps): Koa.Middleware {
  return async (ctx) => {
    const ask = toOrdersAsk(ctx.query, deps.cursorKey);
    if (ask.empty) {
      ctx.body = { items: [], nextCursor: null } satisfies WireOrderList;
      return;
    }
    const rows = await deps.orders.listOrders(ask.query);
    const page = rows.slice(0, ask.pageSize);
    const last = page.at(-1);
    ctx.status = 200;
    ctx.body = rendered(
      (): WireOrderList => ({
        items: page.map(renderListItem),
        nextCursor: rows.length > ask.pageSize && last ? encodeCursor(deps.cursorKey, { createdAt: last.createdAt, id: last.id }) : null,
      }),
    );
  };
}
