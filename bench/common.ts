// Helpers the benches share: load driving (`drive`), HTTP calls, the embedded service as a child process
// (src/main.ts), the admin subject of a local cluster, and the resident memory and CPU time of a process read from
// /proc (Linux).
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NATS_USERS } from '../src/cluster/nats-server.js';
import { freePort } from '../src/cluster/ports.js';
import { decodeJson } from '../src/store/codec.js';
import { clientKind, createClient } from './http-client.js';
import { pct } from './stats.js';

/** Every process of every mode gets these. Info level: startLocalCluster sees readiness in the info lines
 *  ("worker started", "listening"); the embedded child runs at the same level, so both log one line per request. */
export const BENCH_ENV = { ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off', ROUTER_LOG_LEVEL: 'info' } as const;

/** The subject of the raw NATS echo (bench/cluster-echo.ts); the router user may publish under router.shard.>. */
export const ECHO_SUBJECT = 'router.shard.echo';

export const TO_EVM = '0x1111111111111111111111111111111111111111';
/** The cheap pair of bench/orders.ts (one venue, small search). */
export const QUOTE_BODY = { from: 'hyperliquid.usdc', to: 'hyperliquid.hype', from_amount: '1000', return_full_route: false };


export interface Rate { perSec: number; p50: number; p99: number; wallMs: number }

/** Runs `count` tasks with `concurrency` callers in flight; the wall time and each task's latency (ms). */
export async function drive(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<Rate> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const s = performance.now();
        await task(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  return { perSec: (count * 1000) / wallMs, p50: pct(lat, 0.5), p99: pct(lat, 0.99), wallMs };
}

/** The calls of post() and get(): BENCH_CLIENT (http-client.ts), sockets enough for any bench's callers. */
const client = createClient(clientKind(process.env.BENCH_CLIENT), 256);

export async function post<T>(base: string, path: string, body: unknown, expect: number): Promise<T> {
  const res = await client.post(`${base}${path}`, JSON.stringify(body));
  if (res.status !== expect) throw new Error(`POST ${path} answered ${res.status}, not ${expect}: ${res.text.slice(0, 300)}`);
  return JSON.parse(res.text) as T;
}

export async function get<T>(base: string, path: string, expect: number): Promise<T> {
  const res = await client.get(`${base}${path}`);
  if (res.status !== expect) throw new Error(`GET ${path} answered ${res.status}, not ${expect}: ${res.text.slice(0, 300)}`);
  return JSON.parse(res.text) as T;
}

/** One quote and one order for it, checked: 201 and awaiting_deposit. */
export async function quote(base: string): Promise<string> {
  return (await post<{ id: string }>(base, '/quote', QUOTE_BODY, 200)).id;
}
export async function order(base: string, quoteId: string): Promise<string> {
  const o = await post<{ id: string; status: string }>(base, '/order', { quote_id: quoteId, to_address: TO_EVM }, 201);
  if (o.status !== 'awaiting_deposit') throw new Error(`order ${o.id} is ${o.status}, not awaiting_deposit`);
  return o.id;
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User + system CPU time of a process so far, in ms (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at ") "; utime and stime are fields 14 and 15.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** Resident memory now and its peak (VmRSS, VmHWM), in bytes. */
export function rss(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export const MB = (bytes: number) => +(bytes / 1048576).toFixed(1);

export interface Embedded { url: string; child: ChildProcess; dataDir: string; stop(): Promise<void> }

/** The embedded service as a deployment runs it: `node --import tsx src/main.ts` on a free loopback port, its
 *  SQLite file in a fresh temp dir, dev listener off. Resolves when it logs "listening". */
export async function startEmbedded(env: Record<string, string> = {}): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'router-bench-embedded-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('src/main.ts')], {
    env: {
      ...process.env,
      ...BENCH_ENV,
      ...env,
      ROUTER_DATA_DIR: dataDir,
      ROUTER_PORT_A: String(port),
      ROUTER_PORT_B: String(await freePort()),
      ROUTER_PORT_C: String(await freePort()),
      ROUTER_HOST: '127.0.0.1',
      ROUTER_DEV_LISTENER: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let ready = false;
  await new Promise<void>((res, rej) => {
    const onData = (d: Buffer) => {
      // Read and dropped: an unread pipe would fill and hold the service's log writes in memory.
      if (ready) return;
      tail = (tail + d.toString()).slice(-4000);
      if (/"listening"/.test(tail)) {
        ready = true;
        res();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      if (!ready) rej(new Error(`embedded service exited (${String(code)}) before listening:\n${tail}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    dataDir,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The admin subject of a cluster, as an operator reaches it (the admin user of nats.conf). */
export async function adminClient(natsUrl: string): Promise<{ ask<T>(endpoint: string, body?: unknown): Promise<T>; close(): Promise<void> }> {
  const nc: NatsConnection = await connect({ servers: natsUrl, user: NATS_USERS.admin.user, pass: NATS_USERS.admin.pass });
  return {
    async ask<T>(endpoint: string, body: unknown = {}) {
      const m = await nc.request(`router.admin.${endpoint}`, JSON.stringify(body), { timeout: 30_000 });
      return decodeJson<T>(m.string());
    },
    close: () => nc.close(),
  };
}

export interface ShardsAnswer {
  total: number;
  unowned: number;
  shards: Array<{ shard: number; owner: string | null; epoch: number | null }>;
  workers: Array<{ id: string; pid: number; shards: number }>;
}
export interface CountsAnswer {
  actors: Array<{ kind: string; status: string | null; count: number }>;
  totals: Record<string, number>;
  worker: { id: string; active: number | null };
  workers: number;
}

/** Waits until `workers` live workers hold every shard in fair shares (no shard moving any more). */
export async function waitBalanced(natsUrl: string, workers: number, timeoutMs = 60_000): Promise<ShardsAnswer> {
  const admin = await adminClient(natsUrl);
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const s = await admin.ask<ShardsAnswer>('shards');
      const fair = Math.ceil(s.total / workers);
      if (s.unowned === 0 && s.workers.length === workers && s.workers.every((w) => w.shards === fair || w.shards === s.total - fair * (workers - 1))) {
        return s;
      }
      if (Date.now() > until) throw new Error(`shards not balanced over ${workers} workers within ${timeoutMs} ms: ${JSON.stringify(s.workers)}, ${s.unowned} unowned`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await admin.close();
  }
}
