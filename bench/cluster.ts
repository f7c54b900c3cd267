// Cluster benchmark: quote and order-creation throughput through a local cluster (nats-server, workers,
// an edge; src/cluster/local-cluster.ts) with 1 and with 2 workers, beside, in the same run and the same rounds,
// (a) the embedded service (src/main.ts, one process) and (b) a raw NATS request-reply echo of a 1 KB payload (on a
// nats-server without the worker user's allow_responses, and, beside it, the same echo with nats.conf as it is).
// Every target runs at once for the whole run; each round drives each target in turn (the order rotates), so the
// machine's drift over the run falls on all of them alike, at each of several numbers of callers in flight: a
// target's figure of a round is its best rate over them, its capacity (one process is busiest with few callers, a
// cluster of several processes on the same cores needs more to keep them all busy). Also reports CPU time per
// request of each process.
// Usage: npm run bench:cluster   (BENCH_N=500 BENCH_ROUNDS=3 BENCH_CONCURRENCY=10,20,40 BENCH_ECHO_N=5000
// BENCH_ECHO_BYTES=1024 by default; ROUTER_SHARDS, ROUTER_LEASE_TTL_MS pass through to the cluster processes)
import { connect } from '@nats-io/transport-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startLocalCluster, type LocalCluster } from '../src/cluster/local-cluster.js';
import { NATS_USERS, startNatsServer } from '../src/cluster/nats-server.js';
import {
  adminClient, BENCH_ENV, cpuMs, drive, ECHO_SUBJECT, order, quote, startEmbedded, waitBalanced,
  type Embedded, type Rate, type ShardsAnswer,
} from './common.js';
import { recordResults } from './results.js';
import { median } from './stats.js';

const N = Number(process.env.BENCH_N ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The numbers of callers in flight each target is driven with, in this order, every round. */
const LEVELS = callerLevels(process.env.BENCH_CONCURRENCY ?? '10,20,40');
const ECHO_N = Number(process.env.BENCH_ECHO_N ?? 5000);
const ECHO_BYTES = Number(process.env.BENCH_ECHO_BYTES ?? 1024);

type Target = 'embedded' | 'cluster1' | 'cluster2';
const TARGETS: Target[] = ['embedded', 'cluster1', 'cluster2'];
type Echo = 'echo' | 'echoConf';
const LABEL: Record<Target | Echo, string> = {
  echo: 'raw NATS request-reply echo (1 KB)',
  echoConf: 'the same echo, nats.conf as is (allow_responses)',
  embedded: 'embedded (one process)',
  cluster1: 'cluster, 1 worker',
  cluster2: 'cluster, 2 workers',
};

/** Processes whose CPU time is accounted, by role. */
type Roles = Record<string, number[]>;
const cpuOf = (roles: Roles) => Object.fromEntries(Object.entries(roles).map(([r, pids]) => [r, pids.reduce((s, p) => s + cpuMs(p), 0)]));
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Sample { rate: Rate; cpu: Record<string, number> }

/** Runs `fn`, returns its rate and the CPU ms per request each role spent meanwhile (the bench client included). */
async function measured(roles: Roles, count: number, fn: () => Promise<Rate>): Promise<Sample> {
  const c0 = cpuOf(roles);
  const s0 = selfCpu();
  const rate = await fn();
  const c1 = cpuOf(roles);
  const cpu: Record<string, number> = { client: (selfCpu() - s0) / count };
  for (const r of Object.keys(roles)) cpu[r] = (c1[r]! - c0[r]!) / count;
  return { rate, cpu };
}

/**
 * A nats-server and an echo responder connected as the `worker` user. `raw`: nats.conf without the worker user's
 * `allow_responses` (which nats-server 2.9 pays for per delivered request, see bench/README.md); `conf`: nats.conf as
 * it is, the configuration the clusters run.
 */
async function startEcho(dir: string, variant: 'raw' | 'conf') {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, 'base.conf');
  const conf = readFileSync(resolve('nats.conf'), 'utf8');
  writeFileSync(base, variant === 'raw' ? conf.replace(/^\s*allow_responses:.*\n/gm, '') : conf);
  const nats = await startNatsServer({ dir, confFile: base });
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/cluster-echo.ts', nats.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  if (line !== 'ready') throw new Error(`echo responder said ${line}`);
  const nc = await connect({ servers: nats.url, user: NATS_USERS.router.user, pass: NATS_USERS.router.pass });
  const payload = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(Math.max(0, ECHO_BYTES - 10)) }));
  return {
    roles: { responder: [child.pid!], nats: [nats.child.pid!] } as Roles,
    async load(): Promise<Rate> {
      return drive(ECHO_N, LEVELS[0]!, async () => {
        const m = await nc.request(ECHO_SUBJECT, payload, { timeout: 10_000 });
        if (m.data.length !== payload.length) throw new Error('echo answered another payload');
      });
    },
    async stop() {
      await nc.close();
      child.kill('SIGTERM');
      await once(child, 'exit');
      await nats.stop();
    },
  };
}

/** Parses BENCH_CONCURRENCY: one or more positive integers, comma-separated. */
function callerLevels(text: string): number[] {
  const levels = text.split(',').map((x) => Number(x.trim()));
  if (levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`BENCH_CONCURRENCY must list positive integers, not "${text}"`);
  return levels;
}

/** The sample of the highest rate. */
const best = (xs: Sample[]): Sample => xs.reduce((a, b) => (b.rate.perSec > a.rate.perSec ? b : a));

/** Load shedding off in every target: the bench measures what each can answer, and a refusal would stop it
 *  (bench:overload measures the shedding). */
const CAPACITY_ENV = { ROUTER_MAX_QUOTES_IN_FLIGHT: '0', ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0', ROUTER_SHED_TURN_BUDGET_MS: '0' } as const;

const epochs = (s: ShardsAnswer) => new Map(s.shards.map((x) => [x.shard, `${x.owner}@${x.epoch}`]));

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'router-bench-cluster-'));
  const loadBefore = loadavg();
  const env = { ...BENCH_ENV, ...CAPACITY_ENV };
  let echo: Awaited<ReturnType<typeof startEcho>> | null = null;
  let echoConf: Awaited<ReturnType<typeof startEcho>> | null = null;
  let embedded: Embedded | null = null;
  const clusters: Partial<Record<'cluster1' | 'cluster2', LocalCluster>> = {};
  try {
    echo = await startEcho(join(root, 'echo-raw'), 'raw');
    echoConf = await startEcho(join(root, 'echo-conf'), 'conf');
    embedded = await startEmbedded(CAPACITY_ENV);
    let t0 = performance.now();
    clusters.cluster1 = await startLocalCluster({ dataDir: join(root, 'cluster1'), workers: 1, env });
    const start1 = performance.now() - t0;
    t0 = performance.now();
    clusters.cluster2 = await startLocalCluster({ dataDir: join(root, 'cluster2'), workers: 2, env });
    const balanced2 = await waitBalanced(clusters.cluster2.nats.url, 2);
    const start2 = performance.now() - t0;
    await waitBalanced(clusters.cluster1.nats.url, 1);
    console.log(`cluster with 1 worker ready in ${(start1 / 1000).toFixed(1)} s; with 2 workers ready and balanced ` +
      `(${balanced2.workers.map((w) => `${w.id}: ${w.shards} shards`).join(', ')}) in ${(start2 / 1000).toFixed(1)} s`);

    const url: Record<Target, string> = { embedded: embedded.url, cluster1: clusters.cluster1.url, cluster2: clusters.cluster2.url };
    const clusterRoles = (c: LocalCluster): Roles => ({ edge: [c.edge.child.pid!], workers: c.workers.map((w) => w.child.pid!), nats: [c.nats.child.pid!] });
    const roles: Record<Target, Roles> = {
      embedded: { service: [embedded.child.pid!] },
      cluster1: clusterRoles(clusters.cluster1),
      cluster2: clusterRoles(clusters.cluster2),
    };
    const before2 = epochs(balanced2);

    // Per target and round: the sample of each level; the best of them is the round's figure (`bestOf` below).
    const res = {
      echo: [] as Sample[], echoConf: [] as Sample[],
      quoteLevels: {} as Record<Target, Sample[][]>, orderLevels: {} as Record<Target, Sample[][]>,
    };
    for (const t of TARGETS) {
      res.quoteLevels[t] = [];
      res.orderLevels[t] = [];
    }
    // Round 0 warms up (JIT, SQLite files, NATS connections) and is dropped.
    for (let r = 0; r <= ROUNDS; r++) {
      const e = await measured(echo.roles, ECHO_N, () => echo!.load());
      const ec = await measured(echoConf.roles, ECHO_N, () => echoConf!.load());
      const sequence = TARGETS.map((_, i) => TARGETS[(i + r) % TARGETS.length]!);
      const line: string[] = [`echo ${Math.round(e.rate.perSec)}/s, as conf ${Math.round(ec.rate.perSec)}/s`];
      for (const t of sequence) {
        const qs: Sample[] = [];
        const os: Sample[] = [];
        for (const callers of LEVELS) {
          const ids: string[] = new Array<string>(N);
          qs.push(await measured(roles[t], N, () => drive(N, callers, async (i) => void (ids[i] = await quote(url[t])))));
          os.push(await measured(roles[t], N, () => drive(N, callers, async (i) => void (await order(url[t], ids[i]!)))));
        }
        const rates = (xs: Sample[]) => xs.map((x) => Math.round(x.rate.perSec)).join(' / ');
        line.push(`${t} quotes ${rates(qs)}/s orders ${rates(os)}/s`);
        if (r > 0) {
          res.quoteLevels[t].push(qs);
          res.orderLevels[t].push(os);
        }
      }
      if (r > 0) {
        res.echo.push(e);
        res.echoConf.push(ec);
      }
      console.log(`round ${r}${r === 0 ? ' (warm-up, dropped)' : ''} (${LEVELS.join(' / ')} callers): ${line.join('; ')}`);
    }

    // Did any shard move during the rounds (a lease lost or rebalanced)? It would have cost retries.
    const admin = await adminClient(clusters.cluster2.nats.url);
    const after2 = epochs(await admin.ask<ShardsAnswer>('shards'));
    await admin.close();
    const moved = [...before2].filter(([s, v]) => after2.get(s) !== v).length;

    // Each target's figure of a round: its best level.
    const bestOf = (levels: Record<Target, Sample[][]>) => Object.fromEntries(TARGETS.map((t) => [t, levels[t].map(best)])) as Record<Target, Sample[]>;
    const quotes = bestOf(res.quoteLevels);
    const orders = bestOf(res.orderLevels);
    const m = (xs: Sample[], f: keyof Rate) => median(xs.map((x) => x.rate[f]));
    const echoRps = m(res.echo, 'perSec');
    console.log(
      `\nLatency scale 0, failures off, load shedding off, ${ROUNDS} rounds after a warm-up round, medians; ` +
        `${N} quotes then ${N} orders (one fresh quote each) per target, round and number of callers (${LEVELS.join(', ')}), ` +
        `each target's best of them per round; echo: ${ECHO_N} requests of ${ECHO_BYTES} bytes, ${LEVELS[0]} callers:`,
    );
    for (const [what, set] of [['quotes', quotes], ['orders', orders]] as const) {
      const rows: Array<Record<string, string | number>> = [
        { case: LABEL.echo, 'per s': Math.round(echoRps), 'p50 ms': +m(res.echo, 'p50').toFixed(2), 'p99 ms': +m(res.echo, 'p99').toFixed(2), '÷ embedded': '', '÷ echo': 1, '2w ÷ 1w': '' },
        {
          case: LABEL.echoConf, 'per s': Math.round(m(res.echoConf, 'perSec')), 'p50 ms': +m(res.echoConf, 'p50').toFixed(2), 'p99 ms': +m(res.echoConf, 'p99').toFixed(2),
          '÷ embedded': '', '÷ echo': +(m(res.echoConf, 'perSec') / echoRps).toFixed(3), '2w ÷ 1w': '',
        },
      ];
      for (const t of TARGETS) {
        const rps = m(set[t], 'perSec');
        rows.push({
          case: `${what === 'quotes' ? 'POST /quote' : 'POST /order'}, ${LABEL[t]}`,
          'per s': Math.round(rps),
          'p50 ms': +m(set[t], 'p50').toFixed(2),
          'p99 ms': +m(set[t], 'p99').toFixed(2),
          '÷ embedded': +(rps / m(set.embedded, 'perSec')).toFixed(3),
          '÷ echo': +(rps / echoRps).toFixed(4),
          '2w ÷ 1w': t === 'cluster2' ? +(rps / m(set.cluster1, 'perSec')).toFixed(3) : '',
        });
      }
      console.log(`\n${what === 'quotes' ? 'Quotes' : 'Order creations'}:`);
      console.table(rows);
    }

    // CPU time per request, by process (medians over the rounds); `cores busy` = all of it ÷ wall time.
    const cpuRow = (name: string, xs: Sample[]) => {
      const keys = Object.keys(xs[0]!.cpu);
      const row: Record<string, string | number> = { case: name };
      let total = 0;
      for (const k of keys) {
        const v = median(xs.map((x) => x.cpu[k]!));
        total += v;
        row[`${k} ms`] = +v.toFixed(3);
      }
      row['total ms'] = +total.toFixed(3);
      row['cores busy'] = +((total * m(xs, 'perSec')) / 1000).toFixed(2);
      return row;
    };
    console.log('\nCPU time per request by process (ms, user + system, medians; client = this bench process):');
    console.table([
      cpuRow(LABEL.echo, res.echo),
      cpuRow(LABEL.echoConf, res.echoConf),
      ...TARGETS.map((t) => cpuRow(`quote, ${LABEL[t]}`, quotes[t])),
      ...TARGETS.map((t) => cpuRow(`order, ${LABEL[t]}`, orders[t])),
    ]);
    // The machine drifts over a run (every target speeds up from round to round); each round's own ratio shows how
    // much of a median ratio that drift moved.
    const perRound = (set: Record<Target, Sample[]>) =>
      set.cluster1.map((s, i) => (s.rate.perSec / set.embedded[i]!.rate.perSec).toFixed(2)).join(', ');
    console.log(`  1-worker cluster ÷ embedded, round by round (each target's best): quotes ${perRound(quotes)}; orders ${perRound(orders)}`);
    console.log(`  shards that changed owner or epoch in the 2-worker cluster during the rounds: ${moved} of ${before2.size}`);

    // Each number of callers on its own: where each target peaks, and the ratio a single number of callers gives.
    const atLevel = (levels: Record<Target, Sample[][]>, t: Target, li: number) => median(levels[t].map((round) => round[li]!.rate.perSec));
    const levelRows: Array<Record<string, string | number>> = [];
    const atLevelRatios: Record<string, number> = {};
    LEVELS.forEach((callers, li) => {
      const row: Record<string, string | number> = { callers };
      for (const t of TARGETS) {
        row[`quotes ${t}`] = Math.round(atLevel(res.quoteLevels, t, li));
        row[`orders ${t}`] = Math.round(atLevel(res.orderLevels, t, li));
      }
      const q = atLevel(res.quoteLevels, 'cluster1', li) / atLevel(res.quoteLevels, 'embedded', li);
      const o = atLevel(res.orderLevels, 'cluster1', li) / atLevel(res.orderLevels, 'embedded', li);
      row['quotes 1w ÷ emb'] = +q.toFixed(3);
      row['orders 1w ÷ emb'] = +o.toFixed(3);
      atLevelRatios[`quotesCluster1PerEmbeddedAt${callers}`] = q;
      atLevelRatios[`ordersCluster1PerEmbeddedAt${callers}`] = o;
      levelRows.push(row);
    });
    console.log('\nRequests per second by number of callers in flight (medians over the rounds):');
    console.table(levelRows);
    recordResults('cluster', {
      quotesCluster1PerEmbedded: m(quotes.cluster1, 'perSec') / m(quotes.embedded, 'perSec'),
      ordersCluster1PerEmbedded: m(orders.cluster1, 'perSec') / m(orders.embedded, 'perSec'),
      ...atLevelRatios,
    });
    console.log(`  load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await Promise.all([
      echo?.stop(),
      echoConf?.stop(),
      embedded?.stop(),
      clusters.cluster1?.stop(),
      clusters.cluster2?.stop(),
    ].map((p) => Promise.resolve(p).catch((err: unknown) => console.warn('stop failed:', err))));
    if (embedded) rmSync(embedded.dataDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
