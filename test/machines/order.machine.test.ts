// Paths of order.machine generated from its graph with xstate/graph; each is replayed against the actor host in
// alwaysReplay mode (the order restored from the store after every step, its effects real over fake chains and
// venues) and must rest in the state the graph says, with the Family A status of the spec and every unit named.
import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor, type AnyActorLogic, type EventObject } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  DEPOSIT_WINDOW_MS, nextRefund, orderMachine, orderStatus,
  type OrderContext, type OrderEvent, type OrderInput, type QuoteBackResult, type RefundResult, type StepResult,
} from '../../machines/order.machine.js';
import { ORDER_TERMS_A, type OrderStatus, type OrderTerms, type OrderView } from '../../src/orders/types.js';
import { encodeJson, roundTrip } from '../../src/store/codec.js';
import {
  DEFAULT_POLICY, HOST_START, REFUND_COST, expectOrderMoneyNamed, orderHost, routeBack, twoStepQuote, type OrderEffect, type OrderHost,
} from '../support/order-host.js';

const ID = 'o-graph';
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const QUOTE = twoStepQuote('q-graph');
const AMOUNT = QUOTE.route.amountIn;
// Two attempts make `stalled` one retry away; the limit sits between an overpayment and a double payment.
const POLICY = { ...DEFAULT_POLICY, maxAttempts: 2, maxAmountIn: (AMOUNT * 3n) / 2n };
const AT = HOST_START;

/** The Family A status of every lifecycle state, in the spec's words (README and http/README.md for our choices). */
const FAMILY_A: Record<string, OrderStatus> = {
  'lifecycle.opening': 'awaiting_deposit',
  'lifecycle.awaiting_deposit': 'awaiting_deposit',
  'lifecycle.underfunded': 'underfunded',
  'lifecycle.funded': 'funded',
  'lifecycle.executing.step': 'executing',
  'lifecycle.executing.backoff': 'executing',
  'lifecycle.executing.next': 'executing',
  'lifecycle.executing.delivering': 'executing',
  'lifecycle.delivered': 'delivered',
  'lifecycle.expired': 'expired',
  'lifecycle.refunding.underfunded': 'underfunded',
  'lifecycle.refunding.cancelled': 'expired',
  'lifecycle.refunding.unwind': 'executing',
  'lifecycle.refunding.slippage': 'executing',
  'lifecycle.refunded': 'expired',
  'lifecycle.stalled': 'stalled',
  'lifecycle.frozen': 'frozen',
  'lifecycle.unwinding.deciding': 'executing',
  'lifecycle.unwinding.quoting': 'executing',
  'lifecycle.unwinding.swapping': 'executing',
  'lifecycle.unwinding.backoff': 'executing',
  'lifecycle.unwinding.next': 'executing',
  'lifecycle.unwinding.returned': 'executing',
};
/** States no snapshot rests in: they only choose where to go within one macrostep. */
const TRANSIENT = ['lifecycle.executing.next', 'lifecycle.unwinding.deciding', 'lifecycle.unwinding.next', 'lifecycle.unwinding.returned'];

/** The id XState gives the effect invoked by a state, as its done events name it. */
const effectOf = (state: string): string => orderMachine.getStateNodeById(`order.${state}`).invoke[0]!.id;
const EFFECT = {
  opening: effectOf('lifecycle.opening'),
  step: effectOf('lifecycle.executing.step'),
  delivering: effectOf('lifecycle.executing.delivering'),
  quoting: effectOf('lifecycle.unwinding.quoting'),
  swapping: effectOf('lifecycle.unwinding.swapping'),
  paying: effectOf('refunds.paying'),
};
const done = (effect: string, output: unknown) => ({ type: `xstate.done.actor.${effect}`, output });
const deposit = (txId: string, amount: bigint, confirmations: number, at = AT) =>
  ({ type: 'deposit', txId, from: SENDER, amount, confirmations, required: 1, at }) as const;

const DEPOSITS = {
  full: deposit('tx-full', AMOUNT, 1),
  'full unconfirmed': deposit('tx-full', AMOUNT, 0),
  partial: deposit('tx-part', AMOUNT / 2n, 1),
  'partial unconfirmed': deposit('tx-part', AMOUNT / 2n, 0),
  'top-up': deposit('tx-top', AMOUNT / 2n, 1),
  overpayment: deposit('tx-over', AMOUNT + AMOUNT / 5n, 1),
  'over the limit': deposit('tx-big', 2n * AMOUNT, 1),
  extra: deposit('tx-extra', 5_000_000n, 1),
  // Told after the deposit deadline (and Family B's cancel) but before the wake-up that ends the wait: it funds nothing.
  'full, after the deadline': deposit('tx-after', AMOUNT, 1, AT + DEPOSIT_WINDOW_MS),
};
// A reorg removing a deposit's transaction, per deposit of DEPOSITS.
const VANISHED = Object.fromEntries(
  [...new Set(Object.values(DEPOSITS).map((d) => d.txId))].map((txId) => [txId, { type: 'deposit.vanished', txId, at: AT } satisfies OrderEvent]),
);
const BACK = routeBack(QUOTE.route.steps[1]!.from, QUOTE.route.from, AMOUNT);
const DONE = {
  'vault issued': done(EFFECT.opening, { vault: { vaultId: 'v-graph', chain: 'base', index: 0, address: '0x00000000000000000000000000000000deb00000' }, at: AT }),
  'step filled': done(EFFECT.step, { status: 'filled', amountOut: AMOUNT, txId: '0xfill', at: AT } satisfies StepResult),
  'step halted': done(EFFECT.step, { status: 'halted', reason: 'The venue is halted.', shortfall: false, at: AT } satisfies StepResult),
  'step failed': done(EFFECT.step, { status: 'failed', error: 'The venue did not answer.', at: AT } satisfies StepResult),
  'step unsettled': done(EFFECT.step, { status: 'unsettled', error: 'Step filled, and moving its money failed.', at: AT } satisfies StepResult),
  'step short': done(EFFECT.step, { status: 'halted', reason: 'The venue would return less than the least acceptable.', shortfall: true, at: AT } satisfies StepResult),
  'delivery made': done(EFFECT.delivering, { status: 'delivered', txId: '0xdeliver', amountOut: AMOUNT, cost: 5_000n, at: AT }),
  'refund paid': done(EFFECT.paying, { status: 'paid', txId: '0xrefund', at: AT } satisfies RefundResult),
  'refund failed': done(EFFECT.paying, { status: 'failed', error: 'The chain did not accept the transaction.', at: AT } satisfies RefundResult),
  'route back found': done(EFFECT.quoting, { route: BACK, error: null, at: AT } satisfies QuoteBackResult),
  'no route back': done(EFFECT.quoting, { route: null, error: 'No venue could quote the way back.', at: AT } satisfies QuoteBackResult),
  'swapped back': done(EFFECT.swapping, { status: 'filled', amountOut: AMOUNT, txId: '0xback', at: AT } satisfies StepResult),
  'swap back halted': done(EFFECT.swapping, { status: 'halted', reason: 'The venue is halted.', shortfall: false, at: AT } satisfies StepResult),
  'swap back unsettled': done(EFFECT.swapping, { status: 'unsettled', error: 'Swap filled, and moving its money failed.', at: AT } satisfies StepResult),
};
// The durable timer, as the host fires it: once the retries are due (seconds after the effects' instant), or at the
// deposit deadline (every retry is due by then too).
const RETRIES_DUE_AT = AT + 24 * 3600 * 1000;
const TIMERS = {
  'retries due': { type: 'wake', at: RETRIES_DUE_AT },
  'deadline passed': { type: 'wake', at: AT + DEPOSIT_WINDOW_MS },
} satisfies Record<string, OrderEvent>;
const COMMANDS = {
  unwind: { type: 'unwind', at: AT },
} satisfies Record<string, OrderEvent>;
// Family B's terms: the slippage guard, a durable cancel three days in (before the deadline, after every retry).
const CANCEL_AFTER = AT + 3 * 24 * 3600 * 1000;
const TERMS_B: OrderTerms = {
  family: 'b', minOut: (QUOTE.route.estimatedAmountOut * 99n) / 100n, maxSlippageBps: 100, cancelAfter: CANCEL_AFTER,
  refundAuthorization: { mode: 'token' }, fromAddress: SENDER, integrator: null, idempotencyKey: null, maxIn: null, exactOut: null, approvalMode: null,
};
const CANCEL_WAKE = { type: 'wake', at: CANCEL_AFTER } satisfies OrderEvent;
const effectNameOf = (doneType: string) => Object.entries(EFFECT).find(([, id]) => doneType === `xstate.done.actor.${id}`)?.[0];

// Test names: the event types of the path, with the case of each deposit or effect result.
const LABELS = new Map<string, string>([
  ...Object.entries(DEPOSITS).map(([l, e]) => [encodeJson(e), `deposit (${l})`] as const),
  ...Object.entries(DONE).map(([l, e]) => [encodeJson(e), `done:${effectNameOf(e.type)} (${l})`] as const),
  ...Object.entries(TIMERS).map(([l, e]) => [encodeJson(e), `wake (${l})`] as const),
  ...Object.entries(COMMANDS).map(([l, e]) => [encodeJson(e), l] as const),
  ...Object.entries(VANISHED).map(([txId, e]) => [encodeJson(e), `vanished (${txId})`] as const),
  [encodeJson(CANCEL_WAKE), 'wake (cancelAfter passed)'] as const,
]);
const label = (e: EventObject) => LABELS.get(encodeJson(e)) ?? e.type;

const input: OrderInput = {
  id: ID,
  quoteId: QUOTE.id,
  format: QUOTE.request.format,
  route: QUOTE.route,
  allowlist: [],
  blocklist: [],
  sourceChain: 'base',
  toAddress: TO,
  refundAddress: null,
  refundCost: REFUND_COST,
  createdAt: AT,
  policy: POLICY,
  terms: ORDER_TERMS_A,
};

/** What decides an order's future, coarsely (instants, transaction ids and amounts of legs do not): two snapshots
 *  equal here take the same transitions on every event the graph offers, so it keeps one of them. */
function decisive(value: unknown, c: OrderContext) {
  const total = c.deposits.reduce((t, d) => t + d.amount, 0n);
  return {
    value,
    vault: c.vault !== null,
    deposits: Math.min(c.deposits.length, 3),
    amount: total < AMOUNT ? 'below' : total === AMOUNT ? 'exact' : total > POLICY.maxAmountIn! ? 'over the limit' : 'over',
    unconfirmed: c.deposits.some((d) => d.confirmations < d.required),
    late: c.deposits.some((d) => d.late),
    phase: c.phase,
    closeReason: c.closeReason,
    refundOwed: nextRefund(c) !== null,
    paying: c.paying !== null,
    step: c.step,
    attempt: c.attempt,
    partMoved: partMoved(c),
    refundAttempt: c.refundAttempt > 0,
    legs: [c.legs.filter((l) => !l.unwind).length, c.legs.filter((l) => l.unwind).length],
    refunds: Math.min(c.refunds.length, 2),
    halted: c.haltReason !== null,
    delivered: c.delivery !== null,
    unwindReason: c.unwindReason,
    // Sent back by a vanished deposit while it waited for its amount: a path of its own to each such state, so the
    // graph replays the way back (the order's future is that of the same state reached directly).
    reopened: c.phase === 'open' && reopened(c.history.map((h) => h.status)),
  };
}

const OPEN_STATES = ['underfunded', 'funded'];
const ENDED_STATES = ['delivered', 'refunded', 'expired', 'refunding'];

/** Whether the statuses went back from funded or underfunded to an earlier waiting status. */
function reopened(statuses: OrderStatus[]): boolean {
  const rank = (st: OrderStatus) => ['awaiting_deposit', 'underfunded', 'funded'].indexOf(st);
  const waiting = statuses.map(rank).filter((r) => r >= 0);
  return waiting.some((r, i) => i > 0 && r < waiting[i - 1]!);
}

/** The order is retrying a step whose money moved in part. */
const partMoved = (c: OrderContext) => c.partMoved === true;

type Snap = { value: unknown; context: OrderContext; hasTag(t: string): boolean; matches(v: never): boolean; children: Record<string, unknown> };

/** Events worth offering in a snapshot: the results of the effects in flight, deposits not yet seen (or their
 *  confirmation), the timers the order waits for, and the unwind command. Others change nothing. */
function eventsFor(s: Snap): EventObject[] {
  const c = s.context;
  const inFlight = new Set(Object.keys(s.children));
  // A step whose money moved in part can only fill or stay part-moved when tried again (the effect looks for its
  // moves before it answers anything else).
  const settling = partMoved(c) ? new Set<EventObject>([DONE['step filled'], DONE['step unsettled'], DONE['swapped back'], DONE['swap back unsettled']]) : null;
  const out: EventObject[] = Object.values(DONE).filter(
    (e) => [...inFlight].some((id) => e.type === `xstate.done.actor.${id}`) && (settling === null || settling.has(e)),
  );
  // At most three deposits per path: enough for a partial, its top-up and one more (late or over).
  for (const e of c.vault ? Object.values(DEPOSITS) : []) {
    const known = c.deposits.find((d) => d.txId === e.txId);
    if (known ? known.confirmations < e.confirmations : c.deposits.length < 3) out.push(e);
  }
  // A reorg taking a deposit: any deposit while the order waits for its amount (back to underfunded or
  // awaiting_deposit), an unconfirmed one once it has ended (a late deposit dropped before its refund). Not in the
  // executing states nor for confirmed deposits of ended orders: at the depths the chains wait for these cannot
  // vanish, and offering them multiplies the paths by the operator's record (haltReason) downstream; that branch is
  // a money scenario (order.money.test.ts) instead.
  if (OPEN_STATES.some((v) => s.matches({ lifecycle: v } as never))) {
    for (const d of c.deposits) out.push(VANISHED[d.txId]!);
  } else if (ENDED_STATES.some((v) => s.matches({ lifecycle: v } as never))) {
    for (const d of c.deposits) if (d.confirmations < d.required) out.push(VANISHED[d.txId]!);
  }
  if (s.matches({ lifecycle: 'awaiting_deposit' } as never) || s.matches({ lifecycle: 'underfunded' } as never)) out.push(TIMERS['deadline passed']);
  if (c.retryAt !== null || c.refundRetryAt !== null) out.push(TIMERS['retries due']);
  if (!c.vault) return out; // no order to command before its creation answers
  out.push(COMMANDS.unwind);
  if (c.terms.family === 'b') {
    if (s.matches({ lifecycle: 'awaiting_deposit' } as never) || s.matches({ lifecycle: 'underfunded' } as never) || s.matches({ lifecycle: 'funded' } as never)) {
      out.push(CANCEL_WAKE);
    }
  }
  return out;
}

const traversal = {
  input,
  // Contexts hold bigints: serialise through the service's codec.
  serializeState: (s: { value: unknown; context: OrderContext }) => encodeJson(decisive(s.value, s.context)),
  serializeEvent: (e: EventObject) => encodeJson(e),
};
// Family A orders, and Family B orders with their terms (the step-short result only matters to the guard).
const pathsA = getShortestPaths(orderMachine, {
  ...traversal,
  events: ((s: Snap) => eventsFor(s).filter((e) => e !== DONE['step short'])) as never,
});
// Family B's paths explore what its terms change; the money paths they share with A (refused refunds, odd deposits)
// are A's, so the graph stays a size the suite can replay.
const NOT_FOR_B = new Set<EventObject>([DONE['refund failed'], DEPOSITS['over the limit'], DEPOSITS.extra, DEPOSITS['full unconfirmed'], DEPOSITS['partial unconfirmed']]);
const pathsB = getShortestPaths(orderMachine, {
  ...traversal,
  input: { ...input, terms: TERMS_B },
  events: ((s: Snap) => eventsFor(s).filter((e) => !NOT_FOR_B.has(e))) as never,
});
const paths = [...pathsA.map((p) => ({ family: 'a' as const, path: p })), ...pathsB.map((p) => ({ family: 'b' as const, path: p }))];

/** Leaf state ids of a (parallel) state value, e.g. `lifecycle.executing.step` and `refunds.idle`. */
const leaves = (value: unknown, prefix = ''): string[] =>
  typeof value === 'string'
    ? [prefix ? `${prefix}.${value}` : value]
    : Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
const dotted = (value: unknown) => leaves(value).join(' + ');

function leafStates(node = orderMachine.root, prefix = ''): string[] {
  const children = Object.entries(node.states);
  if (children.length === 0) return [prefix];
  return children.flatMap(([key, child]) => leafStates(child, prefix ? `${prefix}.${key}` : key));
}

/** Replays one event of a path as what causes it at the host: a message, a clock move, or an effect finishing. */
async function replay(host: OrderHost, e: EventObject & Record<string, unknown>, terms: OrderTerms | undefined): Promise<void> {
  if (e.type === 'deposit') {
    // A deposit told after the deadline: the host's clock reaches the deadline, and no wake-up fires before it.
    if (e.at === DEPOSITS['full, after the deadline'].at) host.clock.set((await host.load(ID)).context.depositDeadline);
    const r = await host.deposit(ID, { txId: e.txId as string, from: e.from as string, amount: e.amount as bigint, confirmations: e.confirmations as number, required: e.required as number });
    expect(r.ok).toBe(true);
    return;
  }
  if (e.type === 'deposit.vanished') {
    const r = await host.vanish(ID, e.txId as string);
    expect(r.ok).toBe(true);
    return;
  }
  if (e.type === 'unwind') {
    await host.unwind(ID);
    return;
  }
  if (effectNameOf(e.type) === 'opening') {
    const r = await host.create(ID, QUOTE, TO, null, terms);
    expect(r.ok && (r.value as OrderView).status).toBe('awaiting_deposit');
    return;
  }
  const c = (await host.load(ID)).context;
  if (e.type === 'wake') {
    // The host's clock moves past every retry the graph's wake ends (or to the deadline); the wake-up fires then.
    if (e.at === TIMERS['deadline passed'].at) return host.fireAt(c.depositDeadline);
    if (e.at === CANCEL_AFTER) return host.fireAt(CANCEL_AFTER);
    return host.fireAt(Math.max(host.clock.now(), c.retryAt ?? 0, c.refundRetryAt ?? 0));
  }
  const effect = effectNameOf(e.type);
  const output = e.output as { status?: string; route?: unknown };
  let run: OrderEffect;
  let moving: string | null = null;
  switch (effect) {
    case 'step':
      // Unsettled: the venue fills and the step's input cannot leave its holder (the ledger refuses it this time).
      if (output.status === 'unsettled') moving = `${ID}:${c.step}:in`;
      host.market.script(
        `${ID}:${c.step}`,
        output.status === 'filled' || output.status === 'unsettled'
          ? { status: 'filled' }
          : output.status === 'halted'
            ? (output as { shortfall?: boolean }).shortfall
              ? { status: 'filled', amountOut: 1n } // re-priced far below the least acceptable: the venue answers a shortfall
              : { status: 'halted', reason: 'halted' }
            : { status: 'failing', error: 'down' },
      );
      run = 'executeStep';
      break;
    case 'swapping':
      if (output.status === 'unsettled') moving = `${ID}:unwind:${c.legs.length}:in`;
      host.market.script(`${ID}:unwind:${c.legs.length}`, output.status === 'halted' ? { status: 'halted', reason: 'halted' } : { status: 'filled' });
      run = 'executeStep';
      break;
    case 'delivering':
      run = 'deliver';
      break;
    case 'quoting':
      host.scriptRouteBack(output.route ? 'route' : 'none');
      run = 'quoteBack';
      break;
    case 'paying':
      if (output.status === 'failed') host.ledger.fail(`${ID}:refund:`);
      run = 'refund';
      break;
    default:
      throw new Error(`No replay for ${e.type}`);
  }
  if (moving !== null) host.ledger.fail(moving);
  await host.finishEffect(ID, run);
  host.ledger.heal(`${ID}:refund:`);
  if (moving !== null) host.ledger.heal(moving);
}

type OrderPath = (typeof pathsA)[number];

function named(path: OrderPath) {
  const events = path.steps.filter((s) => (s.event as EventObject).type !== 'xstate.init');
  return { title: `${events.map((s) => label(s.event)).join(' → ') || '(start)'} ⇒ ${dotted(path.state.value)}`, events };
}

async function replayPath(path: OrderPath, family: 'a' | 'b'): Promise<void> {
  const host = orderHost({ policy: POLICY });
  try {
    for (const step of named(path).events) {
      await replay(host, step.event as never, family === 'b' ? TERMS_B : undefined);
      const stored = await host.load(ID);
      // Every step rests where the graph says, restored from the store (alwaysReplay).
      expect(roundTrip(decisive(stored.value, stored.context))).toEqual(roundTrip(decisive(step.state.value, step.state.context)));
      // Part-way through a step the books name the deposit where some of it has already left; named again once it fills.
      if (!partMoved(step.state.context as OrderContext)) expectOrderMoneyNamed(host, stored.context, TO);
    }
    const stored = await host.load(ID);
    expect(roundTrip(stored.snapshot)).toEqual(stored.snapshot);
    const lifecycle = leaves(stored.value).find((l) => l.startsWith('lifecycle.'))!;
    const resolved = orderMachine.resolveState({ value: stored.value as never, context: stored.context });
    expect(orderStatus(resolved)).toBe(FAMILY_A[lifecycle]);
    const got = await host.get(ID);
    expect(got.ok && (got.value as OrderView).status).toBe(FAMILY_A[lifecycle]);
    // Each venue step filled once at most, whatever the restarts; a step whose money moved in part has filled too.
    const c = stored.context;
    const settling = partMoved(path.state.context as OrderContext) ? [c.unwind ? `${ID}:unwind:${c.legs.length}` : `${ID}:${c.step}`] : [];
    expect(host.market.fills.map((f) => f.key)).toEqual([...c.legs.map((l, i) => (l.unwind ? `${ID}:unwind:${i}` : `${ID}:${l.index}`)), ...settling]);
  } finally {
    await host.close();
  }
}

describe('order.machine: every state is reachable by a generated path, and the actor host rests there', () => {
  it('the graph reaches every state of the machine but the transient ones', () => {
    const reached = new Set(paths.flatMap((p) => leaves(p.path.state.value)));
    const all = leafStates();
    expect(new Set(Object.keys(FAMILY_A))).toEqual(new Set(all.filter((s) => s.startsWith('lifecycle.'))));
    expect(reached).toEqual(new Set(all.filter((s) => !TRANSIENT.includes(s))));
  });

  for (const { family, path } of paths) {
    const { title } = named(path);
    if (leaves(path.state.value).includes('lifecycle.opening')) continue; // creation answers once the vault exists; covered below
    it(`${family.toUpperCase()}: ${title}`, () => replayPath(path, family));
  }
});

describe('States the host answers only after leaving them', () => {
  it('opening: stored while the deposit address is issued (status awaiting_deposit), answered once it exists', async () => {
    const host = orderHost({ policy: POLICY, alwaysReplay: false, gated: false });
    const release = host.holdVaults();
    const pending = host.create(ID, QUOTE, TO);
    const opening = await vi.waitFor(() => host.load(ID));
    expect(opening.value).toEqual({ lifecycle: 'opening', refunds: 'idle' });
    expect(orderStatus(orderMachine.resolveState({ value: opening.value as never, context: opening.context }))).toBe('awaiting_deposit');
    // An effect in flight is a wake-up due at once, so a restart brings the order back and issues again.
    expect(opening.wakeAt).toBe(0);
    release();
    const r = await pending;
    expect(r.ok && (r.value as OrderView).status).toBe('awaiting_deposit');
    const stored = await host.load(ID);
    expect(stored.wakeAt).toBe(AT + DEPOSIT_WINDOW_MS);
    expect(host.vaults).toHaveLength(1);
    await host.close();
  });

  it('executing.next: passed through after each filled step, on to the next step and then to delivery', async () => {
    const host = orderHost({ policy: POLICY, gated: false });
    const values: string[] = [];
    const actor = createActor(host.kind.logic as AnyActorLogic, {
      input: host.kind.create(ID, roundTrip({ type: 'order.create', quote: QUOTE, toAddress: TO, refundAddress: null }) as never),
      inspect: (ev) => {
        if (ev.type === '@xstate.microstep' && ev.actorRef === actor) {
          const lifecycle = leaves((ev.snapshot as unknown as { value: unknown }).value).find((l) => l.startsWith('lifecycle.'))!;
          values.push(lifecycle.slice('lifecycle.'.length));
        }
      },
    });
    actor.start();
    await waitFor(actor, (s) => s.matches({ lifecycle: 'awaiting_deposit' }));
    await host.ledger.transfer({ key: 'deposit:tx-full', chain: 'base', asset: QUOTE.route.from, from: 'mint', to: (actor.getSnapshot().context as OrderContext).vault!.address, amount: AMOUNT });
    actor.send({ ...DEPOSITS.full });
    await waitFor(actor, (s) => s.matches({ lifecycle: 'delivered' }));
    const path = values.filter((v, i) => v !== values[i - 1]);
    expect(path).toEqual([
      'awaiting_deposit', 'funded', 'executing.step', 'executing.next', 'executing.step', 'executing.next', 'executing.delivering', 'delivered',
    ]);
    actor.stop();
    await host.close();
  });
});

describe('Each step idempotent by <order id>:<step index>', () => {
  it('a step dropped mid-way by an eviction and restarted from the store moves every unit once', async () => {
    const host = orderHost({ policy: POLICY });
    await host.create(ID, QUOTE, TO);
    await host.deposit(ID, { ...DEPOSITS.full });
    const release = host.market.hold(`${ID}:0`);
    // The first run waits at the venue while alwaysReplay drops the actor; nothing has moved yet.
    await expect(host.finishEffect(ID)).resolves.toMatchObject({ value: { lifecycle: { executing: 'step' } } });
    expect(host.ledger.transfers.some((t) => t.key.startsWith(`${ID}:0:`))).toBe(false);
    release();
    // The dropped run ends and moves cost, input and output; its answer is lost with its actor.
    await vi.waitFor(() => expect(host.ledger.transfers.some((t) => t.key === `${ID}:0:out`)).toBe(true));
    const after = await host.finishEffect(ID); // restored from the store: the step runs again, keyed
    expect(after.value).toEqual({ lifecycle: { executing: 'step' }, refunds: 'idle' });
    expect(after.context.step).toBe(1);
    expect(host.market.calls.filter((c) => c.key === `${ID}:0`)).toHaveLength(2);
    expect(host.market.fills).toHaveLength(1);
    const keys = host.ledger.transfers.map((t) => t.key).filter((k) => k.startsWith(`${ID}:0:`));
    expect(keys).toEqual([`${ID}:0:cost`, `${ID}:0:in`, `${ID}:0:out`]);
    expect(after.context.legs[0]!.amountOut).toBe(host.ledger.transfers.find((t) => t.key === `${ID}:0:out`)!.amount);
    await host.close();
  });
});

describe('frozen: a step re-priced below its quote by more than the tolerance does not deliver', () => {
  it('the venue answers a shortfall, the order is frozen with the reason and nothing is delivered or moved', async () => {
    const host = orderHost({ policy: POLICY });
    await host.create(ID, QUOTE, TO);
    await host.deposit(ID, { ...DEPOSITS.full });
    const quoted = QUOTE.route.steps[0]!.venueAmountOut;
    host.market.script(`${ID}:0`, { status: 'filled', amountOut: (quoted * 9_899n) / 10_000n }); // 1.01 % short, tolerance 1 %
    const o = await host.finishEffect(ID);
    expect(o.value).toEqual({ lifecycle: 'frozen', refunds: 'idle' });
    expect(o.context.haltReason).toMatch(/least acceptable/);
    expect(host.ledger.sum((t) => t.to === TO)).toBe(0n);
    expect(host.ledger.balanceOf('base', o.context.vault!.address, QUOTE.route.from)).toBe(AMOUNT);
    await host.close();
  });

  it('a step re-priced short by less than the tolerance fills, and the order goes on to its next step', async () => {
    const host = orderHost({ policy: POLICY });
    await host.create(ID, QUOTE, TO);
    await host.deposit(ID, { ...DEPOSITS.full });
    const quoted = QUOTE.route.steps[0]!.venueAmountOut;
    const filled = (quoted * 9_901n) / 10_000n; // 0.99 % short, tolerance 1 %
    host.market.script(`${ID}:0`, { status: 'filled', amountOut: filled });
    const o = await host.finishEffect(ID);
    expect(o.value).toEqual({ lifecycle: { executing: 'step' }, refunds: 'idle' });
    expect(o.context.step).toBe(1);
    expect(o.context.legs[0]!.amountOut).toBe(filled);
    expect(o.context.haltReason).toBeNull();
    await host.close();
  });
});
