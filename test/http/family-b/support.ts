// Harness of Family B's black-box tests: the real createAppB on 127.0.0.1:0 over Family A's FakeBus (the same JSON
// codec as the real buses) answered by BWorld, and every answer checked against the document the app serves.
import { randomUUID } from 'node:crypto';
import { createAppB, GatewaySecret } from '../../../http/index.js';
import { collectedLogs, FakeBus, serveChecked, type Answered, type LogLine } from '../family-a/support.js';
import { BWorld } from './world.js';

export const GATEWAY_ID = 'test-gateway';
export const SECRET = new GatewaySecret('0123456789abcdef0123456789abcdef');
export const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
export const EVM_OTHER = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

export interface HarnessB {
  bus: FakeBus;
  world: BWorld;
  base: string;
  logs: LogLine[];
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Answered>;
  quote(body: unknown): Promise<Answered>;
  order(body: unknown): Promise<Answered>;
  cancel(orderId: string, body: unknown): Promise<Answered>;
  get(orderId: string, query?: string): Promise<Answered>;
  close(): Promise<void>;
}

export async function startB(): Promise<HarnessB> {
  const world = new BWorld();
  const bus = new FakeBus();
  bus.answer = world.answer;
  const { logs, logger } = collectedLogs();
  const app = createAppB({ bus, logger, newId: randomUUID, gatewayId: GATEWAY_ID, secret: SECRET, maxSlippageBps: 100, clock: world.clock });
  const served = await serveChecked(app);
  const { base } = served;
  const call: HarnessB['call'] = async (path, init = {}) => {
    const answered = await served.call(path, init);
    // Every non-2xx answer of Family B is the envelope.
    if (answered.status >= 400 && init.method !== 'HEAD') {
      if (Object.keys(answered.body ?? {}).join() !== 'error') throw new Error(`${path} ${answered.status} is not the envelope: ${answered.text}`);
    }
    return answered;
  };
  return {
    bus,
    world,
    base,
    logs,
    call,
    quote: (body) => call('/quote', { method: 'POST', json: body }),
    order: (body) => call('/order/market', { method: 'POST', json: body }),
    cancel: (orderId, body) => call(`/order/${orderId}/cancel`, { method: 'POST', json: body }),
    get: (orderId, query = '') => call(`/order/${orderId}${query}`),
    close: served.close,
  };
}

/** A quote body every rule accepts: 1000 base.USDC into arbitrum.USDC. */
export function quoteBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '1000', ...over };
}

/** Quotes and returns the quote's answer body. */
export async function quoted(h: HarnessB, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const q = await h.quote(quoteBody(over));
  if (q.status !== 200) throw new Error(`quote failed: ${q.text}`);
  return q.body as Record<string, any>;
}
