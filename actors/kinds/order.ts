// Hosting of order.machine: `order.create` creates the order (issuing its deposit address) and answers once it
// awaits its deposit; `order.get` reads it; `order.unwind` cancels or unwinds it; `deposit` and `deposit.vanished`
// (a reorg removed a deposit) events come from the deposit watcher. The effects (order-effects.ts) move money on the
// chains port and through venues, each keyed.
import { nextRefund, orderMachine, refundAwaitsConfirmation, orderStatus, orderWakeUp, type OrderMachine, type OrderPolicy, type OrderSnapshot, type OrderVault } from '../../machines/order.machine.js';
import { assetById } from '../../src/assets/index.js';
import type { AssetId, ChainName } from '../../src/assets/types.js';
import { OrderNotCancellable, OrderNotFound, toErrorData } from '../../src/errors.js';
import { limitOf, NO_LIMITS, type DepositLimits } from '../../src/orders/limits.js';
import { holdings } from '../../src/orders/money.js';
import { ORDER_TERMS_A, type OrderView } from '../../src/orders/types.js';
import type { OrderProtocol } from '../../src/protocol/index.js';
import type { KeyEntry } from '../../src/store/types.js';
import type { Vaults } from '../../src/vaults/index.js';
import type { ActorKindSpec } from '../kind.js';
import { orderContextProblem } from './order-context.js';
import { orderEffects, type OrderEffectDeps } from './order-effects.js';
import { orderIndex } from './order-summary.js';

export { FEES_ACCOUNT } from '../../src/orders/money.js';

export interface OrderKindDeps extends OrderEffectDeps {
  /** Every order's policy but its deposit limit, which is its source asset's in `limits`. */
  policy: Omit<OrderPolicy, 'maxAmountIn'>;
  /** ROUTER_ORDER_MAX_DEPOSIT; absent = none. */
  limits?: DepositLimits;
  /** Draws the deposit vault at creation: with it, an order's first snapshot already holds its vault and is stored in
   *  the same store write that takes the vault's index and writes the address's keys (one durable write for the
   *  whole creation). Without it (test hosts), the order issues its vault in `opening` through `vaults.issue`. */
  vaultAt?: Pick<Vaults, 'sequenceOf' | 'at'>;
  /** The key-map entries stored with the snapshot that first shows a vault: the deposit feed's address → order, and
   *  the vault directory's address → index where there is one. */
  vaultKeys?: (vault: OrderVault, orderId: string, asset: AssetId) => KeyEntry[];
}

export function orderView(s: OrderSnapshot): OrderView {
  const c = s.context;
  return {
    id: c.id,
    quoteId: c.quoteId,
    vaultId: c.vault?.vaultId ?? '',
    format: c.format,
    from: c.route.from,
    to: c.route.to,
    fromAmount: c.route.amountIn,
    depositAddress: c.vault?.address ?? '',
    toAddress: c.toAddress,
    refundAddress: c.refundAddress,
    allowlist: c.allowlist,
    blocklist: c.blocklist,
    status: orderStatus(s),
    depositDeadline: c.depositDeadline,
    createdAt: c.createdAt,
    amountOut: c.delivery?.amountOut ?? null,
    refunds: c.refunds.map((r) => ({ reason: r.reason, asset: r.asset, amount: r.sent, cost: r.cost, to: r.to, txId: r.txId, at: r.at })),
    held: holdings(c),
    haltReason: c.haltReason,
    terms: c.terms,
    stage: lifecycleStage(s.value),
    closeReason: c.closeReason,
    refundPending: c.paying !== null || nextRefund(c) !== null || refundAwaitsConfirmation(c),
  };
}

/** The lifecycle state as a dotted path (`executing.step`), from the parallel state value. */
function lifecycleStage(value: unknown): string {
  const path: string[] = [];
  let v = (value as { lifecycle: unknown }).lifecycle;
  while (typeof v === 'object' && v !== null) {
    const [k, child] = Object.entries(v)[0]!;
    path.push(k);
    v = child;
  }
  return [...path, String(v)].join('.');
}

/** Whether `order.unwind` was taken: the order is closing, unwinding or closed by a cancel or an unwind. */
function unwindTaken(s: OrderSnapshot): boolean {
  const c = s.context;
  return c.closeReason === 'cancelled' || c.closeReason === 'unwind' || s.matches({ lifecycle: 'unwinding' } as never);
}

export function orderKind(deps: OrderKindDeps): ActorKindSpec<OrderProtocol, OrderMachine> {
  const { clock } = deps;
  const chainOf = (asset: string): ChainName => assetById(asset).chain;
  const logic = orderMachine.provide({ actors: orderEffects(deps) });

  return {
    kind: 'order',
    logic,
    sequence: (command) => (command.type === 'order.create' && deps.vaultAt ? deps.vaultAt.sequenceOf(chainOf(command.quote.request.from)) : null),
    create(id, command, drawn) {
      if (command.type !== 'order.create') return null;
      const { quote } = command;
      const vault = drawn === undefined || !deps.vaultAt ? null : deps.vaultAt.at(chainOf(quote.request.from), drawn);
      return {
        ...(vault ? { vault: { vaultId: vault.vaultId, chain: vault.chain, index: vault.index, address: vault.address } } : {}),
        id,
        quoteId: quote.id,
        format: quote.request.format,
        route: quote.route,
        allowlist: quote.request.allowlist,
        blocklist: quote.request.blocklist,
        sourceChain: chainOf(quote.request.from),
        toAddress: command.toAddress,
        refundAddress: command.refundAddress ?? null,
        refundCost: quote.refundCost,
        terms: command.terms ?? ORDER_TERMS_A,
        createdAt: clock.now(),
        policy: {
          maxAttempts: deps.policy.maxAttempts,
          backoffMs: deps.policy.backoffMs,
          shortfallToleranceBps: deps.policy.shortfallToleranceBps,
          maxAmountIn: limitOf(deps.limits ?? NO_LIMITS, quote.request.from),
        },
      };
    },
    toEvent(command, now) {
      switch (command.type) {
        case 'deposit': {
          const { txId, from, amount, confirmations, required } = command;
          return { type: 'deposit', txId, from, amount, confirmations, required, at: now, ...(command.fromRouter ? { fromRouter: true } : {}) };
        }
        case 'deposit.vanished':
          return { type: 'deposit.vanished', txId: command.txId, at: now };
        case 'order.unwind':
          return { type: 'unwind', at: now };
        case 'order.create':
        case 'order.get':
          return null;
      }
    },
    notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(`Order ${id} does not exist.`)) }),
    // Creation answers once the deposit address exists; other messages answer at once.
    settled: (s) => !s.matches({ lifecycle: 'opening' }),
    // Every command answers the order as it is now; an unwind the order's state refused answers why. An unwind asked
    // again of an order it already closed or is unwinding answers the order: a client's retried cancel succeeds.
    replies: {
      'order.create': (s) => ({ ok: true, value: orderView(s) }),
      'order.get': (s) => ({ ok: true, value: orderView(s) }),
      deposit: (s) => ({ ok: true, value: orderView(s) }),
      'deposit.vanished': (s) => ({ ok: true, value: orderView(s) }),
      'order.unwind': (s) => {
        if (!unwindTaken(s)) {
          const status = orderStatus(s);
          return { ok: false, error: toErrorData(new OrderNotCancellable(`Order ${s.context.id} is ${status}: it can be cancelled before it executes, or unwound once stalled or frozen.`)) };
        }
        return { ok: true, value: orderView(s) };
      },
    },
    keys: (s) => (s.context.vault && deps.vaultKeys ? deps.vaultKeys(s.context.vault, s.context.id, s.context.route.from) : []),
    wakeUp: (s) => orderWakeUp(s),
    status: (s) => orderStatus(s),
    contextProblem: orderContextProblem,
    operator: { statuses: ['stalled', 'frozen'], reason: (s) => s.context.haltReason ?? s.context.lastError },
    index: (s) => orderIndex(s, orderView(s)),
  };
}
