// An order as a statechart, from deposit address to delivery or refund. Two parallel regions: `lifecycle` (deposit,
// execution, delivery, closing, unwinding) and `refunds`, the one path every refund takes whatever its reason, so a
// deposit arriving at any time (also after delivery or expiry) is recorded and paid back once it is confirmed.
// Pure: vault issuing, venue steps, delivery, refunds and quoting back are named effects the runtime provides; each
// answers a tagged result with the instant it finished (effects never throw), and time otherwise comes with events.
// Long waits (deposit deadline, retry backoff) are exposed as data by `orderWakeUp`, never as XState `after`.
import { and, assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { AmountFormat, AssetId, ChainName } from '../src/assets/types.js';
import {
  holdingAccount, type DeliveryRecord, type DepositRecord, type LegRecord, type MoneyRecords, type PlannedRefund,
  type RefundReason, type RefundRecord,
} from '../src/orders/money.js';
import { ORDER_STATUSES, type OrderStatus, type OrderTerms } from '../src/orders/types.js';
import type { OrderDeposit } from '../src/protocol/order.js';
import type { PricedRoute } from '../src/routing/types.js';
import type { VenueId } from '../src/venues/types.js';

export const DEPOSIT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** The longest wait between two attempts of a refund or delivery that keeps failing (they are retried forever:
 *  the money is the user's and must leave). */
export const BACKOFF_CAP_MS = 15 * 60 * 1000;

export interface OrderVault {
  vaultId: string;
  chain: ChainName;
  index: number;
  address: string;
}

export interface OrderInput {
  id: string;
  quoteId: string;
  format: AmountFormat;
  route: PricedRoute;
  allowlist: VenueId[];
  blocklist: VenueId[];
  sourceChain: ChainName;
  toAddress: string;
  /** The refund address the client gave, or null. */
  refundAddress: string | null;
  /** Cost of one refund transfer of `route.from` on the source chain (base units, as quoted). A deposit at or below
   *  it is dust: refunding it would cost all of it, so it never sets the refund address. */
  refundCost: bigint;
  createdAt: number;
  policy: OrderPolicy;
  /** What the client agreed beyond the quote: the slippage guard, a durable cancel, how a cancel is authorised. */
  terms: OrderTerms;
  /** The deposit vault when the host drew it before creating the order (stored with the first snapshot); absent, the
   *  order issues it in `opening`. */
  vault?: OrderVault;
}

/** Operator-set limits, copied in at creation so a snapshot replays the same decisions. */
export interface OrderPolicy {
  /** Attempts of one step before the order is stalled. */
  maxAttempts: number;
  /** First retry delay; doubles each attempt. */
  backoffMs: number;
  /** A step re-priced below its quoted output by more than this (basis points) halts the order (frozen). */
  shortfallToleranceBps: number;
  /** Largest deposit executed without an operator (base units of `from`); null = no limit. */
  maxAmountIn: bigint | null;
}

/** Where the order's funds stand: `open` while deposits may still fund it; `committed` once execution has taken its
 *  amount (what a deposit did not fund is free to refund); `closed` when it ended without executing (all is free). */
export type OrderPhase = 'open' | 'committed' | 'closed';
export type CloseReason = Extract<RefundReason, 'underfunded' | 'cancelled' | 'unwind' | 'slippage'>;

export interface UnwindState {
  /** The route back to the source asset the router quoted, or null before quoting or when none exists. */
  route: PricedRoute | null;
  /** Next step of `route` to run. */
  step: number;
}

export interface OrderContext extends Omit<OrderInput, 'vault'> {
  depositDeadline: number;
  vault: OrderVault | null;
  /** The refund address the client gave (`refundAddress` shows the one in use, spec 2.5). */
  givenRefundAddress: string | null;
  deposits: DepositRecord[];
  phase: OrderPhase;
  closeReason: CloseReason | null;
  /** Index of the next step of the quoted route to run. */
  step: number;
  /** Every venue step filled, the quoted route's and the route back's. */
  legs: LegRecord[];
  attempt: number;
  retryAt: number | null;
  lastError: string | null;
  /** The step being retried has moved some of the order's money already (its last try answered `unsettled`): the
   *  books name that money where it was until the step fills. Optional: a snapshot written without it reads as false. */
  partMoved?: boolean;
  haltReason: string | null;
  delivery: DeliveryRecord | null;
  /** Refunds to pay before any deposit's (unwind proceeds), oldest first. */
  refundQueue: PlannedRefund[];
  /** The refund being paid; its effect input. */
  paying: PlannedRefund | null;
  refundAttempt: number;
  refundRetryAt: number | null;
  /** Why the last attempt at the refund under way failed (null once a refund is paid): what an operator reads of a
   *  refund retried for ever (a refund address that takes no payment). Optional: a snapshot may be written without it. */
  refundError?: string | null;
  refunds: RefundRecord[];
  /** When the order first reached delivered, expired or refunded; later refunds of late deposits leave it. Optional:
   *  a snapshot may be written without it. */
  terminalAt?: number | null;
  unwind: UnwindState | null;
  /** Why converted funds are being swapped back: an operator's or client's unwind, or the slippage guard. */
  unwindReason: 'unwind' | 'slippage';
  history: Array<{ status: OrderStatus; at: number }>;
}

// The context is a structural superset of the money records the audit reads from stored snapshots
// (src/orders/audit-run.ts): this stops the build when it no longer is, so the audit never reads fields the machine
// stopped keeping.
const contextHoldsRecords = (c: OrderContext): MoneyRecords => c;
void contextHoldsRecords;

/** The deposit feed's command (see OrderDeposit), stamped with the host's clock when it reached the order. */
export type DepositEvent = OrderDeposit & { at: number };
/** A reorg removed the deposit's transaction from its chain (told at least once; unknown txIds change nothing). */
export type DepositVanishedEvent = { type: 'deposit.vanished'; txId: string; at: number };
export type OrderEvent =
  | DepositEvent
  | DepositVanishedEvent
  /** Cancel an order that has not started executing, or unwind a stalled or frozen one. */
  | { type: 'unwind'; at: number }
  /**
   * The host's durable timer at `at` (its clock when the wake-up fired): every wait due by then ends (the deposit
   * deadline, a step's retry, a refund's retry). Also sent to an order whose effect was running when its process
   * died: restoring the snapshot restarts the effect (keyed, so it runs once).
   */
  | { type: 'wake'; at: number };

export type StepResult =
  | { status: 'filled'; amountOut: bigint; txId: string; at: number }
  /** `shortfall`: the venue would fill, but below the least acceptable output (re-priced), not a venue halt. */
  | { status: 'halted'; reason: string; shortfall: boolean; at: number }
  /** Nothing of the order moved: the venue did not fill (or could not be asked). */
  | { status: 'failed'; error: string; at: number }
  /**
   * Some of the order's money moved for this step (its cost or its input left the holder) and the rest did not: the
   * step is committed, so it is never taken as "nothing converted"; it is tried again, keyed, until it completes.
   */
  | { status: 'unsettled'; error: string; at: number };

export interface StepInput {
  /** Idempotency key of the step at the venue and on the ledger. */
  key: string;
  orderId: string;
  venue: VenueId;
  from: AssetId;
  to: AssetId;
  /** Amount at hand entering the step (taken from `holder` only once the venue fills). */
  stepAmountIn: bigint;
  /** Quoted execution cost of the step, paid from the amount at hand. */
  cost: bigint;
  /** The least the venue may return: the quoted venue output less the tolerance. */
  minAmountOut: bigint;
  /** Where the amount at hand sits: the deposit address for the first step, else the order's holding account. */
  holder: string;
}

export type DeliverResult =
  | { status: 'delivered'; txId: string; amountOut: bigint; cost: bigint; at: number }
  | { status: 'failed'; error: string; at: number };

export type RefundResult = { status: 'paid'; txId: string | null; at: number } | { status: 'failed'; error: string; at: number };

export type QuoteBackResult = { route: PricedRoute | null; error: string | null; at: number };

export interface DeliverInput {
  orderId: string;
  asset: AssetId;
  amountIn: bigint;
  cost: bigint;
  to: string;
  holder: string;
}

export interface QuoteBackInput {
  orderId: string;
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  /** The order's venue lists, inherited from its quote: the way back honours them as the way there did. */
  allowlist: VenueId[];
  blocklist: VenueId[];
}

export const ORDER_EFFECTS = {
  issueVault: 'issueVault',
  executeStep: 'executeStep',
  deliver: 'deliver',
  refund: 'refund',
  quoteBack: 'quoteBack',
} as const;

/** Tag of every state whose effect is in flight: after a crash or passivation the host brings it back at once. */
const EFFECT = 'effect';

const sum = (ds: DepositRecord[]) => ds.reduce((s, d) => s + d.amount, 0n);
const confirmed = (d: DepositRecord) => d.confirmations >= d.required;
const min = (a: bigint, b: bigint) => (a < b ? a : b);

function eventAt(ctx: OrderContext, event: { type: string }): number {
  const e = event as { at?: unknown; output?: { at?: unknown } };
  if (typeof e.at === 'number') return e.at;
  if (typeof e.output?.at === 'number') return e.output.at;
  return ctx.history.at(-1)?.at ?? ctx.createdAt;
}

/** The input of the next step: of the quoted route, or of the route back while unwinding. */
function stepInput(ctx: OrderContext): StepInput {
  const tolerance = BigInt(10_000 - ctx.policy.shortfallToleranceBps);
  if (ctx.unwind?.route) {
    const i = ctx.unwind.step;
    const s = ctx.unwind.route.steps[i]!;
    const prior = ctx.legs.at(-1)!;
    return {
      key: `${ctx.id}:unwind:${ctx.legs.length}`,
      orderId: ctx.id,
      venue: s.venue,
      from: s.from,
      to: s.to,
      // The amount at hand is what the last leg returned, of the quoted route or of the route back.
      stepAmountIn: prior.amountOut,
      cost: s.stepAmountIn - s.venueAmountIn,
      minAmountOut: (s.venueAmountOut * tolerance) / 10_000n,
      holder: holdingAccount(ctx.id),
    };
  }
  const s = ctx.route.steps[ctx.step]!;
  const tolerated = (s.venueAmountOut * tolerance) / 10_000n;
  const last = ctx.step === ctx.route.steps.length - 1;
  // The slippage guard binds the last step: below minOut plus the delivery cost the order could not deliver minOut.
  const guarded = last && ctx.terms.minOut !== null ? ctx.terms.minOut + ctx.route.delivery.executionCost : 0n;
  return {
    key: `${ctx.id}:${ctx.step}`,
    orderId: ctx.id,
    venue: s.venue,
    from: s.from,
    to: s.to,
    stepAmountIn: ctx.step === 0 ? ctx.route.amountIn : ctx.legs.at(-1)!.amountOut,
    cost: s.stepAmountIn - s.venueAmountIn,
    minAmountOut: tolerated > guarded ? tolerated : guarded,
    holder: ctx.step === 0 ? ctx.vault!.address : holdingAccount(ctx.id),
  };
}

/** What a filled step (of the route or of a swap back) leaves of the retries before it: nothing. */
const STEP_SETTLED = { attempt: 0, retryAt: null, lastError: null, partMoved: false } as const;

/** The record of the step `stepInput` describes, once its venue filled. */
function filledLeg(ctx: OrderContext, output: StepResult, unwind: boolean): LegRecord {
  const o = output as Extract<StepResult, { status: 'filled' }>;
  const s = stepInput(ctx);
  return {
    index: unwind ? ctx.unwind!.step : ctx.step, unwind, venue: s.venue, from: s.from, to: s.to, holder: s.holder,
    amountIn: s.stepAmountIn, cost: s.cost, amountOut: o.amountOut, txId: o.txId, at: o.at,
  };
}

/**
 * The events that end a wait that is due by their instant: the durable timer, and a deposit. The deposit feed and the
 * timers poll on their own, so a deposit can reach an order after its deadline (or its durable cancel) but before the
 * wake-up that ends it; the order then ends as the wake-up would have ended it and records the deposit after, as late.
 */
function dueBy(event: OrderEvent): event is Extract<OrderEvent, { type: 'wake' | 'deposit' }> {
  return event.type === 'wake' || event.type === 'deposit';
}

/** A wait that ends when an instant is due: the guard that says so, where the order goes, and why it closes. */
interface DueEnd {
  guard: 'deadlinePassed' | 'cancelDue';
  target: string;
  reason: CloseReason | null;
}

/** The wake-up's transitions for these ends: the order closes. */
function onWake(ends: readonly DueEnd[]) {
  return ends.map(({ guard, target, reason }) => ({ guard, target, actions: { type: 'close' as const, params: { reason } } }));
}

/** The same ends reached by a deposit stamped at or after the instant (see `dueBy`): the order closes first, as the
 *  wake-up would have closed it, then records the deposit, which the refunds region pays back as late. */
function onDeposit(ends: readonly DueEnd[]) {
  return ends.map(({ guard, target, reason }) => ({ guard, target, actions: [{ type: 'close' as const, params: { reason } }, 'recordDeposit' as const] }));
}

const AWAITING_ENDS: readonly DueEnd[] = [
  { guard: 'deadlinePassed', target: 'expired', reason: null },
  { guard: 'cancelDue', target: 'refunded', reason: 'cancelled' },
];
const UNDERFUNDED_ENDS: readonly DueEnd[] = [
  { guard: 'deadlinePassed', target: 'refunding.underfunded', reason: 'underfunded' },
  { guard: 'cancelDue', target: 'refunding.cancelled', reason: 'cancelled' },
];
/** Funded but not yet confirmed when the client's cancelAfter passes: cancelled, refunded once confirmed. */
const FUNDED_ENDS: readonly DueEnd[] = [{ guard: 'cancelDue', target: 'refunding.cancelled', reason: 'cancelled' }];

/** The delivery's cost: the quoted one, or (exact output) all the route returned above the promised amount, so the
 *  destination receives exactly that amount. */
function deliveryCostOf(ctx: OrderContext): bigint {
  const quoted = ctx.route.delivery.executionCost;
  if (ctx.terms.exactOut === null) return quoted;
  const surplus = ctx.legs.at(-1)!.amountOut - ctx.terms.exactOut;
  return surplus > quoted ? surplus : quoted;
}

/** A refund of `amount` from `from`: its cost is the quoted refund cost, or all of it when it is not larger. */
function planRefund(ctx: OrderContext, p: Omit<PlannedRefund, 'chain' | 'asset' | 'cost'>): PlannedRefund {
  return { ...p, chain: ctx.sourceChain, asset: ctx.route.from, cost: min(ctx.refundCost, p.amount) };
}

/** Why a deposit's free part goes back. */
function depositRefundReason(ctx: OrderContext, d: DepositRecord): RefundReason {
  if (d.late) return 'late_deposit';
  if (ctx.phase === 'closed') return ctx.closeReason ?? 'cancelled';
  return 'excess';
}

/**
 * The next refund owed, or null: unwind proceeds first, then the unspent part of each confirmed deposit once the
 * order has committed or closed (never an unconfirmed one). It goes to the client's refund address, else back to
 * that deposit's own sender, so a stranger's earlier deposit cannot redirect anyone else's money; a deposit with no
 * target (`refundTargetOf`) is not refunded.
 */
export function nextRefund(ctx: OrderContext): PlannedRefund | null {
  if (ctx.refundQueue.length > 0) return ctx.refundQueue[0]!;
  if (ctx.phase === 'open' || !ctx.vault) return null;
  const d = ctx.deposits.find((x) => confirmed(x) && owedBack(ctx, x) && !heldUntilDelivery(ctx, x));
  if (!d) return null;
  return planRefund(ctx, {
    // A deposit can be refunded twice (its excess, then the rest when an unwind frees what execution had taken):
    // each refund of it is its own key.
    key: `${ctx.id}:refund:${d.txId}:${ctx.refunds.filter((r) => r.depositTxId === d.txId).length}`,
    reason: depositRefundReason(ctx, d),
    from: ctx.vault.address,
    to: refundTargetOf(ctx, d)!,
    amount: d.amount - d.spent - d.refunded,
    depositTxId: d.txId,
  });
}

/** While an exact-output order executes, a deposit that funds it keeps its part above `maxIn` until delivery frees
 *  what the route did not use: both go back in one refund, at one refund's cost. A stalled or frozen order, which waits
 *  for an operator, pays it back at once. */
function heldUntilDelivery(ctx: OrderContext, d: DepositRecord): boolean {
  const waitsForOperator = ctx.haltReason !== null || ctx.history.at(-1)?.status === 'stalled' || ctx.history.at(-1)?.status === 'frozen';
  return ctx.phase === 'committed' && ctx.terms.maxIn !== null && ctx.delivery === null && !waitsForOperator && d.spent > 0n;
}

/** A deposit seen but not yet confirmed that this order, past taking deposits, refunds once it is confirmed: a refund
 *  is owed that nextRefund cannot plan yet. */
export function refundAwaitsConfirmation(ctx: OrderContext): boolean {
  if (ctx.phase === 'open' || !ctx.vault) return false;
  return ctx.deposits.some((d) => !confirmed(d) && owedBack(ctx, d));
}

/** Part of a deposit is neither spent nor refunded, and there is someone to pay it back to. */
function owedBack(ctx: OrderContext, d: DepositRecord): boolean {
  return d.amount > d.spent + d.refunded && refundTargetOf(ctx, d) !== null;
}

/** Execution takes `amount` from the deposits in arrival order; what each did not fund is free. At commit that is
 *  the most the order accepts (exact output holds up to `maxIn` until it has delivered), after delivery what the
 *  route used. */
function allocate(ctx: OrderContext, amount: bigint): DepositRecord[] {
  let left = amount;
  return ctx.deposits.map((d) => {
    const spent = min(d.amount, left);
    left -= spent;
    return { ...d, spent };
  });
}

/** Proceeds of an unwind, shared among the senders by what each one's deposits funded (to the client's refund address
 *  when it gave one); the first share takes the rounding remainder. A sender of the router's own has no share paid:
 *  its share, and then the remainder too, stays held in the holding account for an operator. */
function proceedsRefunds(ctx: OrderContext, amount: bigint): PlannedRefund[] {
  const shares = new Map<string | null, bigint>();
  if (ctx.givenRefundAddress) shares.set(ctx.givenRefundAddress, 1n);
  else {
    for (const d of ctx.deposits) {
      const to = refundTargetOf(ctx, d);
      if (d.spent > 0n) shares.set(to, (shares.get(to) ?? 0n) + d.spent);
    }
  }
  const total = [...shares.values()].reduce((s, v) => s + v, 0n);
  if (total === 0n) return [];
  const parts = [...shares].map(([to, w]) => ({ to, amount: (amount * w) / total }));
  const payable = parts.filter((p): p is { to: string; amount: bigint } => p.to !== null);
  if (payable.length === 0) return [];
  if (payable.length === parts.length) payable[0]!.amount += amount - parts.reduce((s, p) => s + p.amount, 0n);
  const base = ctx.refunds.length + ctx.refundQueue.length;
  return payable
    .filter((p) => p.amount > 0n)
    .map((p, i) =>
      planRefund(ctx, { key: `${ctx.id}:refund:unwind:${base + i}`, reason: ctx.unwindReason, from: holdingAccount(ctx.id), to: p.to, amount: p.amount, depositTxId: null }),
    );
}

/** Whether the deposit `txId` can leave the order's books: recorded, nothing of it spent by execution or refunded,
 *  and no refund of it in flight (a refund that failed keeps its key and may still land, so it counts as in flight). */
function vanishable(ctx: OrderContext, txId: string): boolean {
  const d = ctx.deposits.find((x) => x.txId === txId);
  return d !== undefined && d.spent === 0n && d.refunded === 0n && ctx.paying?.depositTxId !== txId;
}

/** The deposits left once `txId` is removed. */
const withoutDeposit = (ctx: OrderContext, txId: string): DepositRecord[] => ctx.deposits.filter((d) => d.txId !== txId);

/** The refund address in use (spec 2.5): the client's, else the sender of the first deposit above dust that is not
 *  one of the router's own accounts. */
function shownRefundAddress(ctx: OrderContext, deposits: DepositRecord[]): string | null {
  return ctx.givenRefundAddress ?? deposits.find((d) => d.amount > ctx.refundCost && d.fromRouter !== true)?.from ?? null;
}

/** Where a deposit's unspent part goes back: the client's refund address, else its own sender; none when that sender is
 *  one of the router's accounts (the part stays held at the deposit address, named, for an operator). */
function refundTargetOf(ctx: OrderContext, d: DepositRecord): string | null {
  return ctx.givenRefundAddress ?? (d.fromRouter === true ? null : d.from);
}



/** A stalled or frozen order asked to unwind (stalled and frozen take it alike): refunded where it stands when
 *  nothing was converted, else unwound through the router. */
const UNWIND_FROM_HALT = [
  { guard: 'nothingConverted', target: 'refunding.unwind', actions: { type: 'close', params: { reason: 'unwind' } } },
  { target: 'unwinding' },
] as const;

export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as OrderInput,
    events: {} as OrderEvent,
  },
  actors: {
    [ORDER_EFFECTS.issueVault]: fromPromise<{ vault: OrderVault; at: number }, { orderId: string; chain: ChainName; asset: AssetId }>(async () => {
      throw new Error('provided by the runtime');
    }),
    [ORDER_EFFECTS.executeStep]: fromPromise<StepResult, StepInput>(async () => {
      throw new Error('provided by the runtime');
    }),
    [ORDER_EFFECTS.deliver]: fromPromise<DeliverResult, DeliverInput>(async () => {
      throw new Error('provided by the runtime');
    }),
    [ORDER_EFFECTS.refund]: fromPromise<RefundResult, PlannedRefund>(async () => {
      throw new Error('provided by the runtime');
    }),
    [ORDER_EFFECTS.quoteBack]: fromPromise<QuoteBackResult, QuoteBackInput>(async () => {
      throw new Error('provided by the runtime');
    }),
  },
  guards: {
    reachesAmount: ({ context, event }) =>
      event.type === 'deposit' &&
      !context.deposits.some((d) => d.txId === event.txId) &&
      sum(context.deposits) + event.amount >= context.route.amountIn,
    newDeposit: ({ context, event }) => event.type === 'deposit' && !context.deposits.some((d) => d.txId === event.txId),
    /** A deposit not seen before, or a known one with more confirmations; repeats change nothing (at-least-once delivery). */
    depositNews: ({ context, event }) =>
      event.type === 'deposit' && !context.deposits.some((d) => d.txId === event.txId && d.confirmations >= event.confirmations),
    /** A vanished deposit the order can drop (see `vanishable`). */
    depositVanishes: ({ context, event }) => event.type === 'deposit.vanished' && vanishable(context, event.txId),
    /** ... and none is left. */
    vanishLeavesNothing: ({ context, event }) =>
      event.type === 'deposit.vanished' && vanishable(context, event.txId) && withoutDeposit(context, event.txId).length === 0,
    /** ... and those left fall short of the amount. */
    vanishLeavesTooLittle: ({ context, event }) =>
      event.type === 'deposit.vanished' && vanishable(context, event.txId) && sum(withoutDeposit(context, event.txId)) < context.route.amountIn,
    /** A vanished deposit the order already spent or refunded (or is refunding): its books cannot follow the chain. */
    spentDepositVanished: ({ context, event }) =>
      event.type === 'deposit.vanished' && context.deposits.some((d) => d.txId === event.txId) && !vanishable(context, event.txId),
    /** The durable cancel is due by this wake-up, or by the time this deposit arrives (see `dueBy`). */
    cancelDue: ({ context, event }) => dueBy(event) && context.terms.cancelAfter !== null && event.at >= context.terms.cancelAfter,
    slippageGuarded: ({ context, event }) =>
      context.terms.minOut !== null && 'output' in event && (event.output as StepResult).status === 'halted' && (event.output as { shortfall?: boolean }).shortfall === true,
    belowMinOut: ({ context }) =>
      context.terms.minOut !== null && context.legs.at(-1)!.amountOut - context.route.delivery.executionCost < context.terms.minOut,
    /** The deposit deadline has passed by this wake-up, or by the time this deposit arrives (see `dueBy`). */
    deadlinePassed: ({ context, event }) => dueBy(event) && event.at >= context.depositDeadline,
    retryDue: ({ context, event }) => event.type === 'wake' && context.retryAt !== null && event.at >= context.retryAt,
    stepUnsettled: ({ event }) => 'output' in event && (event.output as StepResult).status === 'unsettled',
    refundRetryDue: ({ context, event }) => event.type === 'wake' && context.refundRetryAt !== null && event.at >= context.refundRetryAt,
    overLimit: ({ context }) => context.policy.maxAmountIn !== null && sum(context.deposits) > context.policy.maxAmountIn,
    allConfirmed: ({ context }) => context.deposits.length > 0 && context.deposits.every(confirmed),
    /** Nothing converted yet: the funds are still the deposits, at the deposit address. */
    nothingConverted: ({ context }) => context.legs.length === 0,
    refundOwed: ({ context }) => nextRefund(context) !== null,
    nothingOwed: ({ context }) => context.paying === null && nextRefund(context) === null,
  },
  actions: {
    /** One place records history: every state with a Family A status enters here with it. */
    mark: assign(({ context, event }, params: { status: OrderStatus }) =>
      context.history.at(-1)?.status === params.status
        ? {}
        : { history: [...context.history, { status: params.status, at: eventAt(context, event) }] },
    ),
    markTerminal: assign(({ context, event }) => ({ terminalAt: context.terminalAt ?? eventAt(context, event) })),
    recordDeposit: assign(({ context, event }) => {
      const e = event as DepositEvent;
      const known = context.deposits.find((d) => d.txId === e.txId);
      const deposits = known
        ? context.deposits.map((d) => (d.txId === e.txId ? { ...d, confirmations: Math.max(d.confirmations, e.confirmations), required: e.required } : d))
        : [
            ...context.deposits,
            {
              txId: e.txId, from: e.from, amount: e.amount, confirmations: e.confirmations, required: e.required, at: e.at,
              late: context.phase !== 'open', spent: 0n, refunded: 0n, ...(e.fromRouter ? { fromRouter: true } : {}),
            },
          ];
      return { deposits, refundAddress: shownRefundAddress(context, deposits) };
    }),
    /** A reorg removed the deposit: it leaves the records, and the refund address shown follows the deposits left. */
    removeDeposit: assign(({ context, event }) => {
      const deposits = withoutDeposit(context, (event as DepositVanishedEvent).txId);
      return { deposits, refundAddress: shownRefundAddress(context, deposits) };
    }),
    /** A deposit spent or refunded cannot vanish at the depths the order waits for (execution and refunds wait for
     *  the chain's required confirmations): should one, the order keeps its records as they are (what left the
     *  deposit address did leave it) and names the deposit for an operator, who reconciles it with the chain. */
    recordSpentVanished: assign(({ event }) => ({
      haltReason: `Deposit ${(event as DepositVanishedEvent).txId} vanished from its chain in a reorg after it was spent or refunded; an operator must reconcile it.`,
    })),
    commit: assign(({ context }) => ({ phase: 'committed' as const, deposits: allocate(context, context.terms.maxIn ?? context.route.amountIn) })),
    /** Delivered: input held beyond what the route used (exact output) is free, and the refunds region pays it back. */
    releaseUnused: assign(({ context }) => ({ deposits: allocate(context, context.route.amountIn) })),
    /** A step whose money moved in part: retried however often, since it cannot stall as if nothing had moved; the
     *  backoff doubles up to `maxAttempts` doublings (the count stops there, so it never grows without bound). */
    retryLater: assign(({ context, event }) => {
      const o = 'output' in event ? (event.output as StepResult) : null;
      if (o?.status !== 'unsettled') return {};
      const attempt = Math.min(context.attempt, context.policy.maxAttempts);
      return { partMoved: true, attempt: Math.min(attempt + 1, context.policy.maxAttempts), lastError: o.error, retryAt: o.at + Math.min(context.policy.backoffMs * 2 ** attempt, BACKOFF_CAP_MS) };
    }),
    /** The order ends without (further) executing: nothing of any deposit is spent any more, all of it is free. */
    close: assign(({ context }, params: { reason: CloseReason | null }) => ({
      phase: 'closed' as const,
      closeReason: params.reason,
      deposits: context.deposits.map((d) => ({ ...d, spent: 0n })),
    })),
  },
}).createMachine({
  id: 'order',
  type: 'parallel',
  context: ({ input }) => ({
    ...input,
    depositDeadline: input.createdAt + DEPOSIT_WINDOW_MS,
    vault: input.vault ?? null,
    givenRefundAddress: input.refundAddress,
    deposits: [],
    phase: 'open',
    closeReason: null,
    step: 0,
    legs: [],
    attempt: 0,
    retryAt: null,
    lastError: null,
    haltReason: null,
    delivery: null,
    refundQueue: [],
    paying: null,
    refundAttempt: 0,
    refundRetryAt: null,
    refundError: null,
    refunds: [],
    terminalAt: null,
    unwind: null,
    unwindReason: 'unwind',
    history: [],
  }),
  states: {
    lifecycle: {
      initial: 'opening',
      // Any state without a handler of its own records a deposit (late ones are refunded by the refunds region), and
      // drops a vanished one nothing was spent or refunded from (a late one is then never refunded).
      on: {
        deposit: { guard: 'depositNews', actions: 'recordDeposit' },
        'deposit.vanished': [
          { guard: 'depositVanishes', actions: 'removeDeposit' },
          { guard: 'spentDepositVanished', actions: 'recordSpentVanished' },
        ],
      },
      states: {
        /** Issuing the deposit address; the creation reply waits for it. An order created with its vault passes
         *  straight through, so its first snapshot already awaits the deposit. */
        opening: {
          tags: ['awaiting_deposit', EFFECT],
          always: { guard: ({ context }) => context.vault !== null, target: 'awaiting_deposit' },
          invoke: {
            src: ORDER_EFFECTS.issueVault,
            input: ({ context }) => ({ orderId: context.id, chain: context.sourceChain, asset: context.route.from }),
            onDone: { target: 'awaiting_deposit', actions: assign({ vault: ({ event }) => event.output.vault }) },
          },
        },
        awaiting_deposit: {
          tags: ['awaiting_deposit'],
          entry: { type: 'mark', params: { status: 'awaiting_deposit' } },
          on: {
            deposit: [
              ...onDeposit(AWAITING_ENDS),
              { guard: 'reachesAmount', target: 'funded', actions: 'recordDeposit' },
              { guard: 'newDeposit', target: 'underfunded', actions: 'recordDeposit' },
            ],
            wake: onWake(AWAITING_ENDS),
            unwind: { target: 'refunded', actions: { type: 'close', params: { reason: 'cancelled' } } },
          },
        },
        /** Less than from_amount arrived: top-ups are watched until the deadline; then what arrived is refunded. */
        underfunded: {
          tags: ['underfunded'],
          entry: { type: 'mark', params: { status: 'underfunded' } },
          on: {
            deposit: [
              ...onDeposit(UNDERFUNDED_ENDS),
              { guard: 'reachesAmount', target: 'funded', actions: 'recordDeposit' },
              { guard: 'depositNews', actions: 'recordDeposit' },
            ],
            'deposit.vanished': [
              { guard: 'vanishLeavesNothing', target: 'awaiting_deposit', actions: 'removeDeposit' },
              { guard: 'depositVanishes', actions: 'removeDeposit' },
            ],
            wake: onWake(UNDERFUNDED_ENDS),
            unwind: { target: 'refunding.cancelled', actions: { type: 'close', params: { reason: 'cancelled' } } },
          },
        },
        /** The full amount has been seen; execution starts once every deposit has its confirmations. An amount over the
         *  operator's limit halts here (frozen). */
        funded: {
          tags: ['funded'],
          entry: { type: 'mark', params: { status: 'funded' } },
          on: {
            // A reorg took a deposit before execution started: back to waiting for the amount.
            'deposit.vanished': [
              { guard: 'vanishLeavesNothing', target: 'awaiting_deposit', actions: 'removeDeposit' },
              { guard: 'vanishLeavesTooLittle', target: 'underfunded', actions: 'removeDeposit' },
              { guard: 'depositVanishes', actions: 'removeDeposit' },
            ],
            unwind: { target: 'refunding.cancelled', actions: { type: 'close', params: { reason: 'cancelled' } } },
            wake: onWake(FUNDED_ENDS),
            // A deposit (confirmations, or another one) that does not end the wait falls through to the lifecycle's.
            deposit: onDeposit(FUNDED_ENDS),
          },
          always: [
            {
              guard: 'overLimit',
              target: 'frozen',
              actions: assign({ haltReason: ({ context }) => `The deposit exceeds the configured limit of ${context.policy.maxAmountIn} base units.` }),
            },
            { guard: 'allConfirmed', target: 'executing', actions: 'commit' },
          ],
        },
        executing: {
          tags: ['executing'],
          entry: { type: 'mark', params: { status: 'executing' } },
          initial: 'step',
          states: {
            step: {
              tags: [EFFECT],
              invoke: {
                src: ORDER_EFFECTS.executeStep,
                input: ({ context }) => stepInput(context),
                onDone: [
                  {
                    guard: ({ event }) => event.output.status === 'filled',
                    target: 'next',
                    actions: assign(({ context, event }) => ({
                      legs: [...context.legs, filledLeg(context, event.output, false)],
                      step: context.step + 1,
                      ...STEP_SETTLED,
                    })),
                  },
                  {
                    guard: and(['slippageGuarded', 'nothingConverted']),
                    target: '#order.lifecycle.refunding.slippage',
                    actions: [
                      assign({ haltReason: ({ event }) => `Slippage guard: ${(event.output as Extract<StepResult, { status: 'halted' }>).reason}` }),
                      { type: 'close', params: { reason: 'slippage' } },
                    ],
                  },
                  {
                    guard: 'slippageGuarded',
                    target: '#order.lifecycle.unwinding',
                    actions: assign({
                      haltReason: ({ event }) => `Slippage guard: ${(event.output as Extract<StepResult, { status: 'halted' }>).reason}`,
                      unwindReason: 'slippage' as const,
                    }),
                  },
                  {
                    guard: ({ event }) => event.output.status === 'halted',
                    target: '#order.lifecycle.frozen',
                    actions: assign({ haltReason: ({ event }) => (event.output as Extract<StepResult, { status: 'halted' }>).reason }),
                  },
                  { guard: 'stepUnsettled', target: 'backoff', actions: 'retryLater' },
                  {
                    guard: ({ context }) => context.attempt + 1 >= context.policy.maxAttempts,
                    target: '#order.lifecycle.stalled',
                    actions: assign({
                      attempt: ({ context }) => context.attempt + 1,
                      lastError: ({ event }) => (event.output as Extract<StepResult, { status: 'failed' }>).error,
                    }),
                  },
                  {
                    target: 'backoff',
                    actions: assign({
                      attempt: ({ context }) => context.attempt + 1,
                      lastError: ({ event }) => (event.output as Extract<StepResult, { status: 'failed' }>).error,
                      retryAt: ({ context, event }) => event.output.at + context.policy.backoffMs * 2 ** context.attempt,
                    }),
                  },
                ],
              },
            },
            /** Waiting for a durable retry timer (orderWakeUp), not an in-memory delay. */
            backoff: {
              on: { wake: { guard: 'retryDue', target: 'next', actions: assign({ retryAt: null }) } },
            },
            next: {
              always: [
                { guard: ({ context }) => context.step < context.route.steps.length, target: 'step' },
                {
                  guard: 'belowMinOut',
                  target: '#order.lifecycle.unwinding',
                  actions: assign({ haltReason: 'Slippage guard: the route returned less than minOut.', unwindReason: 'slippage' as const }),
                },
                { target: 'delivering' },
              ],
            },
            delivering: {
              tags: [EFFECT],
              invoke: {
                src: ORDER_EFFECTS.deliver,
                input: ({ context }) => ({
                  orderId: context.id,
                  asset: context.route.to,
                  amountIn: context.legs.at(-1)!.amountOut,
                  cost: deliveryCostOf(context),
                  to: context.toAddress,
                  holder: holdingAccount(context.id),
                }),
                onDone: [
                  {
                    guard: ({ event }) => event.output.status === 'delivered',
                    target: '#order.lifecycle.delivered',
                    actions: assign(({ context, event }) => {
                      const o = event.output as Extract<DeliverResult, { status: 'delivered' }>;
                      const amountIn = context.legs.at(-1)!.amountOut;
                      return {
                        delivery: { asset: context.route.to, amountIn, cost: o.cost, amountOut: o.amountOut, to: context.toAddress, txId: o.txId, at: o.at },
                        attempt: 0,
                        lastError: null,
                      };
                    }),
                  },
                  {
                    target: 'backoff',
                    actions: assign({
                      attempt: ({ context }) => context.attempt + 1,
                      lastError: ({ event }) => (event.output as Extract<DeliverResult, { status: 'failed' }>).error,
                      retryAt: ({ context, event }) => event.output.at + Math.min(context.policy.backoffMs * 2 ** context.attempt, BACKOFF_CAP_MS),
                    }),
                  },
                ],
              },
            },
          },
        },
        delivered: { tags: ['delivered'], entry: [{ type: 'mark', params: { status: 'delivered' } }, 'markTerminal', 'releaseUnused'] },
        /** The deadline passed with nothing deposited. */
        expired: { tags: ['expired'], entry: [{ type: 'mark', params: { status: 'expired' } }, 'markTerminal'] },
        /** The order closed without executing, or its converted funds came back: paying back what it holds. */
        refunding: {
          // Always entered at a child naming why; the initial one only satisfies XState.
          initial: 'cancelled',
          states: {
            underfunded: { tags: ['underfunded'], entry: { type: 'mark', params: { status: 'underfunded' } } },
            cancelled: { tags: ['expired'], entry: { type: 'mark', params: { status: 'expired' } } },
            unwind: { tags: ['executing'], entry: { type: 'mark', params: { status: 'executing' } } },
            slippage: { tags: ['executing'], entry: { type: 'mark', params: { status: 'executing' } } },
          },
          always: { guard: 'nothingOwed', target: 'refunded' },
        },
        /** Everything the order held has been paid back; deposits arriving later are refunded as they confirm. */
        refunded: { tags: ['expired'], entry: [{ type: 'mark', params: { status: 'expired' } }, 'markTerminal'] },
        /** A step kept failing after its retries; an operator must act (or unwind the order). */
        stalled: {
          tags: ['stalled'],
          entry: { type: 'mark', params: { status: 'stalled' } },
          on: { unwind: UNWIND_FROM_HALT },
        },
        /** A policy halt (a venue halted, a re-priced step short of the quote beyond tolerance, an amount over the
         *  limit) or an unwind that could not finish: an operator must act (or unwind the order). */
        frozen: {
          tags: ['frozen'],
          entry: { type: 'mark', params: { status: 'frozen' } },
          on: { unwind: UNWIND_FROM_HALT },
        },
        /** Swapping converted funds back to the source asset through the router's own quoting, then refunding them. */
        unwinding: {
          tags: ['executing'],
          entry: [
            { type: 'mark', params: { status: 'executing' } },
            assign({
              unwind: { route: null, step: 0 },
              haltReason: ({ context }) => (context.unwindReason === 'slippage' ? context.haltReason : null),
              lastError: null,
              attempt: 0,
            }),
          ],
          initial: 'deciding',
          states: {
            deciding: {
              always: [
                { guard: ({ context }) => context.legs.at(-1)!.to === context.route.from, target: 'returned' },
                { target: 'quoting' },
              ],
            },
            quoting: {
              tags: [EFFECT],
              invoke: {
                src: ORDER_EFFECTS.quoteBack,
                input: ({ context }) => ({
                  orderId: context.id,
                  from: context.legs.at(-1)!.to,
                  to: context.route.from,
                  amountIn: context.legs.at(-1)!.amountOut,
                  allowlist: context.allowlist,
                  blocklist: context.blocklist,
                }),
                onDone: [
                  {
                    guard: ({ event }) => event.output.route === null,
                    target: '#order.lifecycle.frozen',
                    actions: assign({
                      haltReason: ({ context, event }) => `No route back to ${context.route.from}: ${event.output.error ?? 'nothing quoted'}`,
                      unwind: null,
                    }),
                  },
                  { target: 'swapping', actions: assign({ unwind: ({ event }) => ({ route: event.output.route, step: 0 }) }) },
                ],
              },
            },
            swapping: {
              tags: [EFFECT],
              invoke: {
                src: ORDER_EFFECTS.executeStep,
                input: ({ context }) => stepInput(context),
                onDone: [
                  {
                    guard: ({ event }) => event.output.status === 'filled',
                    target: 'next',
                    actions: assign(({ context, event }) => ({
                      legs: [...context.legs, filledLeg(context, event.output, true)],
                      unwind: { ...context.unwind!, step: context.unwind!.step + 1 },
                      ...STEP_SETTLED,
                    })),
                  },
                  { guard: 'stepUnsettled', target: 'backoff', actions: 'retryLater' },
                  {
                    target: '#order.lifecycle.frozen',
                    actions: assign({
                      haltReason: ({ event }) => {
                        const o = event.output as Exclude<StepResult, { status: 'filled' }>;
                        return `Unwinding stopped: ${o.status === 'halted' ? o.reason : o.error}`;
                      },
                      unwind: null,
                    }),
                  },
                ],
              },
            },
            /** A swap back whose money moved in part waits for a durable retry, as a route step does. */
            backoff: {
              on: { wake: { guard: 'retryDue', target: 'swapping', actions: assign({ retryAt: null }) } },
            },
            next: {
              always: [
                { guard: ({ context }) => context.unwind!.step < context.unwind!.route!.steps.length, target: 'swapping' },
                { target: 'returned' },
              ],
            },
            /** The funds are back in the source asset in the holding account: they become refunds. */
            returned: {
              always: {
                target: '#order.lifecycle.refunding.unwind',
                actions: assign(({ context }) => ({
                  phase: 'closed' as const,
                  closeReason: context.unwindReason,
                  refundQueue: [...context.refundQueue, ...proceedsRefunds(context, context.legs.at(-1)!.amountOut)],
                  // Input held beyond what the route took (exact output) never left the deposits: it is free again.
                  deposits: allocate(context, context.route.amountIn),
                })),
              },
            },
          },
        },
      },
    },
    /** The one refund path: pays the next refund owed, whatever its reason, one at a time, retrying failures. */
    refunds: {
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'refundOwed', target: 'paying', actions: assign({ paying: ({ context }) => nextRefund(context) }) },
        },
        paying: {
          tags: [EFFECT],
          invoke: {
            src: ORDER_EFFECTS.refund,
            input: ({ context }) => context.paying!,
            onDone: [
              {
                guard: ({ event }) => event.output.status === 'paid',
                target: 'idle',
                actions: assign(({ context, event }) => {
                  const p = context.paying!;
                  const o = event.output as Extract<RefundResult, { status: 'paid' }>;
                  const record: RefundRecord = { ...p, sent: p.amount - p.cost, txId: o.txId, at: o.at };
                  return {
                    refunds: [...context.refunds, record],
                    refundQueue: context.refundQueue.filter((q) => q.key !== p.key),
                    deposits: context.deposits.map((d) => (d.txId === p.depositTxId ? { ...d, refunded: d.refunded + p.amount } : d)),
                    paying: null,
                    refundAttempt: 0,
                    refundError: null,
                  };
                }),
              },
              {
                target: 'backoff',
                actions: assign({
                  refundAttempt: ({ context }) => context.refundAttempt + 1,
                  refundError: ({ event }) => (event.output as Extract<RefundResult, { status: 'failed' }>).error,
                  refundRetryAt: ({ context, event }) =>
                    event.output.at + Math.min(context.policy.backoffMs * 2 ** context.refundAttempt, BACKOFF_CAP_MS),
                }),
              },
            ],
          },
        },
        backoff: {
          on: { wake: { guard: 'refundRetryDue', target: 'paying', actions: assign({ refundRetryAt: null }) } },
        },
      },
    },
  },
});

export type OrderMachine = typeof orderMachine;
export type OrderSnapshot = SnapshotFrom<OrderMachine>;

/** The Family A status of a snapshot: the one status tag of its lifecycle state. */
export function orderStatus(snapshot: { hasTag(tag: string): boolean }): OrderStatus {
  const status = ORDER_STATUSES.find((s) => snapshot.hasTag(s));
  if (!status) throw new Error('An order state without a status tag.');
  return status;
}

/** The next durable wake-up of an order, derived from its snapshot (long waits are durable, not XState `after`):
 *  at once while an effect is in flight (so a crash or a passivation brings it back), else the earliest wait. */
export function orderWakeUp(snapshot: { hasTag(tag: string): boolean; matches(v: never): boolean; context: OrderContext }): { at: number; event(now: number): OrderEvent } | null {
  const ctx = snapshot.context;
  const event = (now: number): OrderEvent => ({ type: 'wake', at: now });
  if (snapshot.hasTag(EFFECT)) return { at: 0, event };
  const matches = (v: unknown) => snapshot.matches(v as never);
  const waits: number[] = [];
  if (matches({ lifecycle: 'awaiting_deposit' }) || matches({ lifecycle: 'underfunded' })) waits.push(ctx.depositDeadline);
  const cancellable = matches({ lifecycle: 'awaiting_deposit' }) || matches({ lifecycle: 'underfunded' }) || matches({ lifecycle: 'funded' });
  if (cancellable && ctx.terms.cancelAfter !== null) waits.push(ctx.terms.cancelAfter);
  const retrying = matches({ lifecycle: { executing: 'backoff' } }) || matches({ lifecycle: { unwinding: 'backoff' } });
  if (retrying && ctx.retryAt !== null) waits.push(ctx.retryAt);
  if (matches({ refunds: 'backoff' }) && ctx.refundRetryAt !== null) waits.push(ctx.refundRetryAt);
  return waits.length === 0 ? null : { at: Math.min(...waits), event };
}
