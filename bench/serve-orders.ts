// Child process of the order benchmark. `service`: the embedded service on a free loopback port; prints
// {"port", "dataDir"} when ready, then answers each line on stdin with the store's write counts (commits, writes).
// `memory` (run with --expose-gc): open orders held in memory, then passivated.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { toQuoteRequest } from '../http/family-a/index.js';
import { assetById, validateAddress } from '../src/assets/index.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createEmbeddedService } from '../src/service.js';
import { encodeJson } from '../src/store/index.js';

const BASE_ENV = { ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off', ROUTER_LOG_LEVEL: 'silent', ROUTER_DEV_LISTENER: 'off' };

async function serveService(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'router-bench-orders-'));
  const config = loadConfig({ ...process.env, ...BASE_ENV, ROUTER_DATA_DIR: dataDir });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  const server = service.appA.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0, dataDir }) + '\n');
  });
  // The bench's phases leave its connections idle for longer than Node's 5 s keep-alive: a socket the server closes
  // just as the client reuses it fails a request ("other side closed") on a slow, shared machine.
  server.keepAliveTimeout = 120_000;
  // The bench asks between phases how many transactions the store committed (SQLite's own count of its COMMITs).
  createInterface({ input: process.stdin }).on('line', () => process.stdout.write(JSON.stringify(service.store.stats()) + '\n'));
  process.on('SIGTERM', () => process.exit(0));
}

/** The embedded service with a short passivation delay (ROUTER_IDLE_MS), so the orders leave memory within the run. */
async function serviceWithIdle(dataDir: string, idleMs: number) {
  const config = loadConfig({ ...process.env, ...BASE_ENV, ROUTER_DATA_DIR: dataDir, ROUTER_IDLE_MS: String(idleMs) });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  return service;
}

interface Mem { rss: number; heapUsed: number; external: number }

async function settledMemory(): Promise<Mem> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the memory child with node --expose-gc');
  // Several passes with turns of the event loop between them, so weak callbacks and finalizers have run.
  for (let i = 0; i < 4; i++) {
    gc();
    await sleep(50);
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external + m.arrayBuffers };
}

async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function memory(): Promise<void> {
  const K = Number(process.env.BENCH_MEM_ORDERS ?? 4000);
  const WARM = Number(process.env.BENCH_MEM_WARMUP ?? 300);
  const idleMs = Number(process.env.BENCH_IDLE_MS ?? 8000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 10);
  // Durability is not what this child measures: tmpfs keeps order creation quick enough to finish inside idleMs.
  const root = process.env.BENCH_MEM_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const dataDir = mkdtempSync(join(root, 'router-bench-mem-'));
  const { bus, runtime, store } = await serviceWithIdle(dataDir, idleMs);

  const pair = JSON.parse(process.env.BENCH_PAIR ?? '{}') as { from: string; to: string; from_amount: string; to_address: string };
  const quote = await bus.request({ kind: 'quote', id: randomUUID() }, { type: 'quote.request', request: toQuoteRequest({ from: pair.from, to: pair.to, from_amount: pair.from_amount, return_full_route: true }) });
  const toAddress = validateAddress(assetById(quote.request.to).chain, pair.to_address, 'to_address');
  // Straight to the order actor with a quote in hand (what the quote's host sends after quote.bind): no quote actor
  // stays in memory beside the orders, so the difference is the orders' own. One quote serves them all; nothing binds.
  // Ids are made before the first measurement so that their strings are not counted as the orders' memory.
  const warmIds = Array.from({ length: WARM }, () => randomUUID());
  const ids = Array.from({ length: K }, () => randomUUID());
  const creator = (list: string[]) => async (i: number) => {
    const id = list[i]!;
    const o = await bus.request({ kind: 'order', id }, { type: 'order.create', quote, toAddress, refundAddress: null });
    if (o.status !== 'awaiting_deposit') throw new Error(`order ${id} is ${o.status}, not awaiting_deposit`);
  };
  const waitPassivated = async () => {
    const until = Date.now() + idleMs * 3 + 10_000;
    while (runtime.activeCount() > 0 && Date.now() < until) await sleep(250);
    return runtime.activeCount();
  };

  await inParallel(WARM, concurrency, creator(warmIds));
  const leftWarm = await waitPassivated();
  const before = await settledMemory();
  const t0 = performance.now();
  await inParallel(K, concurrency, creator(ids));
  const createMs = performance.now() - t0;
  const activeAfterCreate = runtime.activeCount();
  const inMemory = await settledMemory();
  const leftAfter = await waitPassivated();
  const passivated = await settledMemory();

  // Baseline: the same K snapshot documents, decoded, held in a Map (what a plain cache of the snapshots costs).
  const docs = await Promise.all(ids.map(async (id) => (await store.load('order', id))!.snapshot));
  const docBytes = docs.reduce<number>((s, d) => s + Buffer.byteLength(encodeJson(d)), 0) / docs.length;
  docs.length = 0;
  const mapBefore = await settledMemory();
  const map = new Map<string, unknown>();
  for (const id of ids) map.set(id, (await store.load('order', id))!.snapshot);
  const mapAfter = await settledMemory();

  process.stdout.write(
    JSON.stringify({
      K, idleMs, dataDir, createMs, leftWarm, activeAfterCreate, leftAfter, docBytes, mapSize: map.size,
      before, inMemory, passivated, mapBefore, mapAfter,
    }) + '\n',
  );
  process.exit(0);
}

const mode = process.argv[2];
if (mode === 'service') await serveService();
else if (mode === 'memory') await memory();
else throw new Error('usage: serve-orders.ts service|memory');
