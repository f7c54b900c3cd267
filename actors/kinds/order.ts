// Hosting of order.machine: `order.create` creates the order (issuing its deposit address) and answers once it
// awaits its deposit; `order.get` reads it; `deposit` events come from the deposit watcher. Effects move money on
// the chains port and through venues, each keyed `<order id>:<step>` so a restarted effect never moves it twice.
import { fromPromise, type AnyMachineSnapshot } from 'xstate';
import {
  ORDER_EFFECTS, orderMachine, orderStatus, orderWakeUp,
  type DeliverInput, type OrderContext, type OrderPolicy, type OrderVault, type RefundInput, type StepInput,
  type StepResult, type TransferResult,
} from '../../machines/order.machine.js';
import { assetById } from '../../src/assets/index.js';
import type { ChainName } from '../../src/assets/types.js';
import type { ActorMessage, Reply } from '../../src/bus/types.js';
import type { Chains } from '../../src/chains/index.js';
import { poolAccount } from '../../src/chains/index.js';
import type { Clock } from '../../src/clock.js';
import { OrderNotFound, toErrorData } from '../../src/errors.js';
import type { OrderView } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import type { Vaults } from '../../src/vaults/index.js';
import type { Market } from '../../src/venues/types.js';
import type { ActorKindSpec } from '../kind.js';

/** Where execution and delivery costs are collected on each chain (the router's fee account). */
export const FEES_ACCOUNT = 'fees';

export interface OrderKindDeps {
  clock: Clock;
  vaults: Pick<Vaults, 'issue'>;
  chains: Pick<Chains, 'transfer'>;
  market: Pick<Market, 'venue'>;
  policy: OrderPolicy;
  /** Called with every new deposit address before the order can show it (the deposit feed registers it). */
  onVault?: (chain: ChainName, address: string, orderId: string, asset: string) => Promise<void>;
}

export function orderView(s: AnyMachineSnapshot): OrderView {
  const c = s.context as OrderContext;
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
    status: orderStatus(s.value),
    depositDeadline: c.depositDeadline,
    createdAt: c.createdAt,
    amountOut: c.amountOut,
  };
}

export function orderKind(deps: OrderKindDeps): ActorKindSpec {
  const { chains, clock } = deps;
  const chainOf = (asset: string): ChainName => assetById(asset).chain;
  const move = (key: string, asset: string, from: string, to: string, amount: bigint) =>
    amount > 0n ? chains.transfer({ key, chain: chainOf(asset), asset, from, to, amount }) : Promise.resolve(null);

  const logic = orderMachine.provide({
    actors: {
      [ORDER_EFFECTS.issueVault]: fromPromise<{ vault: OrderVault; at: number }, { orderId: string; chain: ChainName; asset: string }>(
        async ({ input }) => {
          const v = await deps.vaults.issue(input.chain);
          await deps.onVault?.(v.chain, v.address, input.orderId, input.asset);
          return { vault: { vaultId: v.vaultId, chain: v.chain, index: v.index, address: v.address }, at: clock.now() };
        },
      ),
      [ORDER_EFFECTS.executeStep]: fromPromise<StepResult, StepInput>(async ({ input: s }) => {
        const key = `${s.orderId}:${s.index}`;
        try {
          if (s.stepAmountIn <= s.cost) {
            return { status: 'halted', reason: `Step ${s.index} holds ${s.stepAmountIn}, not enough for its cost ${s.cost}.`, at: clock.now() };
          }
          const venueIn = s.stepAmountIn - s.cost;
          await move(`${key}:cost`, s.from, s.holder, FEES_ACCOUNT, s.cost);
          await move(`${key}:in`, s.from, s.holder, poolAccount(s.venue), venueIn);
          const fill = await deps.market.venue(s.venue).execute({ key, from: assetById(s.from), to: assetById(s.to), amountIn: venueIn, minAmountOut: s.minAmountOut });
          if (fill.status === 'halted') return { status: 'halted', reason: fill.reason, at: clock.now() };
          // The ledger keeps the first output transfer of this key; its amount is the leg's truth after a restart.
          const out = await move(`${key}:out`, s.to, poolAccount(s.venue), `order:${s.orderId}`, fill.amountOut);
          return { status: 'filled', amountOut: out?.amount ?? 0n, txId: out?.txId ?? fill.txId, at: clock.now() };
        } catch (err) {
          return { status: 'failed', error: err instanceof Error ? err.message : String(err), at: clock.now() };
        }
      }),
      [ORDER_EFFECTS.deliver]: fromPromise<TransferResult & { amountOut: bigint }, DeliverInput>(async ({ input: d }) => {
        const cost = d.cost < d.amountIn ? d.cost : d.amountIn;
        await move(`${d.orderId}:deliver:cost`, d.asset, d.holder, FEES_ACCOUNT, cost);
        const t = await move(`${d.orderId}:deliver`, d.asset, d.holder, d.to, d.amountIn - cost);
        return { txId: t?.txId ?? '', amountOut: t?.amount ?? 0n, at: clock.now() };
      }),
      [ORDER_EFFECTS.refund]: fromPromise<TransferResult, RefundInput>(async ({ input: r }) => {
        const t = await chains.transfer({ key: `${r.orderId}:refund:${r.reason}`, chain: r.chain, asset: r.asset, from: r.from, to: r.to, amount: r.amount });
        return { txId: t.txId, at: clock.now() };
      }),
    },
  });

  return {
    kind: 'order',
    logic,
    create(id, message: ActorMessage) {
      if (message.type !== 'order.create') return null;
      const quote = message.quote as Quote;
      return {
        id,
        quoteId: quote.id,
        format: quote.request.format,
        route: quote.route,
        allowlist: quote.request.allowlist,
        blocklist: quote.request.blocklist,
        sourceChain: chainOf(quote.request.from),
        toAddress: message.toAddress as string,
        refundAddress: (message.refundAddress as string | null) ?? null,
        createdAt: clock.now(),
        policy: deps.policy,
      };
    },
    toEvent(message, now) {
      if (message.type === 'deposit') {
        const { txId, from, amount, confirmations, required } = message as unknown as {
          txId: string; from: string; amount: bigint; confirmations: number; required: number;
        };
        return { type: 'deposit', txId, from, amount, confirmations, required, at: now };
      }
      return null;
    },
    notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(`Order ${id} does not exist.`)) }),
    // Creation answers once the deposit address exists; other messages answer at once.
    settled: (s) => !s.matches('opening'),
    reply: (s): Reply => ({ ok: true, value: orderView(s) }),
    wakeUp: (s) => orderWakeUp(s.value, s.context as OrderContext),
    status: (s) => orderStatus(s.value),
    index(s) {
      const c = s.context as OrderContext;
      return { sender: c.deposits[0]?.from ?? null, destination: c.toAddress, refund: c.refundAddress, orderType: 'market', createdAt: c.createdAt };
    },
  };
}
