// The in-process bus (embedded mode) against the bus contract, plus how it hands a reply over.
import { describe, expect, it } from 'vitest';
import { createInProcessBus } from '../../../src/bus/index.js';
import type { Reply } from '../../../src/bus/types.js';
import { loadConfig } from '../../../src/config.js';
import { busContract } from './bus-contract.js';

busContract('in-process', async () => {
  const bus = createInProcessBus(5_000, { verifyReplies: true });
  return { bus, close: () => bus.close() };
});

describe('In-process bus: a reply is handed over as the actor built it, frozen', () => {
  it('the caller gets the actor\'s own value and cannot change it (nor can the actor afterwards)', async () => {
    const bus = createInProcessBus(5_000);
    const held = { status: 'awaiting_deposit', steps: [{ n: 1n }] };
    await bus.serve(async (): Promise<Reply> => ({ ok: true, value: held }));
    const got: unknown = await bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' });
    expect(got).toBe(held);
    expect(() => {
      (got as { status: string }).status = 'completed';
    }).toThrow(TypeError);
    expect(() => held.steps.push({ n: 2n })).toThrow(TypeError);
    expect(held).toEqual({ status: 'awaiting_deposit', steps: [{ n: 1n }] });
    await bus.close();
  });
});

describe('In-process bus with verifyReplies: a reply NATS would not carry unchanged fails here first', () => {
  const cases: Array<[string, unknown]> = [
    ['an undefined field (NATS drops the key)', { a: 1, b: undefined }],
    ['a Map (NATS carries {})', { m: new Map([['k', 1]]) }],
    ['a Date (NATS carries a string)', { at: new Date(0) }],
  ];
  for (const [name, value] of cases) {
    it(name, async () => {
      const bus = createInProcessBus(5_000, { verifyReplies: true });
      await bus.serve(async (): Promise<Reply> => ({ ok: true, value }));
      await expect(bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' })).rejects.toThrow('does not survive the NATS codec unchanged');
      await bus.close();
    });
  }

  it('bigints, nested lists and absent fields pass', async () => {
    const bus = createInProcessBus(5_000, { verifyReplies: true });
    const value = { amount: 10n ** 30n, path: [['a', 'b'], []], refund: null };
    await bus.serve(async (): Promise<Reply> => ({ ok: true, value }));
    expect(await bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' })).toEqual(value);
    await bus.close();
  });

  it('is off by default in the service and on with ROUTER_BUS_VERIFY_REPLIES=on (the test suite sets it)', () => {
    expect(loadConfig({}).busVerifyReplies).toBe(false);
    expect(loadConfig({ ROUTER_BUS_VERIFY_REPLIES: 'on' }).busVerifyReplies).toBe(true);
    expect(() => loadConfig({ ROUTER_BUS_VERIFY_REPLIES: 'yes' })).toThrow('ROUTER_BUS_VERIFY_REPLIES');
  });
});
