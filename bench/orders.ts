// Order benchmark. (1) Durable order creations per second through POST /order (one fresh quote per order, latency
// scale 0), beside the raw SQLite store's save rate for documents the size of a real order snapshot, same run.
// (2) Memory per open order, held in memory and after passivation, beside the same snapshots held in a Map.
// Usage: npm run bench:orders   (BENCH_ORDERS=1000 BENCH_ROUNDS=3 BENCH_CONCURRENCY=10
// BENCH_MEM_ORDERS=4000 BENCH_IDLE_MS=8000 by default; BENCH_ONLY=rate|memory)
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { encodeJson, openSqliteStore } from '../src/store/index.js';
import { drive, post as postTo, type Rate } from './common.js';
import { median } from './stats.js';
import { recordResults } from './results.js';

const N = Number(process.env.BENCH_ORDERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const MEM_ORDERS = Number(process.env.BENCH_MEM_ORDERS ?? 4000);
const ONLY = process.env.BENCH_ONLY; // 'rate' | 'memory'

const TO_EVM = '0x1111111111111111111111111111111111111111';
// Pairs quoted cheaply (few venues, small search); the fastest one in this run makes the quotes for the orders.
const PAIRS = [
  { from: 'bitcoin.btc', to: 'ethereum.usdc', from_amount: '0.1', to_address: TO_EVM },
  { from: 'bitcoin.btc', to: 'hyperliquid.ubtc', from_amount: '0.1', to_address: TO_EVM },
  { from: 'ethereum.eth', to: 'ethereum.usdc', from_amount: '1', to_address: TO_EVM },
  { from: 'hyperliquid.usdc', to: 'hyperliquid.hype', from_amount: '1000', to_address: TO_EVM },
];
type Pair = (typeof PAIRS)[number];

interface WriteStats { commits: number; writes: number }

async function startService(): Promise<{ port: number; dataDir: string; child: ChildProcess; stats(): Promise<WriteStats> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/serve-orders.ts', 'service'], {
    // The deposit scanner writes its cursors on every pass; no deposit is made here, so it passes once in ten minutes and
    // the store's count of writes in a round is the creations' own (what is left of the background is still taken off).
    env: { ...process.env, ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off', ROUTER_DEPOSIT_POLL_MS: '600000' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, 'line')) as [string];
  // The child answers each line on its stdin with its store's counts of committed transactions and writes.
  const stats = async (): Promise<WriteStats> => {
    const answer = once(rl, 'line');
    child.stdin!.write('stats\n');
    const [l] = (await answer) as [string];
    return JSON.parse(l) as WriteStats;
  };
  return { ...(JSON.parse(line) as { port: number; dataDir: string }), child, stats };
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  await once(child, 'exit');
}


const post = <T>(port: number, path: string, body: unknown, expect: number): Promise<T> => postTo<T>(`http://127.0.0.1:${port}`, path, body, expect);

const quoteBody = (p: Pair) => ({ from: p.from, to: p.to, from_amount: p.from_amount, return_full_route: false });

async function makeQuotes(port: number, pair: Pair, count: number): Promise<{ ids: string[]; rate: Rate }> {
  const ids: string[] = new Array<string>(count);
  const rate = await drive(count, CONCURRENCY, async (i) => {
    ids[i] = (await post<{ id: string }>(port, '/quote', quoteBody(pair), 200)).id;
  });
  return { ids, rate };
}

async function pickPair(port: number): Promise<Pair> {
  const rows = [];
  let best: { pair: Pair; perSec: number } | null = null;
  for (const pair of PAIRS) {
    try {
      await makeQuotes(port, pair, CONCURRENCY); // warm-up of this pair's venues and code paths
      const { rate } = await makeQuotes(port, pair, 60);
      rows.push({ pair: `${pair.from} → ${pair.to}`, 'quotes/s': Math.round(rate.perSec), 'p50 ms': +rate.p50.toFixed(1) });
      if (!best || rate.perSec > best.perSec) best = { pair, perSec: rate.perSec };
    } catch (err) {
      rows.push({ pair: `${pair.from} → ${pair.to}`, 'quotes/s': 0, 'p50 ms': NaN, note: String(err).slice(0, 80) });
    }
  }
  console.log('\nQuote rate of candidate pairs (60 quotes each; the fastest makes the orders\' quotes):');
  console.table(rows);
  if (!best) throw new Error('no candidate pair could be quoted');
  return best.pair;
}

interface Db { counts(): { orders: number; orderVersions: number; quoteVersions: number; sequence: number; keyed: number } }

/** Read-only look at the service's SQLite file: how many durable writes an order creation made. */
function inspect(dataDir: string): Db {
  const db = new Database(join(dataDir, 'router.sqlite'), { readonly: true, fileMustExist: true });
  const actors = db.prepare<[string], { n: number; v: number }>('SELECT count(*) AS n, coalesce(sum(version), 0) AS v FROM actors WHERE kind = ?');
  const seq = db.prepare<[], { s: number }>('SELECT coalesce(sum(next), 0) AS s FROM sequences');
  const keyed = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM keyed');
  return {
    counts() {
      const o = actors.get('order')!;
      return { orders: o.n, orderVersions: o.v, quoteVersions: actors.get('quote')!.v, sequence: seq.get()!.s, keyed: keyed.get()!.n };
    },
  };
}

async function rate(): Promise<Pair> {
  const svc = await startService();
  const rawDir = mkdtempSync(join(tmpdir(), 'router-bench-raw-'));
  // A fresh file on the same file system as the service's, opened by the same adapter (WAL, synchronous=FULL).
  const raw = openSqliteStore(join(rawDir, 'raw.sqlite'));
  const res: Record<'quotes' | 'orders' | 'rawSeq' | 'rawConc', Rate[]> = { quotes: [], orders: [], rawSeq: [], rawConc: [] };
  let doc: unknown = null;
  let docBytes = 0;
  const writes: number[] = [];
  const commits: number[] = [];
  const storeWrites: number[] = [];
  const backgroundWrites: number[] = [];
  let rawId = 0;
  const saveDoc = async () => {
    await raw.save({ kind: 'order', id: `raw-${rawId++}`, snapshot: doc, expectedVersion: 0, epoch: 0, wakeAt: Date.now() + 7 * 86_400_000, updatedAt: Date.now() });
  };
  try {
    const pair = await pickPair(svc.port);
    const db = inspect(svc.dataDir);
    // Round 0 warms up (JIT, file growth) and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      const { ids, rate: q } = await makeQuotes(svc.port, pair, N);
      // The service writes on its own too (the deposit scanner's cursors): its rate over an idle second is taken off
      // the creations' count, so the figure is what creating an order writes.
      const idle0 = await svc.stats();
      const idleT0 = performance.now();
      await new Promise((r) => setTimeout(r, 1000));
      const idle1 = await svc.stats();
      const backgroundPerMs = (idle1.writes - idle0.writes) / (performance.now() - idleT0);
      const c0 = db.counts();
      const s0 = await svc.stats();
      const t0 = performance.now();
      const orderIds: string[] = new Array<string>(N);
      const o = await drive(N, CONCURRENCY, async (i) => {
        const order = await post<{ id: string; status: string }>(svc.port, '/order', { quote_id: ids[i], to_address: pair.to_address }, 201);
        if (order.status !== 'awaiting_deposit') throw new Error(`order ${order.id} is ${order.status}`);
        orderIds[i] = order.id;
      });
      const c1 = db.counts();
      const s1 = await svc.stats();
      commits.push((s1.commits - s0.commits) / N);
      storeWrites.push((s1.writes - s0.writes - backgroundPerMs * (performance.now() - t0)) / N);
      backgroundWrites.push(backgroundPerMs * 1000);
      if (c1.orders - c0.orders !== N) throw new Error(`expected ${N} new orders, the store holds ${c1.orders - c0.orders}`);
      // Rows the creations changed, read from the file: order versions, the quote's bind, vault indexes, address keys.
      writes.push((c1.orderVersions - c0.orderVersions + c1.quoteVersions - c0.quoteVersions + c1.sequence - c0.sequence + c1.keyed - c0.keyed) / N);
      if (doc === null) {
        // The document for the baseline: a real order snapshot as it was stored (awaiting its deposit).
        const reader = openSqliteStore(join(svc.dataDir, 'router.sqlite'));
        doc = (await reader.load('order', orderIds[0]!))!.snapshot;
        await reader.close();
        docBytes = Buffer.byteLength(encodeJson(doc));
      }
      const s = await drive(N, 1, saveDoc);
      const c = await drive(N, CONCURRENCY, saveDoc);
      if (r === 0) continue;
      res.quotes.push(q);
      res.orders.push(o);
      res.rawSeq.push(s);
      res.rawConc.push(c);
    }
    const m = (k: keyof typeof res, f: keyof Rate) => median(res[k].map((x) => x[f]));
    const rows = [
      ['raw store.save, sequential', 'rawSeq'],
      [`raw store.save, ${CONCURRENCY} concurrent callers`, 'rawConc'],
      [`POST /order, ${CONCURRENCY} concurrent (durable)`, 'orders'],
      [`POST /quote ${pair.from}→${pair.to} (context)`, 'quotes'],
    ] as const;
    console.log(
      `\nLatency scale 0, failures off; ${ROUNDS} rounds × ${N} orders after a warm-up round; documents of ${docBytes} bytes ` +
        `(a real order snapshot); medians:`,
    );
    console.table(
      rows.map(([name, k]) => ({
        case: name,
        'per s': Math.round(m(k, 'perSec')),
        'p50 ms': +m(k, 'p50').toFixed(2),
        'p99 ms': +m(k, 'p99').toFixed(2),
        '÷ raw seq': +(m(k, 'perSec') / m('rawSeq', 'perSec')).toFixed(3),
        '÷ raw same conc.': +(m(k, 'perSec') / m('rawConc', 'perSec')).toFixed(3),
      })),
    );
    console.log(`  durable store transactions per order creation (store writes, each atomic, less the background's ${median(backgroundWrites).toFixed(1)}/s measured idle before each round; median over rounds): ${median(storeWrites).toFixed(2)}`);
    console.log(`  SQLite COMMITs (fsyncs) per order creation, ${CONCURRENCY} concurrent, group commit (median): ${median(commits).toFixed(2)}`);
    console.log(`  rows written per order creation, read from the file (versions, sequence, keys; median): ${median(writes).toFixed(2)}`);
    recordResults('orders', { ordersPerRawSave: m('orders', 'perSec') / m('rawSeq', 'perSec'), transactionsPerOrder: median(storeWrites) });
    return pair;
  } finally {
    await raw.close();
    await stop(svc.child);
    rmSync(rawDir, { recursive: true, force: true });
    rmSync(svc.dataDir, { recursive: true, force: true });
  }
}

interface MemResult {
  K: number; idleMs: number; dataDir: string; createMs: number; leftWarm: number; activeAfterCreate: number; leftAfter: number;
  docBytes: number; mapSize: number;
  before: Mem; inMemory: Mem; passivated: Mem; mapBefore: Mem; mapAfter: Mem;
}
interface Mem { rss: number; heapUsed: number; external: number }

async function memory(pair: Pair) {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/serve-orders.ts', 'memory'], {
    env: { ...process.env, BENCH_MEM_ORDERS: String(MEM_ORDERS), BENCH_PAIR: JSON.stringify(pair) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit');
  const line = await Promise.race([
    once(rl, 'line').then(([l]) => l as string),
    exited.then(([code]) => Promise.reject(new Error(`memory child exited (${String(code)}) without a result`))),
  ]);
  await exited;
  const r = JSON.parse(line) as MemResult;
  rmSync(r.dataDir, { recursive: true, force: true });
  if (r.activeAfterCreate !== r.K || r.leftWarm !== 0 || r.leftAfter !== 0) {
    console.warn(`  warning: ${r.activeAfterCreate} of ${r.K} actors in memory after creation, ${r.leftAfter} left after passivation; ` +
      'raise BENCH_IDLE_MS so creation ends before the first ones go idle.');
  }
  const per = (a: Mem, b: Mem, f: keyof Mem, k: number) => Math.round((b[f] - a[f]) / k);
  console.log(`\nMemory: ${r.K} open orders (awaiting deposit) created in ${(r.createMs / 1000).toFixed(1)} s, after GC; ` +
    `passivation after ${r.idleMs} ms idle; snapshot documents of ${Math.round(r.docBytes)} bytes as JSON:`);
  console.table([
    { case: 'open order, actor in memory', 'heap B/order': per(r.before, r.inMemory, 'heapUsed', r.K), 'RSS B/order': per(r.before, r.inMemory, 'rss', r.K) },
    { case: 'open order, after passivation', 'heap B/order': per(r.before, r.passivated, 'heapUsed', r.K), 'RSS B/order': per(r.before, r.passivated, 'rss', r.K) },
    { case: 'baseline: decoded snapshot in a Map', 'heap B/order': per(r.mapBefore, r.mapAfter, 'heapUsed', r.mapSize), 'RSS B/order': per(r.mapBefore, r.mapAfter, 'rss', r.mapSize) },
  ]);
  const ratio = (r.inMemory.heapUsed - r.before.heapUsed) / (r.mapAfter.heapUsed - r.mapBefore.heapUsed);
  console.log(`  heap of an in-memory order ÷ its snapshot in a Map: ${ratio.toFixed(1)}`);
}

// The memory run uses the pair the rate run picked, so both measure the same kind of order (source chain, route).
const picked = ONLY === 'memory' ? PAIRS[0]! : await rate();
if (ONLY !== 'rate') await memory(picked);
