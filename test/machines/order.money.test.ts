// Every unit that reaches a deposit address ends delivered, refunded, paid as a named cost or held at a named place:
// one scenario per money path, each replayed at the actor host (alwaysReplay: restored from the store after every
// step) over the fake ledger, and checked against the ledger after every step.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { BACKOFF_CAP_MS, type OrderContext } from '../../machines/order.machine.js';
import { deliveryKey, holdingAccount, holdings } from '../../src/orders/money.js';
import { ORDER_TERMS_A, type OrderTerms, type OrderView } from '../../src/orders/types.js';
import { DEFAULT_POLICY, HOST_START, REFUND_COST, expectOrderMoneyNamed, orderHost, twoStepQuote, type OrderHost, type StoredOrder } from '../support/order-host.js';

const ID = 'o-money';
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const OWNER = '0x00000000000000000000000000000000000000a1';
const OUTSIDER = '0x00000000000000000000000000000000000000b2';
const GIVEN_REFUND = '0x00000000000000000000000000000000000000c3';
const QUOTE = twoStepQuote('q-money');
const AMOUNT = QUOTE.route.amountIn;

let tx = 0;
const deposit = (host: OrderHost, from: string, amount: bigint, confirmations = 1, txId = `tx-${++tx}`) =>
  host.deposit(ID, { txId, from, amount, confirmations, required: 1 });

const expectBalanced = (host: OrderHost, o: StoredOrder) => expectOrderMoneyNamed(host, o.context, TO);

async function runToRest(host: OrderHost): Promise<StoredOrder> {
  let o = await host.load(ID);
  for (let i = 0; i < 20 && o.wakeAt === 0; i++) {
    o = await host.finishEffect(ID);
    expectBalanced(host, o);
  }
  return o;
}

/** The second step's venue fails past every retry: the order stalls after the first step converted the funds. */
async function stallAtSecondStep(host: OrderHost, error = 'down'): Promise<StoredOrder> {
  host.market.script(`${ID}:1`, { status: 'failing', error });
  const o = await runToRest(host);
  await host.fireAt(o.context.retryAt!);
  return runToRest(host);
}

const view = async (host: OrderHost): Promise<OrderView> => {
  const r = await host.get(ID);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as OrderView;
};

async function delivered(host: OrderHost, refundAddress: string | null = null): Promise<StoredOrder> {
  await host.create(ID, QUOTE, TO, refundAddress);
  await deposit(host, OWNER, AMOUNT);
  const o = await runToRest(host);
  expect((await view(host)).status).toBe('delivered');
  return o;
}

describe('A deposit that arrives late is recorded on the order and refunded once confirmed', () => {
  it('after delivered: recorded, refunded to its sender, the order stays delivered', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host);
    await deposit(host, OWNER, 5_000_000n, 0, 'tx-late');
    let o = await host.load(ID);
    expect(o.context.deposits.find((d) => d.txId === 'tx-late')).toMatchObject({ late: true, amount: 5_000_000n });
    // Unconfirmed: held at the deposit address, never refunded before it confirms.
    expect(o.wakeAt).toBeNull();
    expect(o.context.refunds).toHaveLength(0);
    expectBalanced(host, o);
    await deposit(host, OWNER, 5_000_000n, 1, 'tx-late');
    o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.refunds).toEqual([expect.objectContaining({ reason: 'late_deposit', amount: 5_000_000n - REFUND_COST, to: OWNER })]);
    expect(v.held).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('after expired, and during execution: refunded with reason late_deposit', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await host.fireAt((await host.load(ID)).context.depositDeadline);
    expect((await view(host)).status).toBe('expired');
    await deposit(host, OWNER, 3_000_000n);
    await runToRest(host);
    expect((await view(host)).refunds.map((r) => r.reason)).toEqual(['late_deposit']);
    await host.close();

    const h2 = orderHost({ policy: DEFAULT_POLICY });
    await h2.create(ID, QUOTE, TO);
    await deposit(h2, OWNER, AMOUNT);
    await deposit(h2, OWNER, 7_000_000n); // while the first step runs
    const o = await runToRest(h2);
    expect(o.context.deposits.map((d) => d.late)).toEqual([false, true]);
    const v = await view(h2);
    expect(v.status).toBe('delivered');
    expect(v.refunds.map((r) => [r.reason, r.amount])).toEqual([['late_deposit', 7_000_000n - REFUND_COST]]);
    await h2.close();
  });
});

describe('deposit_deadline: the instant after which deposits are no longer watched and the order expires', () => {
  it('a full deposit told after the deadline, before the deadline\'s wake-up fires: expired, refunded as late, never executed', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    host.clock.set((await host.load(ID)).context.depositDeadline + 1);
    await deposit(host, OWNER, AMOUNT);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('expired');
    expect(v.refunds.map((r) => [r.reason, r.amount, r.to])).toEqual([['late_deposit', AMOUNT - REFUND_COST, OWNER]]);
    expect(o.context.legs).toEqual([]);
    expect(host.market.fills).toEqual([]);
    await host.close();
  });

  it('a top-up told after the deadline does not complete an underfunded order: what arrived in time is refunded as underfunded, the top-up as late', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT / 2n, 1, 'tx-half');
    host.clock.set((await host.load(ID)).context.depositDeadline);
    await deposit(host, OWNER, AMOUNT / 2n, 1, 'tx-rest');
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.closeReason).toBe('underfunded');
    expect(v.refunds.map((r) => r.reason).sort()).toEqual(['late_deposit', 'underfunded']);
    expect(o.context.deposits.map((d) => [d.txId, d.late])).toEqual([['tx-half', false], ['tx-rest', true]]);
    expect(host.market.fills).toEqual([]);
    await host.close();
  });
});

describe('A step\'s input never sits in a venue pool when the venue refuses, halts or stalls', () => {
  it('a halted venue: frozen, the funds named at the deposit address, no pool holds any', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:0`, { status: 'halted', reason: 'The venue is halted.' });
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('frozen');
    expect(v.haltReason).toBe('The venue is halted.');
    expect(v.held).toEqual([{ chain: 'base', asset: QUOTE.route.from, address: o.context.vault!.address, amount: AMOUNT }]);
    expect(host.ledger.held((a) => a.startsWith('pool:'))).toBe(0n);
    await host.close();
  });

  it('frozen and stalled orders are logged at warn for an operator, with the reason', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
    const host = orderHost({ policy: DEFAULT_POLICY, logger });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:0`, { status: 'halted', reason: 'The venue is halted.' });
    await runToRest(host);
    const warned = lines.filter((l) => l.msg === 'actor waits for an operator');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, actor: `order:${ID}`, status: 'frozen', reason: 'The venue is halted.' });
    await host.close();

    lines.length = 0;
    const h2 = orderHost({ policy: DEFAULT_POLICY, logger });
    await h2.create(ID, QUOTE, TO);
    await deposit(h2, OWNER, AMOUNT);
    await stallAtSecondStep(h2, 'The venue did not answer.');
    expect((await view(h2)).status).toBe('stalled');
    const stalled = lines.filter((l) => l.msg === 'actor waits for an operator');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ level: 40, actor: `order:${ID}`, status: 'stalled', reason: expect.stringMatching(/The venue did not answer/) });
    await h2.close();
  });

  it('a venue failing at the second step until stalled: the first leg\'s output is named in the holding account', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    const o = await stallAtSecondStep(host, 'The venue did not answer.');
    const v = await view(host);
    expect(v.status).toBe('stalled');
    expect(v.held).toEqual([{ chain: 'arbitrum', asset: QUOTE.route.steps[1]!.from, address: holdingAccount(ID), amount: o.context.legs[0]!.amountOut }]);
    expect(host.ledger.held((a) => a.startsWith('pool:'))).toBe(
      host.ledger.held((a) => a === 'pool:cctp_fast'), // only the first venue, which filled, holds its input
    );
    await host.close();
  });
});

describe('A step whose money moved in part is tried again until it completes, never stalled as if nothing had moved', () => {
  /** Runs effects and the retries they ask for; the books are checked whenever no step is part-way. */
  async function retryUntilRest(host: OrderHost, retries: number): Promise<StoredOrder> {
    let o = await host.load(ID);
    for (let i = 0; i <= retries; i++) {
      for (let j = 0; j < 20 && o.wakeAt === 0; j++) {
        o = await host.finishEffect(ID);
        if (!o.context.partMoved) expectBalanced(host, o);
      }
      if (o.context.retryAt === null) break;
      await host.fireAt(o.context.retryAt);
      o = await host.load(ID);
    }
    return o;
  }

  for (const failing of [':in', ':out'] as const) {
    it(`the first step filled, its cost moved and its ${failing} transfer refused past every retry: executing, then delivered once the chain takes it`, async () => {
      const host = orderHost({ policy: DEFAULT_POLICY });
      await host.create(ID, QUOTE, TO);
      host.ledger.fail(`${ID}:0${failing}`, 'RPC unreachable');
      await deposit(host, OWNER, AMOUNT);
      let o = await retryUntilRest(host, DEFAULT_POLICY.maxAttempts + 3);
      expect((await view(host)).status).toBe('executing');
      expect(o.context.partMoved).toBe(true);
      expect(o.context.legs).toEqual([]);
      expect(o.context.lastError).toMatch(/RPC unreachable/);
      // The cost left the deposit address on the first try and never again.
      expect(host.ledger.transfers.filter((t) => t.key === `${ID}:0:cost`)).toHaveLength(1);
      host.ledger.heal(`${ID}:0${failing}`);
      o = await retryUntilRest(host, 2);
      expect((await view(host)).status).toBe('delivered');
      expect(o.context.partMoved).toBe(false);
      expectBalanced(host, o);
      expect(host.market.fills.map((f) => f.key)).toEqual([`${ID}:0`, `${ID}:1`]);
      await host.close();
    });
  }

  it('the venue refuses a step whose cost already moved (it forgot the key and re-priced): still part-way, not refunded from a deposit address that no longer holds it', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    host.ledger.fail(`${ID}:0:in`, 'RPC unreachable');
    await deposit(host, OWNER, AMOUNT);
    let o = await host.finishEffect(ID);
    expect(o.context.partMoved).toBe(true);
    host.market.forget(`${ID}:0`);
    host.market.script(`${ID}:0`, { status: 'halted', reason: 'The venue is halted.' });
    await host.fireAt(o.context.retryAt!);
    o = await host.finishEffect(ID);
    expect((await view(host)).status).toBe('executing');
    expect(o.context.partMoved).toBe(true);
    expect(o.context.lastError).toMatch(/moved money on an earlier try, and its venue refused it now/);
    expect(o.context.refundQueue).toEqual([]);
    await host.close();
  });
});

describe('A deposit the router sent itself (another order delivering or refunding into this address) is never paid back to its sender', () => {
  const OTHER_ORDER = 'order:o-other';
  const routerDeposit = (host: OrderHost, amount: bigint, txId = `tx-${++tx}`) =>
    host.deposit(ID, { txId, from: OTHER_ORDER, amount, confirmations: 1, required: 1, fromRouter: true });

  it('its excess is held at the deposit address, named, and the order shows no refund address', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await routerDeposit(host, AMOUNT + 5_000_000n);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.refundAddress).toBeNull();
    expect(v.refunds).toEqual([]);
    expect(v.held).toEqual([{ chain: 'base', asset: QUOTE.route.from, address: o.context.vault!.address, amount: 5_000_000n }]);
    expect(host.ledger.transfers.filter((t) => t.to === OTHER_ORDER && t.from !== 'mint')).toEqual([]);
    await host.close();
  });

  it('an expired order funded in part by it refunds nothing: what arrived stays held for an operator (no refund loop between two orders)', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await routerDeposit(host, AMOUNT / 2n);
    let o = await runToRest(host);
    await host.fireAt(o.context.depositDeadline);
    o = await runToRest(host);
    const v = await view(host);
    expect(v.refunds).toEqual([]);
    expect(v.held).toEqual([{ chain: 'base', asset: QUOTE.route.from, address: o.context.vault!.address, amount: AMOUNT / 2n }]);
    await host.close();
  });

  it('unwound after a step converted it: the proceeds of the way back stay held in the holding account, named', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await routerDeposit(host, AMOUNT);
    await stallAtSecondStep(host);
    await host.unwind(ID);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.refunds).toEqual([]);
    expect(o.context.legs.filter((l) => l.unwind)).toHaveLength(1);
    expect(v.held).toEqual([{ chain: 'base', asset: QUOTE.route.from, address: holdingAccount(ID), amount: o.context.legs.at(-1)!.amountOut }]);
    await host.close();
  });

  it('with the client\'s refund address its excess goes there, and a client\'s own deposit still goes back to its sender', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, GIVEN_REFUND);
    await routerDeposit(host, AMOUNT + 5_000_000n);
    await runToRest(host);
    expect((await view(host)).refunds.map((r) => [r.to, r.reason])).toEqual([[GIVEN_REFUND, 'excess']]);
    await host.close();

    const other = orderHost({ policy: DEFAULT_POLICY });
    await other.create(ID, QUOTE, TO);
    await routerDeposit(other, AMOUNT);
    await deposit(other, OUTSIDER, 5_000_000n);
    await runToRest(other);
    const w = await view(other);
    expect(w.refundAddress).toBe(OUTSIDER);
    expect(w.refunds.map((r) => [r.to, r.reason])).toEqual([[OUTSIDER, 'late_deposit']]);
    await other.close();
  });
});

describe('Refunds spend only confirmed deposits', () => {
  it('underfunded at the deadline: the confirmed deposit is refunded, the unconfirmed one only once it confirms', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, 100_000_000n, 1, 'tx-a');
    await deposit(host, OWNER, 200_000_000n, 0, 'tx-b');
    await host.fireAt((await host.load(ID)).context.depositDeadline);
    let o = await runToRest(host);
    expect(o.context.refunds.map((r) => r.depositTxId)).toEqual(['tx-a']);
    expect((await view(host)).status).toBe('expired');
    await deposit(host, OWNER, 200_000_000n, 1, 'tx-b');
    o = await runToRest(host);
    expect(o.context.refunds.map((r) => [r.depositTxId, r.reason])).toEqual([['tx-a', 'underfunded'], ['tx-b', 'underfunded']]);
    expect(holdings(o.context)).toEqual([]);
    await host.close();
  });
});

describe('Refunds cannot be hijacked', () => {
  it('an outsider\'s dust deposit first, then the owner\'s overpayment: the excess goes back to the owner', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OUTSIDER, 1n);
    // Dust (at or below the refund cost) never sets the refund address.
    expect((await view(host)).refundAddress).toBeNull();
    await deposit(host, OWNER, AMOUNT + AMOUNT / 2n);
    expect((await view(host)).refundAddress).toBe(OWNER);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    // Execution takes the deposits in arrival order: the outsider's unit, then the owner's; the rest is the owner's.
    expect(v.refunds).toEqual([expect.objectContaining({ reason: 'excess', to: OWNER, amount: AMOUNT / 2n + 1n - REFUND_COST })]);
    expect(host.ledger.sum((t) => t.to === OUTSIDER && t.key.startsWith(`${ID}:`))).toBe(0n);
    expectBalanced(host, o);
    await host.close();
  });

  it('an outsider\'s non-dust deposit is refunded to the outsider, not to the owner, and vice versa', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OUTSIDER, 10_000_000n);
    await deposit(host, OWNER, 20_000_000n);
    await host.fireAt((await host.load(ID)).context.depositDeadline);
    await runToRest(host);
    const v = await view(host);
    expect(v.refunds.map((r) => [r.to, r.amount])).toEqual([
      [OUTSIDER, 10_000_000n - REFUND_COST],
      [OWNER, 20_000_000n - REFUND_COST],
    ]);
    await host.close();
  });

  it('with a refund address given, every refund goes there', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host, GIVEN_REFUND);
    await deposit(host, OUTSIDER, 4_000_000n);
    await runToRest(host);
    expect((await view(host)).refunds.map((r) => r.to)).toEqual([GIVEN_REFUND]);
    await host.close();
  });

  it('a refund at or below its own cost sends nothing: the amount is the cost, kept by the router (tx_id null)', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host);
    await deposit(host, OUTSIDER, REFUND_COST);
    const o = await runToRest(host);
    expect(o.context.refunds).toEqual([expect.objectContaining({ amount: REFUND_COST, cost: REFUND_COST, sent: 0n, txId: null })]);
    expect(holdings(o.context)).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });
});

describe('Unwinding a stalled or frozen order', () => {
  it('frozen before any step converted: everything is refunded from the deposit address (reason unwind)', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:0`, { status: 'halted', reason: 'The venue is halted.' });
    await runToRest(host);
    const r = await host.unwind(ID);
    expect(r.ok).toBe(true);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('expired');
    expect(v.refunds).toEqual([expect.objectContaining({ reason: 'unwind', to: OWNER, amount: AMOUNT - REFUND_COST })]);
    expect(v.held).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('the way back is priced with the venue_blocklist and allowlist the order inherited from its quote', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    const listed: typeof QUOTE = { ...QUOTE, request: { ...QUOTE.request, blocklist: ['chainflip', 'relay'] } };
    await host.create(ID, listed, TO);
    await deposit(host, OWNER, AMOUNT);
    await stallAtSecondStep(host);
    await host.unwind(ID);
    const o = await runToRest(host);
    expect(host.routeRequests).toEqual([expect.objectContaining({ to: QUOTE.route.from, allowlist: [], blocklist: ['chainflip', 'relay'] })]);
    expect((await view(host)).status).toBe('expired');
    expectBalanced(host, o);
    await host.close();
  });

  it('stalled after one step: the converted funds are swapped back through the router and refunded', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    await stallAtSecondStep(host);
    expect((await view(host)).status).toBe('stalled');
    await host.unwind(ID);
    const o = await runToRest(host);
    const back = o.context.legs.filter((l) => l.unwind);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ from: QUOTE.route.steps[1]!.from, to: QUOTE.route.from });
    const v = await view(host);
    expect(v.status).toBe('expired');
    expect(v.refunds).toEqual([expect.objectContaining({ reason: 'unwind', to: OWNER, amount: back[0]!.amountOut - REFUND_COST })]);
    expect(v.held).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('no route back: the order stays frozen with that reason and its funds named', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    host.scriptRouteBack('none');
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:1`, { status: 'halted', reason: 'halted' });
    await runToRest(host);
    await host.unwind(ID);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('frozen');
    expect(v.haltReason).toMatch(/^No route back to /);
    expect(v.held).toEqual([{ chain: 'arbitrum', asset: QUOTE.route.steps[1]!.from, address: holdingAccount(ID), amount: o.context.legs[0]!.amountOut }]);
    await host.close();
  });

  it('cancelling an underfunded order refunds what arrived (reason cancelled); a delivered order cannot be cancelled', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, 10_000_000n);
    expect((await host.unwind(ID)).ok).toBe(true);
    await runToRest(host);
    expect((await view(host)).refunds.map((r) => r.reason)).toEqual(['cancelled']);
    await host.close();

    const h2 = orderHost({ policy: DEFAULT_POLICY });
    await delivered(h2);
    const r = await h2.unwind(ID);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe('order_not_cancellable');
    await h2.close();
  });
});

describe('A refund that fails is retried after a durable backoff, never lost', () => {
  it('the ledger refuses the refund once: retried at refundRetryAt with the reason kept for operators, then paid', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host);
    host.ledger.fail(`${ID}:refund:`);
    await deposit(host, OWNER, 3_000_000n);
    let o = await runToRest(host);
    const c: OrderContext = o.context;
    expect(c.refundRetryAt).not.toBeNull();
    expect(o.wakeAt).toBe(c.refundRetryAt);
    expect(c.refundError).toMatch(/\S/);
    host.ledger.heal(`${ID}:refund:`);
    await host.fireAt(c.refundRetryAt!);
    o = await runToRest(host);
    expect(o.context.refunds).toHaveLength(1);
    expect(o.context.refundError).toBeNull();
    expectBalanced(host, o);
    await host.close();
  });
});

describe('A refund or delivery the chain refuses is retried after a durable backoff (doubling, at most 15 minutes), never dropped', () => {
  /** The waits between tries while the chain refuses: each try's retry time less the time it failed at. */
  async function waitsWhileRefused(host: OrderHost, retryAtOf: (c: OrderContext) => number | null, tries: number): Promise<number[]> {
    const waits: number[] = [];
    let o = await runToRest(host);
    for (let i = 0; i < tries; i++) {
      const at = retryAtOf(o.context)!;
      expect(o.wakeAt).toBe(at);
      waits.push(at - host.clock.now());
      await host.fireAt(at);
      o = await runToRest(host);
    }
    return waits;
  }
  // backoffMs 1 000: 1, 2, 4 … 512 s, then the 15-minute cap.
  const expected = [...Array.from({ length: 10 }, (_, k) => 1_000 * 2 ** k), BACKOFF_CAP_MS, BACKOFF_CAP_MS];

  it('a refund: the waits double up to 15 minutes, the reason stays in refundError, and it is paid once the chain takes it', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host);
    host.ledger.fail(`${ID}:refund:`, 'execution reverted');
    await deposit(host, OWNER, 3_000_000n);
    expect(await waitsWhileRefused(host, (c) => c.refundRetryAt, expected.length)).toEqual(expected);
    let o = await host.load(ID);
    expect(o.context.refundError).toMatch(/execution reverted/);
    expect(o.context.refunds).toEqual([]);
    host.ledger.heal(`${ID}:refund:`);
    await host.fireAt(o.context.refundRetryAt!);
    o = await runToRest(host);
    expect(o.context.refunds).toHaveLength(1);
    expect(o.context.refundError).toBeNull();
    expectBalanced(host, o);
    await host.close();
  });

  it('a delivery: the waits double up to 15 minutes, the reason stays in lastError, and it is delivered once the chain takes it', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    host.ledger.fail(deliveryKey(ID), 'execution reverted');
    await deposit(host, OWNER, AMOUNT);
    expect(await waitsWhileRefused(host, (c) => c.retryAt, expected.length)).toEqual(expected);
    let o = await host.load(ID);
    expect((await view(host)).status).toBe('executing');
    expect(o.context.lastError).toMatch(/execution reverted/);
    host.ledger.heal(deliveryKey(ID));
    await host.fireAt(o.context.retryAt!);
    o = await runToRest(host);
    expect((await view(host)).status).toBe('delivered');
    expect(o.context.lastError).toBeNull();
    expect(host.ledger.transfers.filter((t) => t.key === deliveryKey(ID))).toHaveLength(1);
    expectBalanced(host, o);
    await host.close();
  });
});

describe('Family B terms: minOut is binding, cancelAfter is a durable cancel, a cancel asked again answers the order', () => {
  const terms = (over: Partial<OrderTerms> = {}): OrderTerms => ({
    ...ORDER_TERMS_A, family: 'b', minOut: (QUOTE.route.estimatedAmountOut * 99n) / 100n, maxSlippageBps: 100, ...over,
  });

  it('a last step re-priced below minOut: the converted funds come back and are refunded (reason slippage), nothing delivered', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms());
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:1`, { status: 'filled', amountOut: QUOTE.route.steps[1]!.venueAmountOut / 2n });
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('expired');
    expect(v.closeReason).toBe('slippage');
    expect(v.haltReason).toMatch(/^Slippage guard: /);
    expect(v.amountOut).toBeNull();
    expect(v.refunds.map((r) => [r.reason, r.to])).toEqual([['slippage', OWNER]]);
    expect(o.context.legs.filter((l) => l.unwind)).toHaveLength(1);
    expectBalanced(host, o);
    await host.close();
  });

  it('the first step short: refunded from the deposit address; the same shortfall without minOut only freezes', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms());
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:0`, { status: 'filled', amountOut: 1n });
    await runToRest(host);
    expect((await view(host)).refunds.map((r) => [r.reason, r.amount])).toEqual([['slippage', AMOUNT - REFUND_COST]]);
    await host.close();

    const a = orderHost({ policy: DEFAULT_POLICY });
    await a.create(ID, QUOTE, TO);
    await deposit(a, OWNER, AMOUNT);
    a.market.script(`${ID}:0`, { status: 'filled', amountOut: 1n });
    await runToRest(a);
    expect((await view(a)).status).toBe('frozen');
    await a.close();
  });

  it('cancelAfter passes before the deposit is confirmed: cancelled, and what arrives is refunded', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    const cancelAfter = HOST_START + 3_600_000;
    await host.create(ID, QUOTE, TO, null, terms({ cancelAfter }));
    expect((await host.load(ID)).wakeAt).toBe(cancelAfter);
    await deposit(host, OWNER, AMOUNT, 0); // seen, not confirmed: funded, not executing
    await host.fireAt(cancelAfter);
    let v = await view(host);
    // Nothing confirmed to pay back yet: closed at once; the deposit is refunded when it confirms.
    expect([v.stage, v.closeReason, v.refunds.length]).toEqual(['refunded', 'cancelled', 0]);
    await deposit(host, OWNER, AMOUNT, 1, `tx-${tx}`); // the same deposit confirms
    await runToRest(host);
    v = await view(host);
    expect(v.status).toBe('expired');
    expect(v.refunds.map((r) => r.reason)).toEqual(['cancelled']);
    await host.close();
  });

  it('cancelAfter has passed when the confirmation arrives, before its wake-up fires: cancelled, never executed', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    const cancelAfter = HOST_START + 3_600_000;
    await host.create(ID, QUOTE, TO, null, terms({ cancelAfter }));
    await deposit(host, OWNER, AMOUNT, 0);
    host.clock.set(cancelAfter + 1);
    await deposit(host, OWNER, AMOUNT, 1, `tx-${tx}`); // the same deposit confirms; the cancel's wake-up has not fired
    const o = await runToRest(host);
    const v = await view(host);
    expect([v.status, v.closeReason]).toEqual(['expired', 'cancelled']);
    expect(v.refunds.map((r) => [r.reason, r.amount])).toEqual([['cancelled', AMOUNT - REFUND_COST]]);
    expect(o.context.legs).toEqual([]);
    expect(host.market.fills).toEqual([]);
    await host.close();
  });

  it('a cancel asked again of the order it closed answers the order as it is, and refunds nothing twice', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms({ refundAuthorization: { mode: 'token' } }));
    await deposit(host, OWNER, AMOUNT / 2n);
    const first = await host.unwind(ID);
    expect(first.ok && (first.value as OrderView).closeReason).toBe('cancelled');
    const again = await host.unwind(ID);
    expect(again.ok && (again.value as OrderView).closeReason).toBe('cancelled');
    const o = await runToRest(host);
    expect((await host.unwind(ID)).ok).toBe(true);
    expect((await view(host)).refunds.map((r) => [r.reason, r.amount])).toEqual([['cancelled', AMOUNT / 2n - REFUND_COST]]);
    expectBalanced(host, o);
    await host.close();
  });
});

describe('Family C exact output: the order delivers exactly the amount; input it did not need is refunded after delivery', () => {
  const EXACT = QUOTE.route.estimatedAmountOut - 40n;
  const MAX_IN = AMOUNT + AMOUNT / 100n;
  const terms: OrderTerms = { ...ORDER_TERMS_A, family: 'c', minOut: EXACT, exactOut: EXACT, maxIn: MAX_IN, maxSlippageBps: 100, approvalMode: 'full' };

  it('a deposit between expected and from.maximum: exactly the amount is delivered, the surplus output is a delivery cost, and the unused input goes back after delivery (reason excess)', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms);
    const extra = AMOUNT / 200n;
    await deposit(host, OWNER, AMOUNT + extra);
    let o = await host.load(ID);
    // Committed: everything up to maxIn is held for execution, nothing refunded before delivery.
    expect(o.context.deposits[0]!.spent).toBe(AMOUNT + extra);
    expect(o.context.refunds).toHaveLength(0);
    o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.amountOut).toBe(EXACT);
    expect(host.ledger.sum((t) => t.to === TO)).toBe(EXACT);
    expect(o.context.delivery!.cost).toBe(o.context.delivery!.amountIn - EXACT);
    expect(v.refunds.map((r) => [r.reason, r.amount, r.to])).toEqual([['excess', extra - REFUND_COST, OWNER]]);
    expect(v.refunds[0]!.at).toBeGreaterThanOrEqual(o.context.delivery!.at);
    expect(holdings(o.context)).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('a deposit above from.maximum: what exceeds the maximum goes back after delivery with the unused input, in one refund at one refund cost', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms);
    await deposit(host, OWNER, MAX_IN + 5_000_000n);
    expect((await host.load(ID)).context.refunds).toHaveLength(0);
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.amountOut).toBe(EXACT);
    expect(v.refunds.map((r) => [r.reason, r.amount])).toEqual([['excess', 5_000_000n + MAX_IN - AMOUNT - REFUND_COST]]);
    expect(v.refunds[0]!.at).toBeGreaterThanOrEqual(o.context.delivery!.at);
    expect(holdings(o.context)).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('a deposit above from.maximum on an order that halts: what exceeds the maximum goes back at once, the rest stays held for the unwind', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms);
    await deposit(host, OWNER, MAX_IN + 5_000_000n);
    host.market.script(`${ID}:0`, { status: 'halted', reason: 'The venue is halted.' });
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('frozen');
    expect(v.refunds.map((r) => [r.reason, r.amount, r.to])).toEqual([['excess', 5_000_000n - REFUND_COST, OWNER]]);
    expect(v.held).toEqual([{ chain: 'base', asset: QUOTE.route.from, address: o.context.vault!.address, amount: MAX_IN }]);
    expectBalanced(host, o);
    await host.close();
  });

  it('a deposit above from.maximum on an order that stalls: what exceeds the maximum goes back once it waits for an operator', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms);
    await deposit(host, OWNER, MAX_IN + 5_000_000n);
    const o = await stallAtSecondStep(host, 'The venue did not answer.');
    const v = await view(host);
    expect(v.status).toBe('stalled');
    expect(v.refunds.map((r) => [r.reason, r.amount, r.to])).toEqual([['excess', 5_000_000n - REFUND_COST, OWNER]]);
    expectBalanced(host, o);
    await host.close();
  });

  it('a route re-priced below the amount: nothing is delivered and the deposit comes back (reason slippage)', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, null, terms);
    await deposit(host, OWNER, AMOUNT);
    host.market.script(`${ID}:1`, { status: 'filled', amountOut: QUOTE.route.steps[1]!.venueAmountOut - 1_000n });
    const o = await runToRest(host);
    const v = await view(host);
    expect(v.amountOut).toBeNull();
    expect(v.closeReason).toBe('slippage');
    expect(holdings(o.context)).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });
});

describe('A deposit a reorg removes leaves the order as if it never came', () => {
  it('funded, not yet confirmed: the deposit vanishes, the order awaits a deposit again and completes with a new one', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT, 0, 'tx-reorged');
    let v = await view(host);
    expect([v.status, v.refundAddress]).toEqual(['funded', OWNER]);
    await host.vanish(ID, 'tx-reorged');
    let o = await host.load(ID);
    v = await view(host);
    expect(v.status).toBe('awaiting_deposit');
    // The refund address came from the vanished deposit's sender: none is shown until another deposit arrives.
    expect(v.refundAddress).toBeNull();
    expect(o.context.deposits).toEqual([]);
    expect(v.held).toEqual([]);
    expect(host.ledger.balanceOf('base', o.context.vault!.address, QUOTE.route.from)).toBe(0n);
    expectBalanced(host, o);
    // Told again (at least once): nothing changes.
    await host.vanish(ID, 'tx-reorged');
    expect((await host.load(ID)).context.deposits).toEqual([]);
    await deposit(host, OUTSIDER, AMOUNT, 1, 'tx-new');
    o = await runToRest(host);
    v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.refundAddress).toBe(OUTSIDER);
    expect(o.context.deposits.map((d) => d.txId)).toEqual(['tx-new']);
    expect(v.refunds).toEqual([]);
    expect(holdings(o.context)).toEqual([]);
    expect(o.context.history.map((h) => h.status)).toEqual(['awaiting_deposit', 'funded', 'awaiting_deposit', 'funded', 'executing', 'delivered']);
    await host.close();
  });

  it('funded by two deposits: one vanishes, the order is underfunded with the other and funded again by a top-up', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO, GIVEN_REFUND);
    await deposit(host, OWNER, AMOUNT / 2n, 0, 'tx-a');
    await deposit(host, OUTSIDER, AMOUNT / 2n, 0, 'tx-b');
    expect((await view(host)).status).toBe('funded');
    await host.vanish(ID, 'tx-b');
    const v = await view(host);
    expect(v.status).toBe('underfunded');
    expect(v.refundAddress).toBe(GIVEN_REFUND); // the client's, whatever the deposits
    await deposit(host, OWNER, AMOUNT / 2n, 1, 'tx-c');
    await deposit(host, OWNER, AMOUNT / 2n, 1, 'tx-a');
    const o = await runToRest(host);
    expect((await view(host)).status).toBe('delivered');
    expect(o.context.deposits.map((d) => d.txId)).toEqual(['tx-a', 'tx-c']);
    expectBalanced(host, o);
    await host.close();
  });

  it('a late deposit that vanishes before it confirms is never refunded', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await delivered(host);
    await deposit(host, OWNER, 5_000_000n, 0, 'tx-late');
    expect((await host.load(ID)).context.deposits.find((d) => d.txId === 'tx-late')).toMatchObject({ late: true });
    await host.vanish(ID, 'tx-late');
    let o = await host.load(ID);
    expect(o.context.deposits.map((d) => d.txId)).not.toContain('tx-late');
    expectBalanced(host, o);
    // Whatever the order does from now on (a confirmation of that deposit told late, timers), nothing is refunded.
    await host.fireAt(o.context.depositDeadline + 1);
    o = await runToRest(host);
    const v = await view(host);
    expect(v.status).toBe('delivered');
    expect(v.refunds).toEqual([]);
    expect(host.ledger.sum((t) => t.key.startsWith(`${ID}:refund:`))).toBe(0n);
    expectBalanced(host, o);
    await host.close();
  });

  it('a late deposit to an expired order vanishes: removed, no refund; mined again, it is refunded once confirmed', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await host.fireAt((await host.load(ID)).context.depositDeadline);
    await deposit(host, OWNER, 3_000_000n, 0, 'tx-late');
    await host.vanish(ID, 'tx-late');
    let o = await runToRest(host);
    expect(o.context.deposits).toEqual([]);
    expectBalanced(host, o);
    await deposit(host, OWNER, 3_000_000n, 1, 'tx-late');
    o = await runToRest(host);
    const v = await view(host);
    expect(v.refunds.map((r) => [r.reason, r.amount])).toEqual([['late_deposit', 3_000_000n - REFUND_COST]]);
    expect(holdings(o.context)).toEqual([]);
    expectBalanced(host, o);
    await host.close();
  });

  it('a deposit execution already spent "vanishes": the books stay, the order carries on and names it for an operator', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create(ID, QUOTE, TO);
    await deposit(host, OWNER, AMOUNT, 1, 'tx-spent');
    let o = await host.finishEffect(ID); // the first step filled: the deposit is spent
    expect(o.context.step).toBe(1);
    await host.vanish(ID, 'tx-spent');
    o = await host.load(ID);
    expect(o.context.deposits.map((d) => d.txId)).toEqual(['tx-spent']);
    expect((await view(host)).haltReason).toMatch(/tx-spent vanished .* an operator must reconcile/);
    expectBalanced(host, o);
    o = await runToRest(host);
    expect((await view(host)).status).toBe('delivered');
    expectBalanced(host, o);
    await host.close();
  });
});
