// The one contract every Bus adapter passes (in-process for embedded mode, NATS for the cluster).
import { describe, expect, it } from 'vitest';
import type { Bus, Envelope } from '../../../src/bus/types.js';
import { MalformedMessage, OrderNotFound, toErrorData, Unavailable, UnknownCommand } from '../../../src/errors.js';
import type { OrderDeposit } from '../../../src/protocol/index.js';
import { orderViewOf } from '../../support/fixtures.js';

/** Serves `bus` with a host that records every envelope it is handed and answers each with `value`. */
async function recordingHost(bus: Bus, value: unknown): Promise<{ seen: Envelope[]; stop: () => Promise<void> }> {
  const seen: Envelope[] = [];
  const stop = await bus.serve(async (e) => {
    seen.push(e);
    return { ok: true, value };
  });
  return { seen, stop };
}

export function busContract(name: string, open: () => Promise<{ bus: Bus; close(): Promise<void> }>): void {
  describe(`Bus contract: ${name}`, () => {
    it('a request reaches the actor host with its ref, command and request id, and the reply value comes back (bigints too)', async () => {
      const { bus, close } = await open();
      const order = orderViewOf({ id: 'a1', fromAmount: 2n ** 200n });
      const { seen, stop } = await recordingHost(bus, order);
      const deposit = { type: 'deposit', txId: 't-1', from: '0xabc', amount: 2n ** 70n, confirmations: 1, required: 3 } as const;
      expect(await bus.request({ kind: 'order', id: 'a1' }, deposit, { requestId: 'r-1' })).toEqual(order);
      expect(seen).toEqual([{ ref: { kind: 'order', id: 'a1' }, message: deposit, requestId: 'r-1' }]);
      await stop();
      await close();
    });

    it('a command whose fields are not its type\'s in the protocol is refused with MalformedMessage before its actor sees it', async () => {
      const { bus, close } = await open();
      const { seen, stop } = await recordingHost(bus, orderViewOf());
      // As a sender of another version would send it: the amount as a number, not base units.
      const deposit = { type: 'deposit', txId: 't-1', from: '0xabc', amount: 5, confirmations: 1, required: 3 } as unknown as OrderDeposit;
      await expect(bus.request({ kind: 'order', id: 'a1' }, deposit)).rejects.toBeInstanceOf(MalformedMessage);
      expect(seen).toEqual([]);
      await stop();
      await close();
    });

    it('a reply whose value is not the protocol\'s reply to its command is refused with MalformedMessage', async () => {
      const { bus, close } = await open();
      const { status: _left, ...withoutStatus } = orderViewOf();
      const stop = await bus.serve(async () => ({ ok: true, value: withoutStatus }));
      await expect(bus.request({ kind: 'order', id: 'a1' }, { type: 'order.get' })).rejects.toThrow(
        new MalformedMessage('The reply of order a1 to "order.get" does not have the fields of this version\'s protocol: it fails at `status`.'),
      );
      await stop();
      await close();
    });

    it('a command its kind does not know is refused with UnknownCommand, and nothing is sent', async () => {
      const { bus, close } = await open();
      const { seen, stop } = await recordingHost(bus, null);
      // @ts-expect-error quote.get is a quote command: the compiler refuses it for an order, and so does the bus.
      await expect(bus.request({ kind: 'order', id: 'a1' }, { type: 'quote.get' })).rejects.toBeInstanceOf(UnknownCommand);
      expect(seen).toEqual([]);
      await stop();
      await close();
    });

    it('a failure reply is thrown as the typed error it names', async () => {
      const { bus, close } = await open();
      const stop = await bus.serve(async () => ({ ok: false, error: toErrorData(new OrderNotFound('Order x does not exist.')) }));
      await expect(bus.request({ kind: 'order', id: 'x' }, { type: 'order.get' })).rejects.toBeInstanceOf(OrderNotFound);
      await stop();
      await close();
    });

    it('an actor that does not answer in time is Unavailable', async () => {
      const { bus, close } = await open();
      const stop = await bus.serve(() => new Promise(() => {}));
      await expect(bus.request({ kind: 'order', id: 'slow' }, { type: 'order.get' }, { timeoutMs: 200 })).rejects.toBeInstanceOf(Unavailable);
      await stop();
      await close();
    });

    it('with nobody serving, a request is Unavailable', async () => {
      const { bus, close } = await open();
      await expect(bus.request({ kind: 'order', id: 'none' }, { type: 'order.get' }, { timeoutMs: 500 })).rejects.toBeInstanceOf(Unavailable);
      await close();
    });
  });
}
