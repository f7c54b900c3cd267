// The order list's coarse status (one documented mapping from every internal state) and the summary written to the
// store's order index on every save, read back through listOrders as Family C's GET /orders does.
import { describe, expect, it } from 'vitest';
import { orderMachine } from '../../../machines/order.machine.js';
import { LIST_STATUSES, listStatusOf, type ListStatus } from '../../../src/orders/summary.js';
import { ORDER_TERMS_A } from '../../../src/orders/types.js';
import { DEFAULT_POLICY, HOST_START, REFUND_COST, orderHost, twoStepQuote, type OrderHost } from '../../support/order-host.js';

/** The list status of every lifecycle state, in the words: waiting for a deposit, funded or executing →
 *  unfilled; delivering → filled; delivered → settled; refunded → refunded; cancelled, or expired with nothing
 *  received → cancelled; stalled or frozen → failed. */
const EXPECTED: Record<string, ListStatus | 'by refunds'> = {
  opening: 'unfilled',
  awaiting_deposit: 'unfilled',
  underfunded: 'unfilled',
  funded: 'unfilled',
  'executing.step': 'unfilled',
  'executing.backoff': 'unfilled',
  'executing.next': 'unfilled',
  'executing.delivering': 'filled',
  delivered: 'settled',
  expired: 'cancelled',
  'refunding.underfunded': 'refunded',
  'refunding.cancelled': 'refunded',
  'refunding.unwind': 'refunded',
  'refunding.slippage': 'refunded',
  refunded: 'by refunds',
  stalled: 'failed',
  frozen: 'failed',
  'unwinding.deciding': 'refunded',
  'unwinding.quoting': 'refunded',
  'unwinding.swapping': 'refunded',
  'unwinding.backoff': 'refunded',
  'unwinding.next': 'refunded',
  'unwinding.returned': 'refunded',
};

interface Node {
  states: Record<string, Node>;
}

function leaves(node: Node, prefix: string[] = []): string[] {
  const children = Object.entries(node.states);
  if (children.length === 0) return [prefix.join('.')];
  return children.flatMap(([key, child]) => leaves(child, [...prefix, key]));
}

describe('The coarse status of GET /orders is one documented mapping from the internal states', () => {
  const stages = leaves(orderMachine.root.states.lifecycle as unknown as Node);

  it('every lifecycle state of the order machine has its status (generated from the machine)', () => {
    expect(stages.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const stage of stages) {
      const expected = EXPECTED[stage]!;
      if (expected === 'by refunds') continue;
      expect(listStatusOf({ id: 'o', stage, refunds: [], refundPending: false }), stage).toBe(expected);
      expect(LIST_STATUSES).toContain(expected);
    }
  });

  it('refunded: cancelled when nothing ever arrived, refunded once something was paid back or is owed', () => {
    expect(listStatusOf({ id: 'o', stage: 'refunded', refunds: [], refundPending: false })).toBe('cancelled');
    expect(listStatusOf({ id: 'o', stage: 'refunded', refunds: [{}], refundPending: false })).toBe('refunded');
    expect(listStatusOf({ id: 'o', stage: 'refunded', refunds: [], refundPending: true })).toBe('refunded');
  });
});

describe('The order index carries what a list item shows, written with every save', () => {
  const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
  const OWNER = '0x00000000000000000000000000000000000000a1';
  const QUOTE = twoStepQuote('q-summary');
  const AMOUNT = QUOTE.route.amountIn;

  async function rest(host: OrderHost, id: string): Promise<void> {
    for (let i = 0; i < 20; i++) {
      const o = await host.load(id);
      if (o.wakeAt !== 0) return;
      await host.finishEffect(id);
    }
  }

  it('a delivered order: settled, with executed amounts equal to what the ledger moved and its transactions', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create('o-1', QUOTE, TO);
    let [row] = await host.store.listOrders({ limit: 10 });
    expect(row).toMatchObject({ id: 'o-1', listStatus: 'unfilled', destination: TO, sender: null });
    expect(row!.summary).toMatchObject({ quoteMode: 'exact_input', quotedIn: AMOUNT, quotedOut: QUOTE.route.estimatedAmountOut, executedIn: null, executedOut: null, depositTxId: null, terminalAt: null });

    await host.deposit('o-1', { txId: 'tx-d', from: OWNER, amount: AMOUNT, confirmations: 1, required: 1 });
    await rest(host, 'o-1');
    [row] = await host.store.listOrders({ limit: 10 });
    const delivered = host.ledger.sum((t) => t.to === TO);
    const taken = host.ledger.sum((t) => t.key === 'o-1:0:in' || t.key === 'o-1:0:cost');
    expect(row).toMatchObject({ listStatus: 'settled', sender: OWNER });
    expect(row!.summary).toMatchObject({ executedIn: taken, executedOut: delivered, depositTxId: 'tx-d', sender: OWNER });
    expect(row!.summary.payoutTxId).toMatch(/^0x/);
    expect(row!.summary.executedFees).toBeGreaterThan(0n);
    expect(row!.summary.terminalAt).toBeGreaterThanOrEqual(HOST_START);
    expect(row!.summary.lastSourceUpdateAt).toBeGreaterThanOrEqual(HOST_START);
    expect((await host.store.listOrders({ limit: 10, listStatus: 'settled' })).map((r) => r.id)).toEqual(['o-1']);
    expect(await host.store.listOrders({ limit: 10, listStatus: 'unfilled' })).toEqual([]);
    await host.close();
  });

  it('expired with nothing received: cancelled; an underfunded order closed at the deadline: refunded, with its refund transaction', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create('o-empty', QUOTE, TO);
    await host.create('o-short', { ...QUOTE, id: 'q-short' }, TO, null, { ...ORDER_TERMS_A });
    await host.deposit('o-short', { txId: 'tx-s', from: OWNER, amount: AMOUNT / 2n, confirmations: 1, required: 1 });
    await host.fireAt(HOST_START + 8 * 24 * 3600 * 1000);
    await rest(host, 'o-short');
    const rows = await host.store.listOrders({ limit: 10 });
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId['o-empty']).toMatchObject({ listStatus: 'cancelled' });
    expect(byId['o-empty']!.summary.terminalAt).not.toBeNull();
    expect(byId['o-short']).toMatchObject({ listStatus: 'refunded' });
    expect(byId['o-short']!.summary.refundTxId).toMatch(/^0x/);
    expect(byId['o-short']!.summary.executedFees).toBe(REFUND_COST);
    expect(byId['o-short']!.summary.executedIn).toBeNull();
    await host.close();
  });

  it('a late deposit refunded after the order ended: terminalAt stays when it ended; an expired order that refunds one is refunded, not cancelled', async () => {
    const host = orderHost({ policy: DEFAULT_POLICY });
    await host.create('o-done', QUOTE, TO);
    await host.create('o-late', { ...QUOTE, id: 'q-late' }, TO);
    await host.deposit('o-done', { txId: 'tx-1', from: OWNER, amount: AMOUNT, confirmations: 1, required: 1 });
    await rest(host, 'o-done');
    await host.fireAt(HOST_START + 8 * 24 * 3600 * 1000);
    const ended = Object.fromEntries((await host.store.listOrders({ limit: 10 })).map((r) => [r.id, r]));
    expect(ended['o-done']).toMatchObject({ listStatus: 'settled' });
    expect(ended['o-late']).toMatchObject({ listStatus: 'cancelled' });
    const doneAt = ended['o-done']!.summary.terminalAt;
    const expiredAt = ended['o-late']!.summary.terminalAt;
    expect(doneAt).not.toBeNull();
    expect(expiredAt).not.toBeNull();

    host.clock.advance(3_600_000);
    await host.deposit('o-done', { txId: 'tx-2', from: OWNER, amount: AMOUNT / 4n, confirmations: 1, required: 1 });
    await host.deposit('o-late', { txId: 'tx-3', from: OWNER, amount: AMOUNT / 4n, confirmations: 1, required: 1 });
    await rest(host, 'o-done');
    await rest(host, 'o-late');
    const later = Object.fromEntries((await host.store.listOrders({ limit: 10 })).map((r) => [r.id, r]));
    expect(later['o-done']!.summary.refundTxId).toMatch(/^0x/);
    expect(later['o-done']).toMatchObject({ listStatus: 'settled' });
    expect(later['o-done']!.summary.terminalAt).toBe(doneAt);
    expect(later['o-late']!.summary.refundTxId).toMatch(/^0x/);
    expect(later['o-late']).toMatchObject({ listStatus: 'refunded' });
    expect(later['o-late']!.summary.terminalAt).toBe(expiredAt);
    await host.close();
  });
});
