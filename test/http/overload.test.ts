// Overload, as an attacker would try it from one client: a full cap of slow quotes must not slow /health, one more
// quote is shed at once with 503 and Retry-After in each family's envelope; a per-address rate limit answers 429;
// bytes sent after a request are logged once, truncated, at warn.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createEmbeddedService, type EmbeddedService } from '../../src/service.js';
import { waitUntil } from '../support/poll.js';
import { startService, type RunningService } from '../support/service.js';

const CAP = 4;
const QUOTES = {
  A: { path: '', body: { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', quote_mode: 'fast', return_full_route: false } },
  B: { path: 'B', body: { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '2500' } },
  C: {
    path: 'C',
    body: {
      type: 'EXACT_INPUT',
      from: { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 } },
      to: { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 } },
      amount: '2500000000',
      slippageBps: 50,
    },
  },
} as const;
type Family = keyof typeof QUOTES;

function urlOf(svc: RunningService, family: Family): string {
  return family === 'A' ? svc.url : family === 'B' ? svc.urlB : svc.urlC;
}

async function postQuote(svc: RunningService, family: Family): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${urlOf(svc, family)}/quote`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(QUOTES[family].body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';

/** An order from a quote answer of the family, through the same family. */
async function postOrder(svc: RunningService, family: Family, quote: any): Promise<{ status: number; body: any }> {
  const body =
    family === 'A' ? { quote_id: quote.id, to_address: TO, refund_address: SENDER }
    : family === 'B' ? { quoteId: quote.quoteId, fromAddress: SENDER, toAddress: TO, refundMode: 'token' }
    : { id: quote.id, destinationAddress: TO, refundAddress: SENDER, senderAddress: SENDER };
  const res = await fetch(`${urlOf(svc, family)}${family === 'A' ? '/order' : '/order/market'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A read of the family that shows the order: A's and B's `GET /order/{id}`, C's `GET /orders`. */
function readPath(family: Family, order: any): string {
  return family === 'A' ? `/order/${order.id}` : family === 'B' ? `/order/${order.orderId}` : '/orders';
}

function expectEnvelope(family: Family, body: any, code: 'unavailable' | 'rate_limited'): void {
  if (family === 'A') {
    expect(Object.keys(body)).toEqual(['error']);
    expect(typeof body.error).toBe('string');
  } else {
    expect(body).toEqual({ error: { code, message: expect.any(String), details: {} } });
  }
}

describe('Load shedding: quotes beyond the cap in flight answer 503 at once; /health stays fast at the cap', () => {
  let svc: RunningService;
  beforeAll(async () => {
    // Slow venues (ten times the catalog's latency) cut off at 1.5 s: every quote holds its slot for seconds. Only the
    // cap sheds here (lag shedding is tested on its own in overload-guard.test.ts).
    svc = await startService({
      ROUTER_MAX_QUOTES_IN_FLIGHT: String(CAP),
      ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0',
      ROUTER_SHED_ADMISSIONS_PER_TURN: '0',
      ROUTER_SIM_LATENCY_SCALE: '10',
      ROUTER_DEADLINE_FAST_MS: '1500',
      ROUTER_DEADLINE_OPTIMAL_MS: '1500',
    });
  });
  afterAll(async () => {
    await svc.stop();
  });

  for (const family of ['A', 'B', 'C'] as const) {
    it(`Family ${family}: with the cap full of slow quotes, /health answers within 100 ms and one more quote gets 503 with Retry-After in the family's envelope`, async () => {
      const held = Array.from({ length: CAP }, () => postQuote(svc, family));
      await waitUntil(() => svc.service.guard.inFlight() === CAP, 'the held quotes to fill the cap', 5000, 10);

      const t0 = performance.now();
      const health = await fetch(`${urlOf(svc, family)}/health`);
      const healthMs = performance.now() - t0;
      expect(health.status).toBe(200);
      expect(await health.text()).toBe('ok');
      expect(healthMs).toBeLessThan(100);

      const t1 = performance.now();
      const shed = await postQuote(svc, family);
      const shedMs = performance.now() - t1;
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('1');
      expect(shed.headers.get('x-request-id')).toBeTruthy();
      expectEnvelope(family, shed.body, 'unavailable');
      // Refused before any venue is asked: far below the venues' 1.5 s.
      expect(shedMs).toBeLessThan(100);

      // The held quotes finish as usual, and their slots are given back.
      const answers = await Promise.all(held);
      for (const a of answers) expect([200, 422]).toContain(a.status);
      expect(svc.service.guard.inFlight()).toBe(0);
    }, 60_000);
  }

  for (const family of ['A', 'B', 'C'] as const) {
    it(`Family ${family}: quotes whose bodies arrive slowly hold no slot; a quote sent whole meanwhile is served`, async () => {
      const port = Number(new URL(urlOf(svc, family)).port);
      // More slow senders than the cap: each sends its headers and the body's first byte, then nothing.
      const sockets = Array.from({ length: CAP + 2 }, () => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(`POST /quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
        return socket;
      });
      try {
        await new Promise((r) => setTimeout(r, 200));
        expect(svc.service.guard.inFlight()).toBe(0);
        const served = await postQuote(svc, family);
        expect([200, 422]).toContain(served.status);
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    }, 30_000);
  }

  it('a shed quote frees nothing it did not take: after the held quotes end, a quote is served again', async () => {
    const again = await postQuote(svc, 'B');
    expect([200, 422]).toContain(again.status);
  }, 30_000);
});

describe('At the cap only quotes are shed: orders, reads and /openapi.json pass (an order binds a quote the client holds)', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ ROUTER_MAX_QUOTES_IN_FLIGHT: String(CAP), ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0', ROUTER_SHED_ADMISSIONS_PER_TURN: '0' });
  });
  afterAll(async () => {
    await svc.stop();
  });

  for (const family of ['A', 'B', 'C'] as const) {
    it(`Family ${family}: with every quote slot taken, a quote gets 503; an order from a quote made before is 201, and it reads 200`, async () => {
      const quote = await postQuote(svc, family);
      expect(quote.status).toBe(200);
      // The cap filled by quotes that wait on a gate instead of on venues.
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const holds = Array.from({ length: CAP }, () => svc.service.guard.quoteSlot(() => gate));
      try {
        expect(svc.service.guard.inFlight()).toBe(CAP);
        const shed = await postQuote(svc, family);
        expect(shed.status).toBe(503);
        expectEnvelope(family, shed.body, 'unavailable');

        const order = await postOrder(svc, family, quote.body);
        expect(order.status, JSON.stringify(order.body)).toBe(201);
        expect((await fetch(`${urlOf(svc, family)}${readPath(family, order.body)}`)).status).toBe(200);
        expect((await fetch(`${urlOf(svc, family)}/openapi.json`)).status).toBe(200);
        expect((await fetch(`${urlOf(svc, family)}/health`)).status).toBe(200);
        expect(svc.service.guard.inFlight()).toBe(CAP);
      } finally {
        open();
        await Promise.all(holds);
      }
      expect(svc.service.guard.inFlight()).toBe(0);
    });
  }
});

describe('Per-client rate limit: a token bucket per remote address answers 429 with Retry-After', () => {
  let svc: RunningService;
  beforeAll(async () => {
    // 60 a minute is one a second: after the burst of 3 the next token is a second away.
    svc = await startService({ ROUTER_RATE_LIMIT_PER_MINUTE: '60', ROUTER_RATE_LIMIT_BURST: '3' });
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('is off by default: no bucket is kept and many requests pass', async () => {
    const plain = await startService();
    try {
      for (let i = 0; i < 30; i++) expect((await fetch(`${plain.url}/openapi.json`)).status).toBe(200);
      expect(plain.service.guard.trackedClients()).toBe(0);
    } finally {
      await plain.stop();
    }
  });

  for (const family of ['A', 'B', 'C'] as const) {
    it(`Family ${family}: past the burst, 429 with Retry-After in the family's envelope; /health is never limited`, async () => {
      // The bucket is per address, shared by the families: wait until it is full again.
      await new Promise((r) => setTimeout(r, 3100));
      const url = urlOf(svc, family);
      const first = await fetch(`${url}/openapi.json`);
      expect(first.status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
      const limited = await postQuote(svc, family);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(1);
      expectEnvelope(family, limited.body, 'rate_limited');
      for (let i = 0; i < 5; i++) expect((await fetch(`${url}/health`)).status).toBe(200);
      // Spelt as the router still serves it: another case, a trailing slash.
      for (const path of ['/HEALTH', '/health/']) expect((await fetch(`${url}${path}`)).status, path).toBe(200);
      // ... and the family's OpenAPI document says so: 429 for the quote, not for /health.
      const doc = (await first.json()) as { paths: Record<string, Record<string, { responses: object }>> };
      expect(Object.keys(doc.paths['/quote']!.post!.responses)).toContain('429');
      expect(Object.keys(doc.paths['/health']!.get!.responses)).not.toContain('429');
    }, 30_000);
  }
});

describe('Logs cannot be amplified: bytes a client sends after its request are logged once, truncated, at warn', () => {
  let dir: string;
  let service: EmbeddedService;
  const lines: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'router-logs-'));
    const config = loadConfig({ ROUTER_DATA_DIR: dir, ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_LOG_LEVEL: 'info' });
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
        cb();
      },
    });
    service = await createEmbeddedService(config, { logger: createLogger(config.logLevel, sink) });
    await service.start();
  });
  afterAll(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const family of ['A', 'B', 'C'] as const) {
    it(`Family ${family}: a request followed by 60 KB of garbage produces a bounded log (one warn line, input shown ≤ 256 bytes)`, async () => {
      const app = family === 'A' ? service.appA : family === 'B' ? service.appB : service.appC;
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const before = lines.length;
      const sent = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n' + '\u0001garbage'.repeat(7500);
      const socket = connect(port, '127.0.0.1');
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      await new Promise((r) => socket.once('connect', r));
      socket.write(sent);
      await new Promise((r) => socket.once('close', r));
      await new Promise((r) => setTimeout(r, 100));
      server.close();

      const fresh = lines.slice(before);
      const logged = fresh.reduce((n, l) => n + Buffer.byteLength(l), 0);
      expect(Buffer.byteLength(sent)).toBeGreaterThan(60_000);
      expect(logged).toBeLessThan(2048);
      const parsed = fresh.map((l) => JSON.parse(l) as { level: number; msg: string; client_error?: { input: string; truncated: boolean; code: string } });
      const warns = parsed.filter((l) => l.msg === 'unparsable input from a client');
      expect(warns).toHaveLength(1);
      expect(warns[0]!.level).toBe(40);
      expect(warns[0]!.client_error).toMatchObject({ code: expect.stringMatching(/^HPE_/), truncated: true });
      // 256 bytes at most, each shown as at most 4 characters (\xNN).
      expect(warns[0]!.client_error!.input.length).toBeLessThanOrEqual(256 * 4);
      expect(parsed.filter((l) => l.level >= 50)).toEqual([]);
    }, 15_000);
  }
});
