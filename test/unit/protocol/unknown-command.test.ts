// A command outside its kind's protocol is answered with a typed error (UnknownCommand), never taken as a read:
// the runtime answers it before loading or creating the actor, and the bus refuses it before sending. A sender
// speaking another version of the protocol (an edge newer than its worker) is thereby told, not silently served.
import { afterEach, describe, expect, it } from 'vitest';
import { orderKind } from '../../../actors/kinds/order.js';
import { createRuntime, type Runtime } from '../../../actors/runtime.js';
import { createInProcessBus } from '../../../src/bus/index.js';
import { ManualClock } from '../../../src/clock.js';
import { fromErrorData, UnknownCommand } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import type { OrderCommand } from '../../../src/protocol/index.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import type { ActorStore } from '../../../src/store/types.js';
import { quoteRequest, routingResult } from '../../support/fixtures.js';
import { testHost, type TestHost } from '../../support/host.js';
import { DEFAULT_POLICY } from '../../support/order-host.js';

let host: TestHost;
afterEach(async () => host?.close());

const quoteRef = { kind: 'quote', id: 'q-1' } as const;

describe('The runtime answers a command its kind does not know with UnknownCommand', () => {
  it('for an actor that does not exist: typed error, nothing created', async () => {
    host = testHost({ route: async () => routingResult(true) });
    const r = await host.runtime.handle({ ref: quoteRef, message: { type: 'order.get' } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('unknown_command');
      expect(r.error.message).toBe('An actor of kind quote has no command "order.get".');
      expect(fromErrorData(r.error)).toBeInstanceOf(UnknownCommand);
    }
    expect(await host.store.load('quote', 'q-1')).toBeNull();
  });

  it('for an actor that exists: typed error, its snapshot untouched (not answered as a read)', async () => {
    host = testHost({ route: async () => routingResult(true) });
    const created = await host.runtime.handle({ ref: quoteRef, message: { type: 'quote.request', request: quoteRequest() } });
    expect(created.ok).toBe(true);
    const before = await host.store.load('quote', 'q-1');
    for (const type of ['quote.cancel', 'toString', '__proto__', 'hasOwnProperty']) {
      const r = await host.runtime.handle({ ref: quoteRef, message: { type } });
      expect(r.ok ? null : r.error.code, type).toBe('unknown_command');
    }
    // Off the wire anything may arrive, a message without a type too.
    const missing = await host.runtime.handle({ ref: quoteRef, message: JSON.parse('{}') });
    expect(missing.ok ? null : missing.error.code).toBe('unknown_command');
    expect((await host.store.load('quote', 'q-1'))!.version).toBe(before!.version);
  });

  it('the runtime\'s own wake-up is known to every kind and answers nothing (null)', async () => {
    host = testHost({ route: async () => routingResult(true) });
    await host.runtime.handle({ ref: quoteRef, message: { type: 'quote.request', request: quoteRequest() } });
    expect(await host.runtime.handle({ ref: quoteRef, message: { type: 'timer.due', at: 0 } })).toEqual({ ok: true, value: null });
  });
});

describe('The bus refuses an unknown command before sending it', () => {
  it('rejects with UnknownCommand, and the actor host never sees it', async () => {
    const bus = createInProcessBus(1_000, { verifyCodec: true });
    const seen: unknown[] = [];
    await bus.serve(async (e) => {
      seen.push(e);
      return { ok: true, value: null };
    });
    // @ts-expect-error an order command sent to a quote: refused by the compiler, and at run time by the bus.
    await expect(bus.request(quoteRef, { type: 'order.get' })).rejects.toThrow(new UnknownCommand('An actor of kind quote has no command "order.get".'));
    expect(seen).toEqual([]);
    await bus.close();
  });
});

describe('order.unwind: the command the core sends to cancel or unwind an order', () => {
  function orderRuntime(): { runtime: Runtime; store: ActorStore; kind: ReturnType<typeof orderKind> } {
    const unused = () => Promise.reject(new Error('no effect runs in this test'));
    const kind = orderKind({
      clock: new ManualClock(undefined, 1_000),
      vaults: { issue: unused },
      chains: { transfer: unused, transfers: unused },
      market: { venue: () => { throw new Error('no venue is asked in this test'); } },
      policy: DEFAULT_POLICY,
    });
    const store = openSqliteStore(':memory:');
    const runtime = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [kind] });
    return { runtime, store, kind };
  }

  it('becomes the machine event `unwind` at the host\'s instant, with or without a reason', () => {
    const { kind } = orderRuntime();
    const unwind: OrderCommand = { type: 'order.unwind', reason: 'stalled for a day' };
    expect(kind.toEvent(unwind, 5_000)).toEqual({ type: 'unwind', at: 5_000 });
    expect(kind.toEvent({ type: 'order.unwind' }, 6_000)).toEqual({ type: 'unwind', at: 6_000 });
    expect(kind.toEvent({ type: 'order.get' }, 6_000)).toBeNull();
    expect(kind.create('o-1', { type: 'order.unwind' })).toBeNull();
  });

  it('is accepted by the order kind: on an unknown order it answers OrderNotFound, not UnknownCommand', async () => {
    const { runtime, store } = orderRuntime();
    const r = await runtime.handle({ ref: { kind: 'order', id: 'o-404' }, message: { type: 'order.unwind' } });
    expect(r.ok ? null : r.error.code).toBe('order_not_found');
    expect(await store.load('order', 'o-404')).toBeNull();
    await runtime.drain();
    await store.close();
  });
});
