// Family B benchmark: quotes/s and order creations/s through the Family B gateway beside the same through Family A,
// one embedded service serving both (latency scale 0, failures off, SQLite in a fresh temp dir), same run, same
// rounds. The figures are the ratios B ÷ A; the target is B ≥ 0.90 × A (the translation costs at most 10 %). The
// bench reports PASS/FAIL against it and exits 0 either way.
// Usage: npm run bench:family-b   (BENCH_ROUNDS=5 BENCH_SECONDS=4 BENCH_ORDERS=300 BENCH_CONNECTIONS=10 by default)
// The service runs in a child process (this file with argument `serve`), so autocannon does not share its event loop.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createEmbeddedService } from '../src/service.js';
import { drive } from './common.js';
import { median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const N = Number(process.env.BENCH_ORDERS ?? 300);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TARGET = 0.9;

const TO_EVM = '0x1111111111111111111111111111111111111111';
const FROM_EVM = '0x2222222222222222222222222222222222222222';
/** Quote throughput: the direct pair of bench/quote.ts, the same request through both families. */
const QUOTE_PAIR = { from: 'base.usdc', to: 'arbitrum.usdc', amount: '2500' };
/** Quotes that make the orders: the cheap pair of bench/orders.ts and bench/cluster.ts (one venue, small search). */
const ORDER_PAIR = { from: 'hyperliquid.usdc', to: 'hyperliquid.hype', amount: '1000' };

type Family = 'A' | 'B';
const quoteBody = (f: Family, p: typeof QUOTE_PAIR) =>
  f === 'A'
    ? { from: p.from, to: p.to, from_amount: p.amount, return_full_route: true }
    : { from: p.from, to: p.to, fromAmount: p.amount, returnFullRoute: true };
const orderBody = (f: Family, quoteId: string) =>
  f === 'A'
    ? { quote_id: quoteId, to_address: TO_EVM }
    : { quoteId, fromAddress: FROM_EVM, toAddress: TO_EVM, refundMode: 'token' };
const orderPath = (f: Family) => (f === 'A' ? '/order' : '/order/market');

// ---- child: the embedded service, Family A and Family B on free loopback ports ----

async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'router-bench-family-b-'));
  const config = loadConfig({
    ...process.env,
    ROUTER_SIM_LATENCY_SCALE: '0',
    ROUTER_SIM_FAILURES: 'off',
    ROUTER_LOG_LEVEL: 'silent',
    ROUTER_DEV_LISTENER: 'off',
    ROUTER_DATA_DIR: dataDir,
  });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  const listen = (app: typeof service.appA) =>
    new Promise<number>((res) => {
      const server: Server = app.listen(0, '127.0.0.1', () => {
        const addr = server.address();
        res(typeof addr === 'object' && addr ? addr.port : 0);
      });
    });
  const portA = await listen(service.appA);
  const portB = await listen(service.appB);
  process.stdout.write(JSON.stringify({ portA, portB, dataDir }) + '\n');
  process.on('SIGTERM', () => process.exit(0));
}

// ---- parent: the load ----

interface Svc { portA: number; portB: number; dataDir: string; child: ChildProcess }

async function startService(): Promise<Svc> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit');
  const line = await Promise.race([
    once(rl, 'line').then(([l]) => l as string),
    exited.then(([code]) => Promise.reject(new Error(`service child exited (${String(code)}) before listening`))),
  ]);
  return { ...(JSON.parse(line) as { portA: number; portB: number; dataDir: string }), child };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface Run { perSec: number; p50: number; p99: number; count: number; ms: number }

/** Two halves of one family's measurement in a round: the rate over both; p50 and p99 the mean of the halves'. */
const joined = (a: Run, b: Run): Run => ({
  perSec: ((a.count + b.count) * 1000) / (a.ms + b.ms),
  p50: (a.p50 + b.p50) / 2,
  p99: (a.p99 + b.p99) / 2,
  count: a.count + b.count,
  ms: a.ms + b.ms,
});

/** autocannon over `path`: for `seconds` with one body, or exactly `bodies.length` requests, one body each. */
async function load(port: number, path: string, opts: { body: unknown; seconds: number } | { bodies: string[] }, expect: number): Promise<Run> {
  let bad = 0;
  let done = 0;
  let last = 0;
  let firstBad = '';
  // The rate is counted here, from the start to the last answer: autocannon's own `duration` ends on its next
  // sampling tick (every second), which would dominate a run of a few hundred orders.
  const onResponse = (status: number, body: string) => {
    done++;
    last = performance.now();
    if (status !== expect) {
      bad++;
      if (!firstBad) firstBad = `${status} ${body.slice(0, 300)}`;
    }
  };
  let next = 0;
  const t0 = performance.now();
  const r = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    ...('bodies' in opts
      ? {
          amount: opts.bodies.length,
          requests: [{ setupRequest: (req) => ({ ...req, body: opts.bodies[next++] }), onResponse }],
        }
      : { duration: opts.seconds, body: JSON.stringify(opts.body), requests: [{ onResponse }] }),
  });
  if (r.errors > 0 || bad > 0) throw new Error(`POST ${path}: ${r.errors} errors, ${bad} answers not ${expect} (first: ${firstBad})`);
  return { perSec: (done * 1000) / (last - t0), p50: r.latency.p50, p99: r.latency.p99, count: done, ms: last - t0 };
}

async function makeQuotes(port: number, f: Family, count: number): Promise<string[]> {
  const ids = new Array<string>(count);
  const body = JSON.stringify(quoteBody(f, ORDER_PAIR));
  await drive(count, CONNECTIONS, async (i) => {
    const res = await fetch(`http://127.0.0.1:${port}/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${f} POST /quote answered ${res.status}: ${text.slice(0, 300)}`);
    const q = JSON.parse(text) as { id?: string; quoteId?: string };
    ids[i] = (f === 'A' ? q.id : q.quoteId)!;
  });
  return ids;
}

async function quotes(svc: Svc, f: Family, seconds: number): Promise<Run> {
  return load(f === 'A' ? svc.portA : svc.portB, '/quote', { body: quoteBody(f, QUOTE_PAIR), seconds }, 200);
}

/** Makes `count` fresh quotes (untimed), then times `count` order creations, one per quote; checks 201 each. */
async function orders(svc: Svc, f: Family, count: number): Promise<Run> {
  const port = f === 'A' ? svc.portA : svc.portB;
  const ids = await makeQuotes(port, f, count);
  return load(port, orderPath(f), { bodies: ids.map((id) => JSON.stringify(orderBody(f, id))) }, 201);
}

const row = (name: string, r: Run, base: Run | null) => ({
  case: name,
  'per s': Math.round(r.perSec),
  'p50 ms': +r.p50.toFixed(1),
  'p99 ms': +r.p99.toFixed(1),
  'B ÷ A': base ? +(r.perSec / base.perSec).toFixed(3) : '',
});

async function main() {
  const started = performance.now();
  const svc = await startService();
  const res: Record<'qA' | 'qB' | 'oA' | 'oB', Run[]> = { qA: [], qB: [], oA: [], oB: [] };
  try {
    // Round 0 warms up (JIT of both edges, SQLite file growth) and is dropped. The family measured first alternates.
    for (let r = 0; r <= ROUNDS; r++) {
      // A-B-B-A (or B-A-A-B), each family's measurement in two halves: each family runs both first and last in every
      // round, so a drift within the round (e.g. the service still busy after the previous phase) hits both alike.
      const fams: Family[] = r % 2 === 0 ? ['A', 'B', 'B', 'A'] : ['B', 'A', 'A', 'B'];
      const qs: Record<Family, Run[]> = { A: [], B: [] };
      const os: Record<Family, Run[]> = { A: [], B: [] };
      const seconds = (r === 0 ? Math.min(2, SECONDS) : SECONDS) / 2;
      const count = Math.ceil((r === 0 ? Math.min(100, N) : N) / 2);
      for (const f of fams) qs[f].push(await quotes(svc, f, seconds));
      for (const f of fams) os[f].push(await orders(svc, f, count));
      const q = { A: joined(qs.A[0]!, qs.A[1]!), B: joined(qs.B[0]!, qs.B[1]!) };
      const o = { A: joined(os.A[0]!, os.A[1]!), B: joined(os.B[0]!, os.B[1]!) };
      if (r === 0) continue;
      res.qA.push(q.A);
      res.qB.push(q.B);
      res.oA.push(o.A);
      res.oB.push(o.B);
      console.log(`\nRound ${r} (${fams.join('-')}):`);
      console.table([
        row('A POST /quote', q.A, null),
        row('B POST /quote', q.B, q.A),
        row('A POST /order', o.A, null),
        row('B POST /order/market', o.B, o.A),
      ]);
    }
  } finally {
    await stop(svc.child);
    rmSync(svc.dataDir, { recursive: true, force: true });
  }

  const m = (k: keyof typeof res, f: keyof Run) => median(res[k].map((x) => x[f]));
  const med = (k: keyof typeof res): Run => ({ perSec: m(k, 'perSec'), p50: m(k, 'p50'), p99: m(k, 'p99'), count: 0, ms: 0 });
  const perRound = (b: 'qB' | 'oB', a: 'qA' | 'oA') => median(res[b].map((x, i) => x.perSec / res[a][i]!.perSec));
  console.log(
    `\nLatency scale 0, failures off, ${CONNECTIONS} connections; ${ROUNDS} rounds after a warm-up round; quotes: ` +
      `${QUOTE_PAIR.from}→${QUOTE_PAIR.to} ${QUOTE_PAIR.amount} for ${SECONDS} s per family per round; orders: ${N} per ` +
      `family per round (each in two halves, A-B-B-A or B-A-A-B), each on its own fresh ${ORDER_PAIR.from}→${ORDER_PAIR.to} quote made beforehand (untimed). Medians:`,
  );
  console.table([
    row('A POST /quote', med('qA'), null),
    row('B POST /quote', med('qB'), med('qA')),
    row('A POST /order', med('oA'), null),
    row('B POST /order/market', med('oB'), med('oA')),
  ]);
  const checks = [
    ['quotes', med('qB').perSec / med('qA').perSec, perRound('qB', 'qA')],
    ['order creations', med('oB').perSec / med('oA').perSec, perRound('oB', 'oA')],
  ] as const;
  for (const [name, ratio, rounds] of checks) {
    console.log(
      `  ${name}: B ÷ A = ${ratio.toFixed(3)} (median of the per-round ratios ${rounds.toFixed(3)}; ` +
        `range ${Math.min(...ratioList(name)).toFixed(3)}–${Math.max(...ratioList(name)).toFixed(3)}) ` +
        `${ratio >= TARGET ? 'meets' : 'misses'} the target ≥ ${TARGET.toFixed(2)}`,
    );
  }
  console.log(checks.every(([, ratio]) => ratio >= TARGET) ? 'PASS' : 'FAIL');
  console.log(`  (bench took ${((performance.now() - started) / 1000).toFixed(0)} s)`);

  function ratioList(name: string): number[] {
    const [b, a] = name === 'quotes' ? (['qB', 'qA'] as const) : (['oB', 'oA'] as const);
    return res[b].map((x, i) => x.perSec / res[a][i]!.perSec);
  }
}

if (process.argv[2] === 'serve') await serve();
else await main();
