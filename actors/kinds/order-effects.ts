// The order machine's effects over the chains port, the venues and the router. Every money movement is keyed
// (`<order id>:<step>…`, `<order id>:refund:<deposit tx>`), so an effect restarted after a crash moves nothing twice,
// and every effect answers a tagged result instead of throwing. A venue step moves the order's money only once the
// venue has filled: a refused, halted or failing venue leaves the step's input where the order says it is. A step
// whose money moved in part answers `unsettled` and is tried again until its keyed moves complete. Each effect starts
// only once the snapshot of the state that started it is stored (write-ahead.ts).
import {
  ORDER_EFFECTS,
  type DeliverInput, type DeliverResult, type OrderVault, type QuoteBackInput, type QuoteBackResult, type RefundResult,
  type StepInput, type StepResult,
} from '../../machines/order.machine.js';
import { assetById } from '../../src/assets/index.js';
import type { AssetId, ChainName } from '../../src/assets/types.js';
import type { Chains, Transfer } from '../../src/chains/index.js';
import { poolAccount } from '../../src/chains/index.js';
import type { Clock } from '../../src/clock.js';
import { costKey, deliveryKey, FEES_ACCOUNT, holdingAccount, type PlannedRefund } from '../../src/orders/money.js';
import type { RouteRequest, RoutingResult } from '../../src/routing/types.js';
import type { Vaults } from '../../src/vaults/index.js';
import type { Market, VenueExecution } from '../../src/venues/types.js';
import type { Logger } from '../../src/log.js';
import { afterStored } from '../write-ahead.js';

export interface OrderEffectDeps {
  clock: Clock;
  vaults: Pick<Vaults, 'issue'>;
  chains: Pick<Chains, 'transfer' | 'transfers'>;
  market: Pick<Market, 'venue'>;
  /** The router's own quoting, used to swap converted funds back when an order is unwound. */
  router?: { route(req: RouteRequest): Promise<RoutingResult> };
  /** Called with every new deposit address before the order can show it (the deposit feed registers it). */
  onVault?: (chain: ChainName, address: string, orderId: string, asset: AssetId) => Promise<void>;
  /** A delivery or refund the chain refused is retried with backoff, up to every 15 minutes, for as long as it
   *  fails; each failure is logged here at warn with its reason (an address that can never be paid shows only so). */
  logger?: Logger;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function orderEffects(deps: OrderEffectDeps) {
  const { chains, clock } = deps;
  const chainOf = (asset: AssetId): ChainName => assetById(asset).chain;
  const move = (key: string, asset: AssetId, from: string, to: string, amount: bigint): Promise<Transfer | null> =>
    amount > 0n ? chains.transfer({ key, chain: chainOf(asset), asset, from, to, amount }) : Promise.resolve(null);

  /**
   * `outcome` when none of the step's money has moved; otherwise the step is unsettled (`unsettled` says why): a step
   * whose venue does not fill this time may have moved money on an earlier try (a restart, or a venue that forgot the
   * key and re-priced), and one whose moves cannot be read must not be taken for one that moved nothing either.
   */
  const unlessMoved = async (s: StepInput, outcome: Extract<StepResult, { status: 'failed' | 'halted' }>, unsettled: string): Promise<StepResult> => {
    try {
      const chain = chainOf(s.from);
      const moved = await Promise.all([`${s.key}:cost`, `${s.key}:in`].map((key) => chains.transfers({ chain, key })));
      if (moved.every((t) => t.length === 0)) return outcome;
      return { status: 'unsettled', error: unsettled, at: outcome.at };
    } catch (err) {
      const why = outcome.status === 'failed' ? outcome.error : outcome.reason;
      return { status: 'unsettled', error: `Step ${s.key} did not complete (${why}), and whether its money moved could not be read: ${message(err)}`, at: outcome.at };
    }
  };

  return {
    [ORDER_EFFECTS.issueVault]: afterStored<{ vault: OrderVault; at: number }, { orderId: string; chain: ChainName; asset: AssetId }>(
      async ({ input }) => {
        const v = await deps.vaults.issue(input.chain);
        await deps.onVault?.(v.chain, v.address, input.orderId, input.asset);
        return { vault: { vaultId: v.vaultId, chain: v.chain, index: v.index, address: v.address }, at: clock.now() };
      },
    ),

    [ORDER_EFFECTS.executeStep]: afterStored<StepResult, StepInput>(async ({ input: s }) => {
      if (s.stepAmountIn <= s.cost) {
        return { status: 'halted', reason: `Step ${s.key} holds ${s.stepAmountIn}, not enough for its cost ${s.cost}.`, shortfall: false, at: clock.now() };
      }
      const venueIn = s.stepAmountIn - s.cost;
      let fill: VenueExecution;
      try {
        fill = await deps.market
          .venue(s.venue)
          .execute({ key: s.key, from: assetById(s.from), to: assetById(s.to), amountIn: venueIn, minAmountOut: s.minAmountOut });
      } catch (err) {
        const error = message(err);
        return unlessMoved(s, { status: 'failed', error, at: clock.now() }, `Step ${s.key} moved money on an earlier try, and its venue failed now: ${error}`);
      }
      if (fill.status === 'halted') {
        const halted = { status: 'halted', reason: fill.reason, shortfall: fill.shortfall === true, at: clock.now() } as const;
        return unlessMoved(s, halted, `Step ${s.key} moved money on an earlier try, and its venue refused it now: ${fill.reason}`);
      }
      try {
        // Only now does the order's money move: the cost to the fee account, the input into the venue's pool, the
        // output into the holding account. Each is keyed, so a retry or a restart after any of them completes the rest.
        await move(costKey(s.key), s.from, s.holder, FEES_ACCOUNT, s.cost);
        await move(`${s.key}:in`, s.from, s.holder, poolAccount(s.venue), venueIn);
        // The ledger keeps the first output transfer of this key; its amount is the leg's truth after a restart.
        const out = await move(`${s.key}:out`, s.to, poolAccount(s.venue), holdingAccount(s.orderId), fill.amountOut);
        return { status: 'filled', amountOut: out?.amount ?? 0n, txId: out?.txId ?? fill.txId, at: clock.now() };
      } catch (err) {
        // Unsettled when a move before this one went through; when none did, nothing moved and the step just failed.
        const error = `Step ${s.key} filled at ${s.venue}, and moving its money failed: ${message(err)}`;
        return unlessMoved(s, { status: 'failed', error, at: clock.now() }, error);
      }
    }),

    [ORDER_EFFECTS.deliver]: afterStored<DeliverResult, DeliverInput>(async ({ input: d }) => {
      try {
        const cost = d.cost < d.amountIn ? d.cost : d.amountIn;
        await move(costKey(deliveryKey(d.orderId)), d.asset, d.holder, FEES_ACCOUNT, cost);
        const t = await move(deliveryKey(d.orderId), d.asset, d.holder, d.to, d.amountIn - cost);
        return { status: 'delivered', txId: t?.txId ?? '', amountOut: t?.amount ?? 0n, cost, at: clock.now() };
      } catch (err) {
        deps.logger?.warn({ orderId: d.orderId, key: deliveryKey(d.orderId), to: d.to, err: message(err) }, 'delivery refused; retried later');
        return { status: 'failed', error: message(err), at: clock.now() };
      }
    }),

    [ORDER_EFFECTS.refund]: afterStored<RefundResult, PlannedRefund>(async ({ input: r }) => {
      try {
        await move(costKey(r.key), r.asset, r.from, FEES_ACCOUNT, r.cost);
        const t = await move(r.key, r.asset, r.from, r.to, r.amount - r.cost);
        // A keyed ledger answers a known key with its first transfer, whatever this request says: one that paid another
        // amount or address is not this refund, and booking it as paid would name money the client never got.
        if (t && (t.amount !== r.amount - r.cost || t.to.toLowerCase() !== r.to.toLowerCase())) {
          return { status: 'failed', error: `Refund key ${r.key} already paid ${t.amount} to ${t.to}, not ${r.amount - r.cost} to ${r.to}; left for an operator.`, at: clock.now() };
        }
        return { status: 'paid', txId: t?.txId ?? null, at: clock.now() };
      } catch (err) {
        deps.logger?.warn({ key: r.key, to: r.to, reason: r.reason, err: message(err) }, 'refund refused; retried later');
        return { status: 'failed', error: message(err), at: clock.now() };
      }
    }),

    [ORDER_EFFECTS.quoteBack]: afterStored<QuoteBackResult, QuoteBackInput>(async ({ input: q }) => {
      if (!deps.router) return { route: null, error: 'This host has no router to quote the way back.', at: clock.now() };
      try {
        // The venue lists are optional in the effect's input: a snapshot written without them restarts it without them.
        const r = await deps.router.route({ from: q.from, to: q.to, amountIn: q.amountIn, mode: 'optimal', allowlist: q.allowlist ?? [], blocklist: q.blocklist ?? [] });
        return { route: r.best, error: r.best ? null : 'No venue could quote the way back.', at: clock.now() };
      } catch (err) {
        return { route: null, error: message(err), at: clock.now() };
      }
    }),
  };
}
