// A property over the order machine hosted by the real runtime (alwaysReplay: restored from the store after every
// step): random deposits (amounts, senders, confirmation depths, arrival at any point of the order's life, after
// its end too), deposits a reorg removes (perhaps mined again), random venue failures and halts, refused refunds, cancels and unwinds, random clock moves. After
// every step the order's records agree with the ledger and money is conserved; no refund spends an unconfirmed
// deposit; once everything is confirmed and settled, a delivered or expired order holds nothing.
// PROPERTY_RUNS sets the number of runs (default 2000); a failure prints the seed and the shrunk sequence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdings } from '../../src/orders/money.js';
import { ORDER_TERMS_A, type OrderTerms, type OrderView } from '../../src/orders/types.js';
import { DEFAULT_POLICY, HOST_START, REFUND_COST, depositedNow, expectOrderMoneyNamed, orderHost, twoStepQuote, type OrderHost, type StoredOrder, type VenueScript } from '../support/order-host.js';

const ID = 'o-prop';
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDERS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2'] as const;
const QUOTE = twoStepQuote('q-prop');
const AMOUNT = QUOTE.route.amountIn;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);

type Action =
  | { kind: 'deposit'; sender: number; amount: bigint; confirmed: boolean }
  | { kind: 'confirm'; which: number }
  /** A reorg removes a recorded deposit; `again`: its transaction is mined again at once (still unconfirmed). */
  | { kind: 'vanish'; which: number; again: boolean }
  | { kind: 'effect' }
  | { kind: 'timer' }
  | { kind: 'venue'; step: 0 | 1; script: VenueScript }
  | { kind: 'refunds'; failing: boolean }
  | { kind: 'unwind' }
  | { kind: 'clock'; ms: number };

const amounts = fc.oneof(
  fc.constantFrom(1n, REFUND_COST, REFUND_COST + 1n, AMOUNT / 2n, AMOUNT, AMOUNT + 1n, AMOUNT + AMOUNT / 3n),
  fc.bigInt({ min: 1n, max: 2n * AMOUNT }),
);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('deposit' as const), sender: fc.integer({ min: 0, max: 1 }), amount: amounts, confirmed: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('confirm' as const), which: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('vanish' as const), which: fc.nat(5), again: fc.boolean() }) },
  { weight: 6, arbitrary: fc.constant({ kind: 'effect' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'timer' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('venue' as const),
      step: fc.constantFrom(0 as const, 1 as const),
      script: fc.constantFrom<VenueScript>(
        { status: 'failing', error: 'The venue did not answer.' },
        { status: 'halted', reason: 'The venue is halted.' },
        { status: 'filled', amountOut: 1n }, // far below the quote: a shortfall halt
        { status: 'filled' },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refunds' as const), failing: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unwind' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.integer({ min: 1, max: 8 * 24 * 3600 * 1000 }) }) },
);

/** Family A's terms, Family B's (the slippage guard, perhaps a durable cancel within the first days), or Family C's
 *  exact output. */
const termsArb: fc.Arbitrary<OrderTerms> = fc.oneof(
  fc.constant(ORDER_TERMS_A),
  fc.record({ cancelAfter: fc.option(fc.integer({ min: 1, max: 6 * 24 * 3600 * 1000 }), { nil: null }) }).map(({ cancelAfter }) => ({
    ...ORDER_TERMS_A,
    family: 'b' as const,
    minOut: (QUOTE.route.estimatedAmountOut * 99n) / 100n,
    maxSlippageBps: 100,
    cancelAfter: cancelAfter === null ? null : HOST_START + cancelAfter,
    refundAuthorization: { mode: 'token' as const },
  })),
  // Family C exact output: deposits up to maxIn are held until delivery, exactly exactOut is delivered.
  fc.record({ slack: fc.bigInt({ min: 0n, max: AMOUNT / 10n }), keep: fc.bigInt({ min: 0n, max: 50n }) }).map(({ slack, keep }) => ({
    ...ORDER_TERMS_A,
    family: 'c' as const,
    minOut: QUOTE.route.estimatedAmountOut - keep,
    exactOut: QUOTE.route.estimatedAmountOut - keep,
    maxIn: AMOUNT + slack,
    maxSlippageBps: 100,
    approvalMode: 'full' as const,
  })),
);

/** The invariants that hold after every step. */
function check(host: OrderHost, o: StoredOrder): void {
  const c = o.context;
  expectOrderMoneyNamed(host, c, TO);
  const deposited = depositedNow(host.ledger);
  const delivered = host.ledger.sum((t) => t.to === TO);
  // Every deposit that reached the address and is still on its chain is recorded on the order (a vanished one is not).
  expect(c.deposits.reduce((s, d) => s + d.amount, 0n)).toBe(deposited);
  // No refund spends an unconfirmed deposit.
  for (const r of c.refunds) {
    if (r.depositTxId === null) continue;
    const d = c.deposits.find((x) => x.txId === r.depositTxId)!;
    expect(d.confirmations).toBeGreaterThanOrEqual(d.required);
  }
  if (c.delivery) expect(delivered).toBe(c.delivery.amountOut);
  // Exact output delivers exactly the promised amount, never more, never less.
  if (c.delivery && c.terms.exactOut !== null) expect(c.delivery.amountOut).toBe(c.terms.exactOut);
}

/** A deposit the chain no longer has is off the order's records and no refund pays it. */
function checkNoVanishedRefund(o: StoredOrder, gone: Set<string>): void {
  for (const r of o.context.refunds) {
    if (r.depositTxId === null) continue;
    expect(gone.has(r.depositTxId), `refund of vanished ${r.depositTxId}`).toBe(false);
  }
  for (const txId of gone) expect(o.context.deposits.some((d) => d.txId === txId), `vanished ${txId} still recorded`).toBe(false);
}

async function apply(host: OrderHost, a: Action, txs: string[], gone: Set<string>): Promise<void> {
  const o = await host.load(ID);
  switch (a.kind) {
    case 'deposit': {
      const txId = `tx-${txs.length}`;
      txs.push(txId);
      await host.deposit(ID, { txId, from: SENDERS[a.sender]!, amount: a.amount, confirmations: a.confirmed ? 1 : 0, required: 1 });
      return;
    }
    case 'confirm': {
      const d = o.context.deposits[a.which % Math.max(1, o.context.deposits.length)];
      if (d) await host.deposit(ID, { txId: d.txId, from: d.from, amount: d.amount, confirmations: 1, required: 1 });
      return;
    }
    case 'vanish': {
      const d = o.context.deposits[a.which % Math.max(1, o.context.deposits.length)];
      if (!d) return;
      const reversed = host.ledger.transfers.length;
      await host.vanish(ID, d.txId);
      // The chain took it back (the host reverses an arrival the order had not touched): the order dropped it.
      if (host.ledger.transfers.length > reversed) gone.add(d.txId);
      if (a.again) {
        await host.deposit(ID, { txId: d.txId, from: d.from, amount: d.amount, confirmations: 0, required: 1 });
        gone.delete(d.txId);
      }
      return;
    }
    case 'effect':
      if (o.wakeAt === 0) await host.finishEffect(ID);
      return;
    case 'timer':
      if (o.wakeAt !== null && o.wakeAt > 0) await host.fireAt(Math.max(o.wakeAt, host.clock.now()));
      return;
    case 'venue':
      host.market.script(`${ID}:${a.step}`, a.script);
      return;
    case 'refunds':
      if (a.failing) host.ledger.fail(`${ID}:refund:`);
      else host.ledger.heal(`${ID}:refund:`);
      return;
    case 'unwind':
      await host.unwind(ID);
      return;
    case 'clock':
      await host.fireAt(host.clock.now() + a.ms);
      return;
  }
}

/** Heal everything, confirm every deposit, and let effects and timers (retries, the deposit deadline) run until
 *  the order rests: delivered, expired, stalled or frozen. */
async function settle(host: OrderHost): Promise<StoredOrder> {
  host.ledger.heal(`${ID}:refund:`);
  let o = await host.load(ID);
  for (const d of o.context.deposits) await host.deposit(ID, { txId: d.txId, from: d.from, amount: d.amount, confirmations: 1, required: 1 });
  for (let i = 0; i < 40; i++) {
    o = await host.load(ID);
    if (o.wakeAt === 0) await host.finishEffect(ID);
    else if (o.wakeAt !== null) await host.fireAt(Math.max(o.wakeAt, host.clock.now()));
    else break;
    check(host, await host.load(ID));
  }
  return host.load(ID);
}

describe('Money is conserved: random deposits, venue failures and clock moves over the hosted order machine', () => {
  it(`every unit is delivered, refunded, a named cost or held at a named place (${RUNS} runs)`, async () => {
    // What the runs reached, so a generator that stops reaching a money path fails here rather than passing vacuously.
    const reached = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 18 }), termsArb, async (actions, terms) => {
        const host = orderHost({ policy: { ...DEFAULT_POLICY, maxAmountIn: 3n * AMOUNT } });
        try {
          await host.create(ID, QUOTE, TO, null, terms);
          const txs: string[] = [];
          const gone = new Set<string>();
          for (const a of actions) {
            await apply(host, a, txs, gone);
            const now = await host.load(ID);
            check(host, now);
            checkNoVanishedRefund(now, gone);
          }
          let o = await settle(host);
          check(host, o);
          checkNoVanishedRefund(o, gone);
          if (gone.size > 0) reached.add('vanished');
          const status = ((await host.get(ID)) as { ok: true; value: OrderView }).value.status;
          if (status === 'stalled' || status === 'frozen') {
            // An operator unwinds it: afterwards it holds nothing, or stays frozen with its funds named.
            await host.unwind(ID);
            o = await settle(host);
            check(host, o);
          }
          const after = ((await host.get(ID)) as { ok: true; value: OrderView }).value;
          reached.add(after.status);
          for (const r of o.context.refunds) reached.add(`refund:${r.reason}`);
          if (o.context.legs.some((l) => l.unwind)) reached.add('swapped back');
          if (after.status === 'delivered' || after.status === 'expired') expect(holdings(o.context)).toEqual([]);
          else expect(after.status).toBe('frozen');
        } finally {
          await host.close();
        }
      }),
      { numRuns: RUNS, verbose: 1, ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}) },
    );
    if (RUNS >= 1000) {
      for (const outcome of ['delivered', 'expired', 'refund:underfunded', 'refund:excess', 'refund:late_deposit', 'refund:unwind', 'refund:slippage', 'refund:cancelled', 'swapped back', 'vanished']) {
        expect(reached, outcome).toContain(outcome);
      }
    }
  }, 600_000);
});
