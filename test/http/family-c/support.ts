// Harness of Family C's black-box tests: the real embedded service in-process (actors, store, simulated chains and
// venues, latency 0, failures off), Family C reached over HTTP at `urlC`, and every answer checked against the
// document the app serves; every non-2xx must be the `{error: {code, message, details}}` envelope.
import { expect } from 'vitest';
import { pollUntil } from '../../support/poll.js';
import { startService, type RunningService } from '../../support/service.js';
import { Contract, type Answered } from '../family-a/support.js';

export const DEST = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
export const SENDER = '0x000000000000000000000000000000000000dEaD';
export const BTC_ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';

/** Currencies of the registry, as the wire writes them. */
export const CUR = {
  baseUsdc: { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 } },
  arbUsdc: { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 } },
  baseEth: { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'NATIVE', decimals: 18 } },
  btc: { chain: { kind: 'BITCOIN' }, token: { kind: 'NATIVE', decimals: 8 } },
  hype: { chain: { kind: 'HYPERCORE' }, token: { kind: 'NATIVE', decimals: 8 } },
  hlUsdc: { chain: { kind: 'HYPERCORE' }, token: { kind: 'TOKEN', address: '0x6d1e7cde53ba9467b783cb7c530ce054', decimals: 8 } },
  robinhoodUsdg: { chain: { kind: 'EVM', chainId: 4663 }, token: { kind: 'TOKEN', address: '0x5fc5360d0400a0fd4f2af552add042d716f1d168', decimals: 6 } },
} as const;

export interface HarnessC {
  svc: RunningService;
  contract: Contract;
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Answered>;
  quote(body: unknown): Promise<Answered>;
  order(body: unknown): Promise<Answered>;
  orders(query?: string): Promise<Answered>;
  /** A deposit on the simulated chain, `amount` in asset units (the dev listener's `formatted` amounts). */
  deposit(to: string, asset: string, amount: string, from?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startC(env: Record<string, string> = {}): Promise<HarnessC> {
  const svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50', ...env });
  const contract = await Contract.load(svc.urlC);
  const call: HarnessC['call'] = async (path, init = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const res = await fetch(svc.urlC + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    const text = await res.text();
    const answered: Answered = { status: res.status, headers: res.headers, text, body: undefined };
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) answered.body = JSON.parse(text);
    contract.check(path, (rest.method ?? 'GET').toUpperCase(), answered);
    if (res.status >= 400 && rest.method !== 'HEAD') {
      expect(Object.keys(answered.body ?? {}), `${path} ${res.status} is not the envelope: ${text}`).toEqual(['error']);
      expect(Object.keys(answered.body.error)).toEqual(['code', 'message', 'details']);
    }
    return answered;
  };
  return {
    svc,
    contract,
    call,
    quote: (body) => call('/quote', { method: 'POST', json: body }),
    order: (body) => call('/order/market', { method: 'POST', json: body }),
    orders: (query = '') => call(`/orders${query}`),
    async deposit(to, asset, amount, from = SENDER) {
      const r = await svc.post(`${svc.devUrl}/deposits`, { to, asset, amount, from });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    },
    close: () => svc.stop(),
  };
}

/** A quote body every rule accepts: 1000 USDC on Base into USDC on Arbitrum, exact input, 0.5 % slippage. */
export function quoteBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'EXACT_INPUT', from: CUR.baseUsdc, to: CUR.arbUsdc, amount: '1000000000', slippageBps: 50, ...over };
}

/** Quotes and returns the answer body (fails the test on anything but 200). */
export async function quoted(h: HarnessC, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const q = await h.quote(quoteBody(over));
  expect(q.status, q.text).toBe(200);
  return q.body as Record<string, any>;
}

/** An order body for a quote id from Base: the sender and refund are SENDER, the destination DEST. */
export function orderBody(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, destinationAddress: DEST, refundAddress: SENDER, senderAddress: SENDER, ...over };
}

/** Polls GET /orders (filtered by `query`) until the order shows one of `statuses`; answers its item. */
export async function untilListed(h: HarnessC, orderId: string, statuses: string[], query = '', ms = 10_000): Promise<Record<string, any> | undefined> {
  return pollUntil(
    async () => ((await h.orders(query)).body.items as Array<Record<string, any>>).find((i) => i.orderId === orderId),
    (item) => item !== undefined && statuses.includes(item.status),
    ms,
    25,
  );
}
