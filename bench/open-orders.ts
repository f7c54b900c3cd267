// Open-orders benchmark: one worker holding BENCH_OPEN_ORDERS (default 1,000,000) open orders awaiting their
// deposit, all passivated (in the store, not in memory). Its resident memory beside an idle worker on an empty data
// dir (same run), and the time to reactivate one (GET /order/<id> through the edge) beside a GET of an order already
// in memory. Creating a million orders over HTTP would take most of an hour, so a few hundred real ones are made
// through a cluster first and the million are copies of their stored rows (fresh ids) bulk-inserted into the same
// SQLite table the store uses.
// Usage: npm run bench:open-orders   (BENCH_OPEN_ORDERS=1000000 BENCH_TEMPLATES=300 BENCH_SAMPLE=2000
// BENCH_CONCURRENCY=10 BENCH_SETTLE_MS=10000 BENCH_BATCH=50000 ROUTER_SHARDS=128; BENCH_DIR = where the data dir
// goes, default the OS temp dir; BENCH_KEEP=1 keeps it)
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statfsSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { shardOf } from '../src/bus/shard.js';
import { startLocalCluster, type LocalCluster } from '../src/cluster/local-cluster.js';
import { openSqliteStore } from '../src/store/index.js';
import {
  adminClient, BENCH_ENV, cpuMs, drive, get, MB, order, quote, rss, waitBalanced, type CountsAnswer,
} from './common.js';
import { median, pct } from './stats.js';

const COUNT = Number(process.env.BENCH_OPEN_ORDERS ?? 1_000_000);
const TEMPLATES = Number(process.env.BENCH_TEMPLATES ?? 300);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 50_000);
const SHARDS = Number(process.env.ROUTER_SHARDS ?? 128);
const ROOT = process.env.BENCH_DIR ?? tmpdir();
const KEEP = process.env.BENCH_KEEP === '1';
// Measured: a row with its index entries takes about 2.6 KB of the file; the WAL of one batch comes on top.
const BYTES_PER_ORDER = 3000;

const env = { ...BENCH_ENV, ROUTER_SHARDS: String(SHARDS) };

interface ActorRow {
  kind: string; id: string; version: number; epoch: number; snapshot: string; wake_at: number | null; updated_at: number;
  shard: number; status: string | null; history: string; sender: string | null; destination: string | null;
  refund: string | null; order_type: string | null; created_at: number | null;
}

const fileSize = (f: string) => (existsSync(f) ? statSync(f).size : 0);

/** A few hundred genuine orders awaiting their deposit, made through a cluster on the data dir (then stopped). */
async function makeTemplates(dataDir: string): Promise<number> {
  const c = await startLocalCluster({ dataDir, workers: 1, env });
  try {
    const quotes: string[] = new Array<string>(TEMPLATES);
    await drive(TEMPLATES, CONCURRENCY, async (i) => void (quotes[i] = await quote(c.url)));
    const r = await drive(TEMPLATES, CONCURRENCY, async (i) => void (await order(c.url, quotes[i]!)));
    return r.perSec;
  } finally {
    await c.stop();
  }
}

/** COUNT copies of the template orders' rows, each with a fresh order id (and vault id) in its snapshot, its shard
 *  computed from the new id, version, status, wake-up (the deposit deadline), history and order index as stored. */
async function bulkInsert(file: string): Promise<{ ms: number; sample: string[]; templates: number; snapshotBytes: number }> {
  // The store opens (and, were it new, creates) the schema: table, added columns, indexes. Nothing else here decides it.
  await openSqliteStore(file).close();
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL'); // as the store; with big transactions the fsyncs are few anyway
  db.pragma('cache_size = -1048576'); // 1 GB for this loading connection only: the random-key indexes fit
  const templates = db.prepare<[], ActorRow>("SELECT * FROM actors WHERE kind = 'order' AND status = 'awaiting_deposit' ORDER BY id").all();
  if (templates.length === 0) throw new Error('no template order awaiting its deposit in the store');
  const prepared = templates.map((t) => {
    const snap = JSON.parse(t.snapshot) as { context: { id: string; vault: { vaultId: string } } };
    if (snap.context.id !== t.id) throw new Error(`template ${t.id}: context.id is ${snap.context.id}`);
    // The order id appears once (context.id) in today's snapshots; split on every occurrence all the same.
    return { row: t, parts: t.snapshot.split(t.id).map((p) => p.split(snap.context.vault.vaultId)) };
  });
  const snapshotBytes = templates.reduce((s, t) => s + Buffer.byteLength(t.snapshot), 0) / templates.length;
  const insert = db.prepare(`
    INSERT INTO actors (kind, id, version, epoch, snapshot, wake_at, updated_at, shard, status, history,
                        sender, destination, refund, order_type, created_at)
    VALUES ('order', @id, @version, 0, @snapshot, @wake_at, @updated_at, @shard, @status, @history,
            @sender, @destination, @refund, @order_type, @created_at)`);
  // Which copies are sampled for the reactivation: 2 × SAMPLE distinct positions, chosen before the ids exist.
  const picks = new Set<number>();
  while (picks.size < Math.min(COUNT, 2 * SAMPLE)) picks.add(Math.floor(Math.random() * COUNT));
  const sample: string[] = [];
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const { row, parts } = prepared[i % prepared.length]!;
      const id = randomUUID();
      const vaultId = randomUUID();
      insert.run({
        ...row,
        id,
        snapshot: parts.map((p) => p.join(vaultId)).join(id),
        shard: shardOf(id, SHARDS),
      });
      if (picks.has(i)) sample.push(id);
    }
  });
  const t0 = performance.now();
  let last = t0;
  for (let from = 0; from < COUNT; from += BATCH) {
    batch(from, Math.min(COUNT, from + BATCH));
    const done = Math.min(COUNT, from + BATCH);
    if (done % 200_000 < BATCH || done === COUNT) {
      const now = performance.now();
      console.log(`  inserted ${done.toLocaleString('en')} (${Math.round((done * 1000) / (now - t0))}/s overall, last batch ${Math.round((BATCH * 1000) / (now - last))}/s)`);
    }
    last = performance.now();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const ms = performance.now() - t0;
  db.close();
  // Shuffle, so the sequential and the concurrent pass each get ids from all over the table.
  for (let i = sample.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [sample[i], sample[j]] = [sample[j]!, sample[i]!];
  }
  return { ms, sample, templates: templates.length, snapshotBytes };
}

/** Resident memory of a cluster's (only) worker: three readings a second apart, the median. */
async function workerRss(c: LocalCluster): Promise<{ rss: number; hwm: number }> {
  const pid = c.workers[0]!.child.pid!;
  const xs: Array<{ rss: number; hwm: number }> = [];
  for (let i = 0; i < 3; i++) {
    if (i) await sleep(1000);
    xs.push(rss(pid));
  }
  return { rss: median(xs.map((x) => x.rss)), hwm: Math.max(...xs.map((x) => x.hwm)) };
}

function versions(file: string, ids: string[]): Map<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const q = db.prepare<[string], { version: number }>("SELECT version FROM actors WHERE kind = 'order' AND id = ?");
  const m = new Map(ids.map((id) => [id, q.get(id)?.version ?? -1]));
  db.close();
  return m;
}

interface Lat { cold: number[]; warm: number[]; wallMs: number }

/** Each id: a GET that reactivates the passivated order, then a GET of the same order, now in memory. */
async function reactivate(url: string, ids: string[], concurrency: number): Promise<Lat> {
  const cold: number[] = [];
  const warm: number[] = [];
  const one = async (id: string) => {
    const o = await get<{ id: string; status: string }>(url, `/order/${id}`, 200);
    if (o.id !== id || o.status !== 'awaiting_deposit') throw new Error(`GET /order/${id} answered ${o.id} ${o.status}`);
  };
  const r = await drive(ids.length, concurrency, async (i) => {
    let t = performance.now();
    await one(ids[i]!);
    cold.push(performance.now() - t);
    t = performance.now();
    await one(ids[i]!);
    warm.push(performance.now() - t);
  });
  return { cold, warm, wallMs: r.wallMs };
}

async function counts(c: LocalCluster): Promise<{ answer: CountsAnswer; ms: number }> {
  const admin = await adminClient(c.nats.url);
  try {
    const t0 = performance.now();
    const answer = await admin.ask<CountsAnswer>('counts');
    return { answer, ms: performance.now() - t0 };
  } finally {
    await admin.close();
  }
}

async function main() {
  const fs = statfsSync(ROOT);
  const free = fs.bavail * fs.bsize;
  const need = COUNT * BYTES_PER_ORDER + 512 * 1048576;
  console.log(`${ROOT}: ${MB(free)} MB free; about ${MB(need)} MB needed for ${COUNT.toLocaleString('en')} open orders`);
  if (free < need) {
    throw new Error(`not enough disk under ${ROOT}: run with a smaller BENCH_OPEN_ORDERS (at most ~${Math.floor((free - 512 * 1048576) / BYTES_PER_ORDER)}) or another BENCH_DIR`);
  }
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(ROOT, 'router-bench-open-'));
  const emptyDir = mkdtempSync(join(ROOT, 'router-bench-empty-'));
  const file = join(dataDir, 'router.sqlite');
  let idle: LocalCluster | null = null;
  let loaded: LocalCluster | null = null;
  try {
    console.log(`making ${TEMPLATES} template orders through a 1-worker cluster (${SHARDS} shards)...`);
    const templateRate = await makeTemplates(dataDir);
    console.log(`  ${Math.round(templateRate)} orders/s`);
    console.log(`bulk-inserting ${COUNT.toLocaleString('en')} copies in transactions of ${BATCH.toLocaleString('en')}...`);
    const ins = await bulkInsert(file);
    const dbBytes = fileSize(file) + fileSize(`${file}-wal`);

    // The idle worker (empty data dir) and the loaded one run side by side, measured at the same point of their lives.
    let t0 = performance.now();
    idle = await startLocalCluster({ dataDir: emptyDir, workers: 1, env });
    await waitBalanced(idle.nats.url, 1);
    const idleStartMs = performance.now() - t0;
    t0 = performance.now();
    loaded = await startLocalCluster({ dataDir, workers: 1, env });
    await waitBalanced(loaded.nats.url, 1);
    const loadedStartMs = performance.now() - t0;
    const idlePid = idle.workers[0]!.child.pid!;
    const loadedPid = loaded.workers[0]!.child.pid!;
    const cpu0 = { idle: cpuMs(idlePid), loaded: cpuMs(loadedPid) };
    await sleep(SETTLE_MS); // timer polls, deposit scans and lease renewals have run a few times
    const cpuIdle = { idle: (cpuMs(idlePid) - cpu0.idle) / (SETTLE_MS / 1000), loaded: (cpuMs(loadedPid) - cpu0.loaded) / (SETTLE_MS / 1000) };
    const [memIdle, memLoaded] = await Promise.all([workerRss(idle), workerRss(loaded)]);
    const before = await counts(loaded);

    const seqIds = ins.sample.slice(0, SAMPLE);
    const concIds = ins.sample.slice(SAMPLE, 2 * SAMPLE);
    const v0 = versions(file, ins.sample);
    const seq = await reactivate(loaded.url, seqIds, 1);
    const conc = await reactivate(loaded.url, concIds, CONCURRENCY);
    const v1 = versions(file, ins.sample);
    const rewritten = ins.sample.filter((id) => v1.get(id) !== v0.get(id)).length;
    const writes = ins.sample.reduce((n, id) => n + v1.get(id)! - v0.get(id)!, 0);
    const after = await counts(loaded);
    const memAfter = await workerRss(loaded);
    const loadAfter = loadavg();

    const open = before.answer.actors.filter((r) => r.kind === 'order' && r.status === 'awaiting_deposit').reduce((s, r) => s + r.count, 0);
    console.log(`\nStore: ${COUNT.toLocaleString('en')} copies of ${ins.templates} genuine orders (snapshot JSON ${Math.round(ins.snapshotBytes)} bytes on average); ` +
      `${open.toLocaleString('en')} orders awaiting deposit in the store by the admin counts (${before.ms.toFixed(0)} ms to count):`);
    console.table([{
      'SQLite file MB': MB(dbBytes),
      'bytes per order on disk': Math.round(dbBytes / (COUNT + TEMPLATES)),
      'bulk insert s': +(ins.ms / 1000).toFixed(1),
      'bulk insert rows/s': Math.round((COUNT * 1000) / ins.ms),
      'template orders/s (HTTP, context)': Math.round(templateRate),
    }]);

    console.log(`\nWorker resident memory (VmRSS, median of 3 readings after ${SETTLE_MS / 1000} s settled), ${SHARDS} shards owned by the one worker:`);
    console.table([
      { case: 'idle worker, empty data dir (baseline)', 'RSS MB': MB(memIdle.rss), 'peak RSS MB': MB(memIdle.hwm), 'start s': +(idleStartMs / 1000).toFixed(1), 'CPU ms/s idle': +cpuIdle.idle.toFixed(1), 'actors in memory': '' },
      { case: `worker, ${COUNT.toLocaleString('en')} passivated open orders`, 'RSS MB': MB(memLoaded.rss), 'peak RSS MB': MB(memLoaded.hwm), 'start s': +(loadedStartMs / 1000).toFixed(1), 'CPU ms/s idle': +cpuIdle.loaded.toFixed(1), 'actors in memory': before.answer.worker.active ?? '?' },
      { case: `  the same, after ${2 * SAMPLE} reactivations`, 'RSS MB': MB(memAfter.rss), 'peak RSS MB': MB(memAfter.hwm), 'start s': '', 'CPU ms/s idle': '', 'actors in memory': after.answer.worker.active ?? '?' },
    ]);
    console.log(`  difference, passivated: ${MB(memLoaded.rss - memIdle.rss)} MB, ${((memLoaded.rss - memIdle.rss) / COUNT).toFixed(2)} bytes per open order`);
    console.log(`  after the reactivations: ${Math.round((memAfter.rss - memLoaded.rss) / (2 * SAMPLE))} bytes per reactivated order`);

    const row = (name: string, xs: number[]) => ({
      case: name, n: xs.length, 'p50 ms': +pct(xs, 0.5).toFixed(2), 'p90 ms': +pct(xs, 0.9).toFixed(2), 'p99 ms': +pct(xs, 0.99).toFixed(2), 'max ms': +Math.max(...xs).toFixed(1),
    });
    console.log(`\nGET /order/<id> through the edge, random ids of the ${COUNT.toLocaleString('en')}; each id: a reactivating GET, then the same id again (warm):`);
    console.table([
      row('reactivation, sequential', seq.cold),
      row('warm GET (in memory), sequential (baseline)', seq.warm),
      row(`reactivation, ${CONCURRENCY} concurrent`, conc.cold),
      row(`warm GET (in memory), ${CONCURRENCY} concurrent (baseline)`, conc.warm),
    ]);
    console.log(`  p99 reactivation ÷ p99 warm: sequential ${(pct(seq.cold, 0.99) / pct(seq.warm, 0.99)).toFixed(1)}, ` +
      `${CONCURRENCY} concurrent ${(pct(conc.cold, 0.99) / pct(conc.warm, 0.99)).toFixed(1)}; ` +
      `p50 ratio: ${(pct(seq.cold, 0.5) / pct(seq.warm, 0.5)).toFixed(1)}, ${(pct(conc.cold, 0.5) / pct(conc.warm, 0.5)).toFixed(1)}`);
    console.log(`  snapshot writes caused by these GETs (order versions in the store before and after): ${writes} writes; ` +
      `${rewritten} of the ${ins.sample.length} orders changed version`);
    console.log(`  load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await Promise.all([idle?.stop(), loaded?.stop()].map((p) => Promise.resolve(p).catch((err: unknown) => console.warn('stop failed:', err))));
    rmSync(emptyDir, { recursive: true, force: true });
    if (KEEP) console.log(`data dir kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
