// Quote benchmark. (1) Latency scale 0: quotes/s, p50 and p99 on a direct and a multi-hop pair, each beside a
// bare Koa JSON echo measured in the same run (the ratios are the figures). (2) Latency scale 1: the median
// overhead of a quote above the slowest venue that answered (on the critical path).
// Usage: npm run bench:quote   (BENCH_SECONDS=5 BENCH_ROUNDS=3 by default)
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { recordResults } from './results.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const DIRECT = { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true };
const MULTI = { from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.5', return_full_route: true };

async function start(kind: 'echo' | 'service', env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/serve.ts', kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, 'line')) as [string];
  return { port: (JSON.parse(line) as { port: number }).port, child };
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

interface Run { rps: number; p50: number; p99: number; errors: number; non2xx: number }

async function load(port: number, body: unknown): Promise<Run> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/quote`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function throughput() {
  const results: Record<string, Run[]> = { echo: [], direct: [], multi: [] };
  const echo = await start('echo');
  const svc = await start('service', { ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off' });
  try {
    // Warm up both so JIT and the SQLite file are not part of the first round.
    await load(echo.port, DIRECT);
    await load(svc.port, DIRECT);
    for (let i = 0; i < ROUNDS; i++) {
      results.echo!.push(await load(echo.port, DIRECT));
      results.direct!.push(await load(svc.port, DIRECT));
      results.multi!.push(await load(svc.port, MULTI));
    }
  } finally {
    await stop(echo.child);
    await stop(svc.child);
  }
  const m = (k: string, f: keyof Run) => median(results[k]!.map((r) => r[f]));
  const rows = ['echo', 'direct', 'multi'].map((k) => ({
    case: k === 'echo' ? 'bare Koa JSON echo' : k === 'direct' ? 'quote base.usdc→arbitrum.usdc (direct)' : 'quote bitcoin.btc→arbitrum.usdc (multi-hop)',
    'quotes/s': Math.round(m(k, 'rps')),
    'p50 ms': m(k, 'p50'),
    'p99 ms': m(k, 'p99'),
    'rps ÷ echo': +(m(k, 'rps') / m('echo', 'rps')).toFixed(3),
    'p50 × echo': +(m(k, 'p50') / Math.max(m('echo', 'p50'), 0.5)).toFixed(1),
    errors: results[k]!.reduce((s, r) => s + r.errors + (k === 'echo' ? 0 : r.non2xx), 0),
  }));
  console.log(`\nLatency scale 0, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS}s, medians:`);
  console.table(rows);
  recordResults('quote', { directPerEcho: m('direct', 'rps') / m('echo', 'rps'), multiPerEcho: m('multi', 'rps') / m('echo', 'rps') });
}

interface Audit {
  single_hop: Array<{ elapsed_ms: number; status: string }>;
  multi_hop: {
    attempts: Array<{ round: number; from: string; to: string; venue: string; elapsed_ms: number; status: string }>;
    routes: Array<{ assets: string[]; venues: string[]; status: string }>;
  };
}

async function overhead() {
  const N = Number(process.env.BENCH_OVERHEAD_QUOTES ?? 20);
  const svc = await start('service', { ROUTER_SIM_LATENCY_SCALE: '1', ROUTER_SIM_FAILURES: 'off' });
  const over: number[] = [];
  try {
    for (const pair of [DIRECT, MULTI]) {
      for (let i = 0; i < N; i++) {
        const t0 = performance.now();
        const res = await fetch(`http://127.0.0.1:${svc.port}/quote`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...pair, include_candidates: true }),
        });
        const wall = performance.now() - t0;
        const body = (await res.json()) as { quote_candidates: Audit };
        const a = body.quote_candidates;
        const answered = (s: string) => s !== 'timed_out';
        const single = Math.max(0, ...a.single_hop.filter((c) => answered(c.status)).map((c) => c.elapsed_ms));
        // A multi-hop path goes to its next hop as soon as its previous hop answered: its time is the sum of its own
        // hops' answers; the search waits for its slowest path whose hops all answered.
        let multi = 0;
        for (const r of a.multi_hop.routes) {
          let sum = 0;
          let complete = true;
          r.venues.forEach((venue, round) => {
            const hits = a.multi_hop.attempts.filter(
              (x) => x.round === round && x.venue === venue && x.from === r.assets[round] && x.to === r.assets[round + 1],
            );
            if (hits.length === 0 || hits.some((x) => !answered(x.status))) complete = false;
            else sum += Math.max(...hits.map((x) => x.elapsed_ms));
          });
          if (complete) multi = Math.max(multi, sum);
        }
        over.push(wall - Math.max(single, multi));
      }
    }
  } finally {
    await stop(svc.child);
  }
  console.log(`\nLatency scale 1 (failures off), ${over.length} sequential quotes (direct and multi-hop):`);
  console.log(`  median overhead above the slowest venue that answered: ${median(over).toFixed(1)} ms`);
  recordResults('quote', { overheadMedianMs: median(over) });
  console.log(`  p90 overhead: ${[...over].sort((a, b) => a - b)[Math.floor(over.length * 0.9)]!.toFixed(1)} ms`);
}

if (process.env.BENCH_ONLY !== 'overhead') await throughput();
if (process.env.BENCH_ONLY !== 'throughput') await overhead();
