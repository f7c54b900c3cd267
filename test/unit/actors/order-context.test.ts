// An order's stored context is checked field by field before XState restores it (actors/kinds/order-context.ts): a
// context of another shape is refused naming its field, and one without the fields the machine defaults is read.
// Every path of the order machine's graph restores its order through this check too (test/machines).
import { afterEach, describe, expect, it } from 'vitest';
import { orderContextProblem } from '../../../actors/kinds/order-context.js';
import { orderHost, twoStepQuote, type OrderHost } from '../../support/order-host.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';

let host: OrderHost | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
});

/** The stored snapshot of an order that has a deposit and a history, and its context. */
async function storedOrder() {
  host = orderHost();
  const quote = twoStepQuote('q-context');
  await host.create('o-context', quote, TO, SENDER);
  await host.deposit('o-context', { txId: 'tx-1', from: SENDER, amount: quote.route.amountIn / 2n, confirmations: 1, required: 1 });
  const stored = await host.load('o-context');
  expect(stored.context.deposits).toHaveLength(1);
  return { stored, context: stored.context as unknown as Record<string, unknown> };
}

describe('an order\'s stored context is read only when it has the fields of this version\'s order', () => {
  it('the context an order stored passes, and so does one without the fields the machine defaults', async () => {
    const { context } = await storedOrder();
    expect(orderContextProblem(context)).toBeNull();
    const { partMoved: _p, refundError: _r, ...older } = context;
    expect(orderContextProblem(older)).toBeNull();
  });

  const damaged: Array<[string, (c: Record<string, unknown>) => unknown, string]> = [
    ['a policy field of another type', (c) => ({ ...c, policy: { ...(c.policy as object), maxAttempts: '3' } }), 'policy.maxAttempts'],
    ['an unknown status in its history', (c) => ({ ...c, history: [{ status: 'teleported', at: 1 }] }), 'history[0].status'],
    ['a field it always has, missing', ({ unwindReason: _u, ...c }) => c, 'unwindReason'],
    ['a phase it does not know', (c) => ({ ...c, phase: 'paused' }), 'phase'],
    ['a deposit without its confirmations', (c) => ({ ...c, deposits: (c.deposits as Array<Record<string, unknown>>).map(({ confirmations: _n, ...d }) => d) }), 'deposits[0].confirmations'],
    ['a route step of an unknown venue', (c) => {
      const route = c.route as { steps: Array<Record<string, unknown>> };
      return { ...c, route: { ...route, steps: [{ ...route.steps[0], venue: 'nowhere' }, ...route.steps.slice(1)] } };
    }, 'route.steps[0].venue'],
  ];
  for (const [name, damage, path] of damaged) {
    it(`${name} is refused, naming ${path}`, async () => {
      const { context } = await storedOrder();
      expect(orderContextProblem(damage(context))).toBe(`its context is not an order's: it fails at \`${path}\``);
    });
  }

  it('money records of another shape are named as the audit names them', async () => {
    const { context } = await storedOrder();
    const deposits = (context.deposits as Array<Record<string, unknown>>).map((d) => ({ ...d, amount: '5' }));
    expect(orderContextProblem({ ...context, deposits })).toBe('deposits[0] amount is not a bigint');
  });

  it('the runtime refuses to restore such an order and leaves its snapshot as stored', async () => {
    // The host drops each order from memory after every persisted step (alwaysReplay): the next message restores it.
    const { stored } = await storedOrder();
    const snapshot = stored.snapshot as Record<string, unknown>;
    const damagedSnapshot = { ...snapshot, context: { ...(snapshot.context as object), phase: 'paused' } };
    await host!.store.save({ kind: 'order', id: 'o-context', snapshot: damagedSnapshot, expectedVersion: stored.version, epoch: 0, wakeAt: null, updatedAt: 2 });
    const reply = await host!.get('o-context');
    expect(reply).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(!reply.ok && reply.error.message).toContain('fails at `phase`');
    expect((await host!.store.load('order', 'o-context'))!.snapshot).toEqual(damagedSnapshot);
  });
});
