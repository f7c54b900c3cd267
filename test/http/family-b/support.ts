// Harness of Family B's black-box tests: the real createAppB on 127.0.0.1:0 over Family A's FakeBus (the same JSON
// codec as the real buses) answered by BWorld, and every answer checked against the document the app serves.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createAppB, GatewaySecret } from '../../../http/index.js';
import { Contract, FakeBus, type Answered, type LogLine } from '../family-a/support.js';
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
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
      cb();
    },
  });
  const app = createAppB({ bus, logger: pino({ level: 'debug' }, sink), newId: randomUUID, gatewayId: GATEWAY_ID, secret: SECRET, maxSlippageBps: 100, clock: world.clock });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const contract = await Contract.load(base);
  const call: HarnessB['call'] = async (path, init = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const res = await fetch(base + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    const text = await res.text();
    const answered: Answered = { status: res.status, headers: res.headers, text, body: undefined };
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) answered.body = JSON.parse(text);
    contract.check(path, (rest.method ?? 'GET').toUpperCase(), answered);
    // Every non-2xx answer of Family B is the envelope.
    if (res.status >= 400 && rest.method !== 'HEAD') {
      if (Object.keys(answered.body ?? {}).join() !== 'error') throw new Error(`${path} ${res.status} is not the envelope: ${text}`);
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
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
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
