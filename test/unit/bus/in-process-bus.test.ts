// The in-process bus (embedded mode) against the bus contract, plus how it hands a reply over.
import { describe, expect, it } from 'vitest';
import { createInProcessBus } from '../../../src/bus/index.js';
import type { Envelope, Reply } from '../../../src/bus/types.js';
import type { OrderCreate } from '../../../src/protocol/index.js';
import { loadConfig } from '../../../src/config.js';
import { BASE_USDC, orderViewOf, quoteOf } from '../../support/fixtures.js';
import { busContract } from './bus-contract.js';

busContract('in-process', async () => {
  const bus = createInProcessBus(5_000, { verifyCodec: true });
  return { bus, close: () => bus.close() };
});

describe('In-process bus: a reply is handed over as the actor built it, frozen', () => {
  it('the caller gets the actor\'s own value and cannot change it (nor can the actor afterwards)', async () => {
    const bus = createInProcessBus(5_000);
    const held = orderViewOf({ held: [{ chain: 'base', asset: BASE_USDC, address: '0xa', amount: 1n }] });
    await bus.serve(async (): Promise<Reply> => ({ ok: true, value: held }));
    const got = await bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' });
    expect(got).toBe(held);
    expect(() => {
      (got as { status: string }).status = 'delivered';
    }).toThrow(TypeError);
    expect(() => held.held.push({ chain: 'base', asset: BASE_USDC, address: '0xb', amount: 2n })).toThrow(TypeError);
    expect(() => {
      held.held[0]!.amount = 2n; // an object inside an array is frozen too
    }).toThrow(TypeError);
    expect(held).toEqual(orderViewOf({ held: [{ chain: 'base', asset: BASE_USDC, address: '0xa', amount: 1n }] }));
    await bus.close();
  });
});

describe('In-process bus: a request is handed over as the caller built it, frozen', () => {
  it('the actor gets the command\'s own fields and cannot change them (nor can the caller afterwards)', async () => {
    const bus = createInProcessBus(5_000);
    let got: Envelope | null = null;
    await bus.serve(async (envelope): Promise<Reply> => {
      got = envelope;
      return { ok: true, value: orderViewOf({ id: 'o1' }) };
    });
    const quote = quoteOf({ id: 'q1' });
    const steps = quote.route.steps;
    const command: OrderCreate = { type: 'order.create', quote, toAddress: '0xto', refundAddress: null };
    await bus.request({ kind: 'order', id: 'o1' }, command, { requestId: 'r1' });
    const envelope = got as unknown as Envelope;
    expect(envelope).toEqual({ ref: { kind: 'order', id: 'o1' }, message: command, requestId: 'r1' });
    expect(envelope.message['quote']).toBe(quote);
    expect(() => {
      (envelope.message as { type: string }).type = 'x';
    }).toThrow(TypeError);
    expect(() => steps.push(steps[0]!)).toThrow(TypeError);
    await bus.close();
  });

  it('an absent request id is left out of the envelope, as NATS carries it', async () => {
    const bus = createInProcessBus(5_000, { verifyCodec: true });
    let got: Envelope | null = null;
    await bus.serve(async (envelope): Promise<Reply> => {
      got = envelope;
      return { ok: true, value: orderViewOf() };
    });
    await bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' });
    expect(Object.keys(got as unknown as Envelope)).toEqual(['ref', 'message']);
    await bus.close();
  });
});

describe('In-process bus with verifyCodec: a request or reply NATS would not carry unchanged fails here first', () => {
  it('a request with an undefined field is refused before its actor sees it', async () => {
    const bus = createInProcessBus(5_000, { verifyCodec: true });
    let seen = 0;
    await bus.serve(async (): Promise<Reply> => {
      seen++;
      return { ok: true, value: null };
    });
    const command = { type: 'order.get' as const, extra: undefined };
    await expect(bus.request({ kind: 'order', id: 'o' }, command)).rejects.toThrow('request order/order.get does not survive the NATS codec unchanged');
    expect(seen).toBe(0);
    await bus.close();
  });

  const cases: Array<[string, unknown]> = [
    ['an undefined field (NATS drops the key)', { ...orderViewOf(), extra: undefined }],
    ['a Map (NATS carries {})', { ...orderViewOf(), extra: new Map([['k', 1]]) }],
    ['a Date (NATS carries a string)', { ...orderViewOf(), extra: new Date(0) }],
  ];
  for (const [name, value] of cases) {
    it(name, async () => {
      const bus = createInProcessBus(5_000, { verifyCodec: true });
      await bus.serve(async (): Promise<Reply> => ({ ok: true, value }));
      await expect(bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' })).rejects.toThrow('does not survive the NATS codec unchanged');
      await bus.close();
    });
  }

  it('bigints, nested lists and absent fields pass', async () => {
    const bus = createInProcessBus(5_000, { verifyCodec: true });
    const value = orderViewOf({ fromAmount: 10n ** 30n, refunds: [{ reason: 'excess', asset: BASE_USDC, amount: 5n, cost: 1n, to: '0xr', txId: null, at: 2 }] });
    await bus.serve(async (): Promise<Reply> => ({ ok: true, value }));
    expect(await bus.request({ kind: 'order', id: 'o' }, { type: 'order.get' })).toEqual(value);
    await bus.close();
  });

  it('is off by default in the service and on with ROUTER_BUS_VERIFY_CODEC=on (the test suite sets it)', () => {
    expect(loadConfig({}).busVerifyCodec).toBe(false);
    expect(loadConfig({ ROUTER_BUS_VERIFY_CODEC: 'on' }).busVerifyCodec).toBe(true);
    expect(() => loadConfig({ ROUTER_BUS_VERIFY_CODEC: 'yes' })).toThrow('ROUTER_BUS_VERIFY_CODEC');
  });
});
