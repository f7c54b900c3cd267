// Overload benchmark: quote throughput and `GET /health` latency (p50/p99) while 1×, 2× and 4× the shedding cap of
// connections send `fast` quotes with instant venues (the CPU-bound case: nothing waits on a venue), with the default
// shedding (cap and event loop lag), then the same 4× load with the cap alone (lag shedding off) and with no shedding
// at all as the same-run baselines. /health is probed from its own
// process (one request at a time, every BENCH_PROBE_MS), so the load generator's own event loop does not count.
// Usage: npm run bench:overload   (BENCH_CAP=64 BENCH_LAG_MS=40 BENCH_SECONDS=10 BENCH_ROUNDS=3 BENCH_PROBE_MS=50
// BENCH_PER_TURN=8 BENCH_TURN_MS=25 by default; BENCH_ONLY=default,turnBudget runs a subset of the settings)
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { median, pct } from './stats.js';

const CAP = Number(process.env.BENCH_CAP ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROBE_MS = Number(process.env.BENCH_PROBE_MS ?? 50);
const LAG_MS = Number(process.env.BENCH_LAG_MS ?? 40);
const PER_TURN = Number(process.env.BENCH_PER_TURN ?? 8);
const TURN_MS = Number(process.env.BENCH_TURN_MS ?? 25);
// A subset of the shedding settings (comma-separated: default, perTurn, turnBudget, capOnly, off); all when unset.
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((x) => x.trim())) : null;
const QUOTE = { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', quote_mode: 'fast', return_full_route: false };

async function child(args: string[], env: Record<string, string> = {}): Promise<{ proc: ChildProcess; line: Promise<string>; exited: Promise<unknown> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/overload.ts', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: proc.stdout! });
  const line = once(rl, 'line').then(([l]) => l as string);
  // Listened for at once: a probe may have exited before its caller gets to wait for it.
  const exited = once(proc, 'exit');
  return { proc, line, exited };
}


interface Round { ok: number; shed: number; other: number; errors: number; healthP50: number; healthP99: number; healthMax: number }

async function round(port: number, connections: number): Promise<Round> {
  const probe = await child(['probe', String(port), String(SECONDS * 1000 - 500)]);
  let ok = 0;
  let shed = 0;
  let other = 0;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon(
      {
        url: `http://127.0.0.1:${port}/quote`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(QUOTE),
        connections,
        duration: SECONDS,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    inst.on('response', (_c: unknown, status: number) => {
      if (status === 200) ok += 1;
      else if (status === 503) shed += 1;
      else other += 1;
    });
  });
  const lat = JSON.parse(await probe.line) as number[];
  await probe.exited;
  return {
    ok: ok / SECONDS,
    shed: shed / SECONDS,
    other,
    errors: r.errors + r.timeouts,
    healthP50: pct(lat, 0.5),
    healthP99: pct(lat, 0.99),
    healthMax: Math.max(...lat),
  };
}

async function main(): Promise<void> {
  // Each shedding setting is its own service process: [cap, lag threshold ms, admissions per loop turn, turn budget ms].
  const settings = {
    default: [CAP, LAG_MS, 0, 0],
    perTurn: [CAP, LAG_MS, PER_TURN, 0],
    turnBudget: [CAP, LAG_MS, 0, TURN_MS],
    capOnly: [CAP, 0, 0, 0],
    off: [0, 0, 0, 0],
  } as const;
  type Setting = keyof typeof settings;
  const allCases: Array<{ name: string; setting: Setting; connections: number }> = [
    { name: 'idle (no load)', setting: 'default', connections: 0 },
    { name: '1× cap', setting: 'default', connections: CAP },
    { name: '2× cap', setting: 'default', connections: 2 * CAP },
    { name: '4× cap', setting: 'default', connections: 4 * CAP },
    { name: `1× cap, + ${PER_TURN} admissions per turn`, setting: 'perTurn', connections: CAP },
    { name: `4× cap, + ${PER_TURN} admissions per turn`, setting: 'perTurn', connections: 4 * CAP },
    { name: `1× cap, + a ${TURN_MS} ms turn budget`, setting: 'turnBudget', connections: CAP },
    { name: `4× cap, + a ${TURN_MS} ms turn budget`, setting: 'turnBudget', connections: 4 * CAP },
    { name: '4× cap, cap only (lag shedding off)', setting: 'capOnly', connections: 4 * CAP },
    { name: '4× cap, no shedding (baseline)', setting: 'off', connections: 4 * CAP },
  ];
  const cases = allCases.filter((c) => !ONLY || ONLY.has(c.setting));
  const results = new Map<string, Round[]>(cases.map((c) => [c.name, []]));
  const services = new Map<Setting, { proc: ChildProcess; exited: Promise<unknown>; port: number; dir: string }>();
  for (const [setting, [cap, lag, perTurn, turnMs]] of Object.entries(settings) as Array<[Setting, readonly [number, number, number, number]]>) {
    if (!cases.some((c) => c.setting === setting)) continue;
    const dir = mkdtempSync(join(tmpdir(), 'router-overload-'));
    const svc = await child(['serve'], {
      ROUTER_DATA_DIR: dir,
      ROUTER_SIM_LATENCY_SCALE: '0',
      ROUTER_SIM_FAILURES: 'off',
      ROUTER_MAX_QUOTES_IN_FLIGHT: String(cap),
      ROUTER_SHED_EVENT_LOOP_DELAY_MS: String(lag),
      ROUTER_SHED_ADMISSIONS_PER_TURN: String(perTurn),
      ROUTER_SHED_TURN_BUDGET_MS: String(turnMs),
    });
    const { port } = JSON.parse(await svc.line) as { port: number };
    services.set(setting, { proc: svc.proc, exited: svc.exited, port, dir });
  }
  try {
    // Warm both services (JIT, SQLite pages) before the first measured round.
    for (const s of services.values()) await round(s.port, 10);
    process.stderr.write('warmed up\n');
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of cases) {
        const s = services.get(c.setting)!;
        process.stderr.write(`round ${i + 1}: ${c.name}\n`);
        if (c.connections === 0) {
          const probe = await child(['probe', String(s.port), String(SECONDS * 1000)]);
          const lat = JSON.parse(await probe.line) as number[];
          await probe.exited;
          results.get(c.name)!.push({ ok: 0, shed: 0, other: 0, errors: 0, healthP50: pct(lat, 0.5), healthP99: pct(lat, 0.99), healthMax: Math.max(...lat) });
        } else {
          results.get(c.name)!.push(await round(s.port, c.connections));
        }
        // Let the quotes of the round drain before the next one.
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    for (const s of services.values()) {
      s.proc.kill('SIGTERM');
      await s.exited;
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
  const rows = cases.map((c) => {
    const rs = results.get(c.name)!;
    const m = (f: keyof Round) => median(rs.map((r) => r[f]));
    return {
      case: c.name,
      connections: c.connections,
      'quotes/s (200)': Math.round(m('ok')),
      'shed/s (503)': Math.round(m('shed')),
      'health p50 ms': +m('healthP50').toFixed(1),
      'health p99 ms': +m('healthP99').toFixed(1),
      'health max ms': +m('healthMax').toFixed(1),
      'other non-2xx': rs.reduce((n, r) => n + r.other, 0),
      errors: rs.reduce((n, r) => n + r.errors, 0),
    };
  });
  console.log(`\nShedding cap ${CAP} quotes in flight, lag threshold ${LAG_MS} ms, fast quotes, instant venues, ${ROUNDS} rounds × ${SECONDS} s, medians:`);
  console.table(rows);
}

const mode = process.argv[2];
if (mode === 'serve') {
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/log.js');
  const { createEmbeddedService } = await import('../src/service.js');
  const config = loadConfig({ ...process.env, ROUTER_LOG_LEVEL: 'silent', ROUTER_DEV_LISTENER: 'off' });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  const server = service.appA.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const addr = server.address();
  process.stdout.write(JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 }) + '\n');
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    void service.close().then(() => process.exit(0));
  });
} else if (mode === 'probe') {
  // GET /health one at a time for the given ms; prints every latency (ms) as one JSON array.
  const [port, ms] = [Number(process.argv[3]), Number(process.argv[4])];
  const until = Date.now() + ms;
  const lat: number[] = [];
  while (Date.now() < until) {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    await res.text();
    lat.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
  process.stdout.write(JSON.stringify(lat) + '\n');
} else {
  await main();
}
