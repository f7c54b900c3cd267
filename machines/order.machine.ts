// An order as a statechart, from deposit address to delivery or refund. Pure: vault issuing, venue steps,
// delivery and refunds are named effects the runtime provides; every effect answers a tagged result with the
// instant it finished (effects never throw), and time otherwise comes with events. Long waits (deposit deadline,
// retry backoff) are exposed as data by `orderWakeUp`, never as XState `after`, so they survive restarts.
import { assign, fromPromise, setup } from 'xstate';
import type { AmountFormat, AssetId, ChainName } from '../src/assets/types.js';
import type { PricedRoute } from '../src/routing/types.js';
import type { VenueId } from '../src/venues/types.js';

export const DEPOSIT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

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
  refundAddress: string | null;
  createdAt: number;
  policy: OrderPolicy;
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

export interface SeenDeposit {
  txId: string;
  from: string;
  amount: bigint;
  confirmations: number;
  /** Confirmations the source chain needs before the deposit is spent. */
  required: number;
}

export interface Leg {
  index: number;
  venue: VenueId;
  amountIn: bigint;
  amountOut: bigint;
  txId: string;
}

export interface Refund {
  amount: bigint;
  to: string;
  txId: string;
  reason: 'underfunded' | 'excess';
}

export type OrderStatus =
  | 'awaiting_deposit' | 'funded' | 'underfunded' | 'expired' | 'executing' | 'delivered' | 'stalled' | 'frozen';

export interface OrderContext extends OrderInput {
  depositDeadline: number;
  vault: OrderVault | null;
  deposits: SeenDeposit[];
  received: bigint;
  /** Index of the next step to run. */
  step: number;
  legs: Leg[];
  attempt: number;
  retryAt: number | null;
  lastError: string | null;
  haltReason: string | null;
  amountOut: bigint | null;
  deliveryTxId: string | null;
  refunds: Refund[];
  history: Array<{ status: OrderStatus; at: number }>;
}

export type DepositEvent = { type: 'deposit'; txId: string; from: string; amount: bigint; confirmations: number; required: number; at: number };
export type OrderEvent =
  | DepositEvent
  | { type: 'deposit.deadline' }
  | { type: 'retry.due' }
  /** Sent by the host's wake-up to an order whose effect was running when its process died; restoring the snapshot
   *  restarts the effect (keyed, so it runs once), the event itself changes nothing. */
  | { type: 'resume' };

export type StepResult =
  | { status: 'filled'; amountOut: bigint; txId: string; at: number }
  | { status: 'halted'; reason: string; at: number }
  | { status: 'failed'; error: string; at: number };

export interface StepInput {
  orderId: string;
  index: number;
  venue: VenueId;
  from: AssetId;
  to: AssetId;
  /** Amount at hand entering the step (the deposit's quoted amount, or the previous leg's output). */
  stepAmountIn: bigint;
  /** Quoted execution cost of the step, paid from the amount at hand. */
  cost: bigint;
  /** The least the venue may return: the quoted venue output less the tolerance. */
  minAmountOut: bigint;
  /** Where the amount at hand sits: the deposit address for step 0, else the order's holding account. */
  holder: string;
  sourceChain: ChainName;
}

export interface TransferResult {
  txId: string;
  at: number;
}

export const ORDER_EFFECTS = { issueVault: 'issueVault', executeStep: 'executeStep', deliver: 'deliver', refund: 'refund' } as const;

export interface DeliverInput {
  orderId: string;
  asset: AssetId;
  amountIn: bigint;
  cost: bigint;
  to: string;
  holder: string;
}

export interface RefundInput {
  orderId: string;
  asset: AssetId;
  chain: ChainName;
  from: string;
  to: string;
  amount: bigint;
  reason: Refund['reason'];
}

const total = (ds: SeenDeposit[]) => ds.reduce((s, d) => s + d.amount, 0n);
const mark = (ctx: OrderContext, status: OrderStatus, at: number) => [...ctx.history, { status, at }];

/** Where the order's money sits between steps (an internal account of the router on that chain). */
export const holdingAccount = (orderId: string) => `order:${orderId}`;

function stepInput(ctx: OrderContext): StepInput {
  const s = ctx.route.steps[ctx.step]!;
  const stepAmountIn = ctx.step === 0 ? ctx.route.amountIn : ctx.legs[ctx.step - 1]!.amountOut;
  const cost = s.stepAmountIn - s.venueAmountIn;
  const minAmountOut = (s.venueAmountOut * BigInt(10_000 - ctx.policy.shortfallToleranceBps)) / 10_000n;
  return {
    orderId: ctx.id,
    index: ctx.step,
    venue: s.venue,
    from: s.from,
    to: s.to,
    stepAmountIn,
    cost,
    minAmountOut,
    holder: ctx.step === 0 ? ctx.vault!.address : holdingAccount(ctx.id),
    sourceChain: ctx.sourceChain,
  };
}

/** A refund from the deposit address back to the refund address (the sender when none was given). */
function refundInput(ctx: OrderContext, amount: bigint, reason: Refund['reason']): RefundInput {
  return {
    orderId: ctx.id,
    asset: ctx.route.from,
    chain: ctx.sourceChain,
    from: ctx.vault!.address,
    to: ctx.refundAddress!,
    amount,
    reason,
  };
}

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
    [ORDER_EFFECTS.deliver]: fromPromise<TransferResult & { amountOut: bigint }, DeliverInput>(async () => {
      throw new Error('provided by the runtime');
    }),
    [ORDER_EFFECTS.refund]: fromPromise<TransferResult, RefundInput>(async () => {
      throw new Error('provided by the runtime');
    }),
  },
  guards: {
    newDeposit: ({ context, event }) =>
      event.type === 'deposit' && !context.deposits.some((d) => d.txId === event.txId),
    reachesAmount: ({ context, event }) =>
      event.type === 'deposit' &&
      !context.deposits.some((d) => d.txId === event.txId) &&
      total(context.deposits) + event.amount >= context.route.amountIn,
    /** A deposit not seen before, or a known one with more confirmations; repeats change nothing (at-least-once delivery). */
    depositNews: ({ context, event }) =>
      event.type === 'deposit' &&
      !context.deposits.some((d) => d.txId === event.txId && d.confirmations >= event.confirmations),
    overLimit: ({ context }) => context.policy.maxAmountIn !== null && context.received > context.policy.maxAmountIn,
    allConfirmed: ({ context }) => context.deposits.length > 0 && context.deposits.every((d) => d.confirmations >= d.required),
    hasReceived: ({ context }) => context.received > 0n,
    hasExcess: ({ context }) => context.received > context.route.amountIn,
  },
  actions: {
    recordDeposit: assign(({ context, event }) => {
      const e = event as DepositEvent;
      const seen = { txId: e.txId, from: e.from, amount: e.amount, confirmations: e.confirmations, required: e.required };
      const known = context.deposits.some((d) => d.txId === e.txId);
      const deposits = known ? context.deposits.map((d) => (d.txId === e.txId ? seen : d)) : [...context.deposits, seen];
      // A null refund address becomes the sender of the first deposit (spec 2.5).
      return { deposits, received: total(deposits), refundAddress: context.refundAddress ?? e.from };
    }),
  },
}).createMachine({
  id: 'order',
  context: ({ input }) => ({
    ...input,
    depositDeadline: input.createdAt + DEPOSIT_WINDOW_MS,
    vault: null,
    deposits: [],
    received: 0n,
    step: 0,
    legs: [],
    attempt: 0,
    retryAt: null,
    lastError: null,
    haltReason: null,
    amountOut: null,
    deliveryTxId: null,
    refunds: [],
    history: [],
  }),
  initial: 'opening',
  states: {
    /** Issuing the deposit address; the creation reply waits for it. */
    opening: {
      invoke: {
        src: ORDER_EFFECTS.issueVault,
        input: ({ context }) => ({ orderId: context.id, chain: context.sourceChain, asset: context.route.from }),
        onDone: {
          target: 'awaiting_deposit',
          actions: assign({
            vault: ({ event }) => event.output.vault,
            history: ({ context }) => mark(context, 'awaiting_deposit', context.createdAt),
          }),
        },
      },
    },
    awaiting_deposit: {
      on: {
        deposit: [
          {
            guard: 'reachesAmount',
            target: 'funded',
            actions: ['recordDeposit', assign({ history: ({ context, event }) => mark(context, 'funded', (event as DepositEvent).at) })],
          },
          {
            guard: 'newDeposit',
            target: 'underfunded',
            actions: ['recordDeposit', assign({ history: ({ context, event }) => mark(context, 'underfunded', (event as DepositEvent).at) })],
          },
        ],
        'deposit.deadline': {
          target: 'expired',
          actions: assign({ history: ({ context }) => mark(context, 'expired', context.depositDeadline) }),
        },
      },
    },
    /** Less than from_amount arrived: top-ups are watched until the deadline; at the deadline what arrived is refunded. */
    underfunded: {
      on: {
        deposit: [
          {
            guard: 'reachesAmount',
            target: 'funded',
            actions: ['recordDeposit', assign({ history: ({ context, event }) => mark(context, 'funded', (event as DepositEvent).at) })],
          },
          { guard: 'depositNews', actions: 'recordDeposit' },
        ],
        'deposit.deadline': 'refunding_underfunded',
      },
    },
    refunding_underfunded: {
      invoke: {
        src: ORDER_EFFECTS.refund,
        input: ({ context }) => refundInput(context, context.received, 'underfunded'),
        onDone: {
          target: 'expired',
          actions: assign({
            refunds: ({ context, event }) => [
              ...context.refunds,
              { amount: context.received, to: context.refundAddress!, txId: event.output.txId, reason: 'underfunded' as const },
            ],
            history: ({ context, event }) => mark(context, 'expired', event.output.at),
          }),
        },
      },
    },
    /** The full amount has been seen; execution starts once every deposit has its confirmations. An amount over the
     *  operator's limit halts here (frozen). */
    funded: {
      on: { deposit: { guard: 'depositNews', actions: 'recordDeposit' } },
      always: [
        {
          guard: 'overLimit',
          target: 'frozen',
          actions: assign({
            haltReason: ({ context }) => `The deposit exceeds the configured limit of ${context.policy.maxAmountIn} base units.`,
            history: ({ context }) => mark(context, 'frozen', context.history.at(-1)!.at),
          }),
        },
        {
          guard: 'allConfirmed',
          target: 'executing',
          actions: assign({ history: ({ context }) => mark(context, 'executing', context.history.at(-1)!.at) }),
        },
      ],
    },
    executing: {
      initial: 'step',
      states: {
        step: {
          invoke: {
            src: ORDER_EFFECTS.executeStep,
            input: ({ context }) => stepInput(context),
            onDone: [
              {
                guard: ({ event }) => event.output.status === 'filled',
                target: 'next',
                actions: assign({
                  legs: ({ context, event }) => {
                    const o = event.output as Extract<StepResult, { status: 'filled' }>;
                    const s = stepInput(context);
                    return [...context.legs, { index: s.index, venue: s.venue, amountIn: s.stepAmountIn, amountOut: o.amountOut, txId: o.txId }];
                  },
                  step: ({ context }) => context.step + 1,
                  attempt: 0,
                  retryAt: null,
                  lastError: null,
                }),
              },
              {
                guard: ({ event }) => event.output.status === 'halted',
                target: '#order.frozen',
                actions: assign({
                  haltReason: ({ event }) => (event.output as Extract<StepResult, { status: 'halted' }>).reason,
                  history: ({ context, event }) => mark(context, 'frozen', event.output.at),
                }),
              },
              {
                guard: ({ context }) => context.attempt + 1 >= context.policy.maxAttempts,
                target: '#order.stalled',
                actions: assign({
                  attempt: ({ context }) => context.attempt + 1,
                  lastError: ({ event }) => (event.output as Extract<StepResult, { status: 'failed' }>).error,
                  history: ({ context, event }) => mark(context, 'stalled', event.output.at),
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
          on: { 'retry.due': { target: 'step', actions: assign({ retryAt: null }) } },
        },
        next: {
          always: [{ guard: ({ context }) => context.step < context.route.steps.length, target: 'step' }, { target: 'delivering' }],
        },
        delivering: {
          invoke: {
            src: ORDER_EFFECTS.deliver,
            input: ({ context }) => ({
              orderId: context.id,
              asset: context.route.to,
              amountIn: context.legs.at(-1)!.amountOut,
              cost: context.route.delivery.executionCost,
              to: context.toAddress,
              holder: holdingAccount(context.id),
            }),
            onDone: [
              {
                guard: 'hasExcess',
                target: 'refunding_excess',
                actions: assign({
                  amountOut: ({ event }) => event.output.amountOut,
                  deliveryTxId: ({ event }) => event.output.txId,
                }),
              },
              {
                target: '#order.delivered',
                actions: assign({
                  amountOut: ({ event }) => event.output.amountOut,
                  deliveryTxId: ({ event }) => event.output.txId,
                  history: ({ context, event }) => mark(context, 'delivered', event.output.at),
                }),
              },
            ],
          },
        },
        /** Overpayment: the quoted amount was executed; the excess goes back to the refund address. */
        refunding_excess: {
          invoke: {
            src: ORDER_EFFECTS.refund,
            input: ({ context }) => refundInput(context, context.received - context.route.amountIn, 'excess'),
            onDone: {
              target: '#order.delivered',
              actions: assign({
                refunds: ({ context, event }) => [
                  ...context.refunds,
                  { amount: context.received - context.route.amountIn, to: context.refundAddress!, txId: event.output.txId, reason: 'excess' as const },
                ],
                history: ({ context, event }) => mark(context, 'delivered', event.output.at),
              }),
            },
          },
        },
      },
    },
    delivered: { type: 'final' },
    expired: { type: 'final' },
    /** A step kept failing after its retries; an operator must act (admin issue). */
    stalled: {},
    /** A policy halt: a venue halted, a re-priced step short of the quote beyond tolerance, or an amount over the limit. */
    frozen: {},
  },
});

export type OrderMachine = typeof orderMachine;

/** The Family A status of a snapshot value. */
export function orderStatus(value: unknown): OrderStatus {
  if (typeof value === 'object' && value !== null && 'executing' in value) return 'executing';
  switch (value) {
    case 'opening':
      return 'awaiting_deposit';
    case 'refunding_underfunded':
      return 'underfunded';
    default:
      return value as OrderStatus;
  }
}

/** The next durable wake-up of an order, derived from its snapshot (DESIGN.md: long waits are durable). */
export function orderWakeUp(value: unknown, ctx: OrderContext): { at: number; event: OrderEvent } | null {
  if (value === 'awaiting_deposit' || value === 'underfunded') return { at: ctx.depositDeadline, event: { type: 'deposit.deadline' } };
  const executing = typeof value === 'object' && value !== null ? (value as { executing?: string }).executing : undefined;
  if (executing === 'backoff' && ctx.retryAt !== null) return { at: ctx.retryAt, event: { type: 'retry.due' } };
  // An effect in flight is always due: after a crash or a passivation the host brings the order back and its effect
  // restarts. While the order is in memory the wake-up finds it busy and does nothing.
  if (value === 'opening' || value === 'refunding_underfunded' || executing === 'step' || executing === 'delivering' || executing === 'refunding_excess') {
    return { at: 0, event: { type: 'resume' } };
  }
  return null;
}
