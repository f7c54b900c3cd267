// The order's entry in the store's order index: the fields the list filters on and the summary a list item shows,
// computed from the snapshot on every save (the runtime writes it beside the snapshot, in the same transaction).
import type { OrderSnapshot } from '../../machines/order.machine.js';
import type { AssetId } from '../../src/assets/types.js';
import { isTerminalListStatus, listStatusOf, type OrderSummary } from '../../src/orders/summary.js';
import type { OrderView } from '../../src/orders/types.js';
import type { PricedRoute } from '../../src/routing/types.js';
import type { OrderIndex } from '../../src/store/types.js';

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** `amount` of `asset`, valued in base units of the route's input at the route's own quoted rates (rounded up);
 *  null for an asset the route never holds. */
function inInputUnits(route: PricedRoute, asset: AssetId, amount: bigint): bigint | null {
  if (asset === route.from) return amount;
  const step = route.steps.find((s) => s.from === asset);
  if (step && step.stepAmountIn > 0n) return ceilDiv(amount * route.amountIn, step.stepAmountIn);
  if (asset === route.to && route.delivery.amountIn > 0n) return ceilDiv(amount * route.amountIn, route.delivery.amountIn);
  return null;
}

export function orderSummary(s: OrderSnapshot, view: OrderView): OrderSummary {
  const c = s.context;
  const route = c.route;
  const forward = c.legs.filter((l) => !l.unwind);
  const costs = [
    ...c.legs.map((l) => inInputUnits(route, l.from, l.cost)),
    c.delivery ? inInputUnits(route, c.delivery.asset, c.delivery.cost) : null,
    ...c.refunds.map((r) => inInputUnits(route, r.asset, r.cost)),
  ].filter((x): x is bigint => x !== null);
  const paidAny = c.legs.length > 0 || c.delivery !== null || c.refunds.length > 0;
  const lastRefundTx = [...c.refunds].reverse().find((r) => r.txId !== null)?.txId ?? null;
  const lastDeposit = c.deposits.reduce<number | null>((at, d) => (at === null || d.at > at ? d.at : at), null);
  const terminal = isTerminalListStatus(view);
  // A snapshot stored before the order kept its terminal moment: its last event then (a later refund moves it).
  const lastEvent = () => Math.max(c.history.at(-1)?.at ?? c.createdAt, c.delivery?.at ?? 0, ...c.refunds.map((r) => r.at));
  return {
    quoteId: c.quoteId,
    from: route.from,
    to: route.to,
    route,
    quoteMode: c.terms.exactOut !== null ? 'exact_output' : 'exact_input',
    quotedIn: route.amountIn,
    quotedOut: c.terms.exactOut ?? route.estimatedAmountOut,
    minOut: c.terms.minOut,
    maxIn: c.terms.maxIn,
    executedIn: forward[0]?.amountIn ?? null,
    executedOut: c.delivery?.amountOut ?? null,
    executedFees: paidAny ? costs.reduce((a, b) => a + b, 0n) : null,
    depositTxId: c.deposits[0]?.txId ?? null,
    payoutTxId: c.delivery?.txId || null,
    refundTxId: lastRefundTx,
    sender: c.terms.fromAddress ?? c.deposits[0]?.from ?? null,
    integrator: c.terms.integrator,
    lastSourceUpdateAt: lastDeposit,
    terminalAt: terminal ? (c.terminalAt ?? lastEvent()) : null,
  };
}

export function orderIndex(s: OrderSnapshot, view: OrderView): OrderIndex {
  const c = s.context;
  const summary = orderSummary(s, view);
  return {
    sender: summary.sender,
    destination: c.toAddress,
    refund: c.refundAddress,
    orderType: 'market',
    createdAt: c.createdAt,
    listStatus: listStatusOf(view),
    summary,
  };
}
