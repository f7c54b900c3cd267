// Order-list benchmark: `listOrders` (what Family C's GET /orders pages through) for a page of 100 over an SQLite store
// file holding BENCH_LIST_ORDERS (default 1,000,000) indexed orders. Each case runs at least 50 times; PASS when its
// p95 is under 50 ms a page.
// Filling the file through store.save (one durable transaction per order) would take longer than the whole bench may
// (its rate is measured and printed first), so the million go in batched transactions through the adapter's own
// INSERT statement and parameters (INSERT_ACTOR_SQL, insertParams: the statement and codec save() runs for a new
// actor) on a file whose schema openSqliteStore made. The pages are then read through openSqliteStore's listOrders.
// Usage: npm run bench:list-orders   (BENCH_LIST_ORDERS=1000000 BENCH_RUNS=60 BENCH_BATCH=50000 BENCH_SAVES=2000;
// BENCH_DIR = where the temp dir goes, default the OS temp dir; BENCH_KEEP=1 keeps it)
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ASSETS } from '../src/assets/registry.js';
import type { AssetId } from '../src/assets/types.js';
import { LIST_STATUSES, type ListStatus, type OrderSummary } from '../src/orders/summary.js';
import type { RouteStep } from '../src/routing/types.js';
import { encodeJson } from '../src/store/codec.js';
import { mulberry32 } from '../src/venues/random.js';
import { INSERT_ACTOR_SQL, insertParams, listOrdersQuery, openSqliteStore } from '../src/store/sqlite-store.js';
import type { ActorStore, OrderIndex, OrderQuery, SaveActor } from '../src/store/types.js';
import { VENUE_IDS } from '../src/venues/types.js';

const COUNT = Number(process.env.BENCH_LIST_ORDERS ?? 1_000_000);
const RUNS = Math.max(50, Number(process.env.BENCH_RUNS ?? 60));
const WARMUP = 5;
const BATCH = Number(process.env.BENCH_BATCH ?? 50_000);
const SAVES = Number(process.env.BENCH_SAVES ?? 2000);
const ROOT = process.env.BENCH_DIR ?? tmpdir();
const KEEP = process.env.BENCH_KEEP === '1';
const PAGE = 100;
const BUDGET_MS = 50;
const DESTINATIONS = 3000;
const SENDERS = 5000;
const T0 = Date.UTC(2026, 0, 1);

// Deterministic data: the same file on every run.
const rng = mulberry32;
const rand = rng(20260101);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const hex = (chars: number): string => {
  let s = '';
  while (s.length < chars) s += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, chars);
};
const uuid = (): string => {
  const h = hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
};
const amount = (digits: number): bigint => BigInt(`${1 + Math.floor(rand() * 9)}${hex(digits).replace(/[a-f]/g, '7').slice(1)}`);
// Skewed: address 0 is the busiest (about 1.8% of orders for 3,000 addresses), the tail has a few dozen each.
const skewed = (n: number): number => Math.floor(n * rand() ** 2);

const destinations = Array.from({ length: DESTINATIONS }, (_, i) => (i % 5 === 0 ? `bc1q${hex(38)}` : `0x${hex(40)}`));
const senders = Array.from({ length: SENDERS }, () => `0x${hex(40)}`);
const assetIds: AssetId[] = ASSETS.map((a) => a.id);

// How the list's statuses share the orders (most are done), with the Family A status each one goes with.
const STATUS_MIX: ReadonlyArray<readonly [ListStatus, number, string]> = [
  ['settled', 0.55, 'delivered'],
  ['cancelled', 0.18, 'expired'],
  ['unfilled', 0.12, 'awaiting_deposit'],
  ['refunded', 0.1, 'refunded'],
  ['filled', 0.03, 'executing'],
  ['failed', 0.02, 'stalled'],
];
function drawStatus(): readonly [ListStatus, string] {
  let u = rand();
  for (const [list, share, status] of STATUS_MIX) {
    if ((u -= share) < 0) return [list, status];
  }
  return ['settled', 'delivered'];
}

function summaryOf(listStatus: ListStatus, sender: string | null, at: number): OrderSummary {
  const path: AssetId[] = [pick(assetIds)];
  const hops = 1 + Math.floor(rand() * 3);
  while (path.length <= hops) path.push(pick(assetIds));
  const amountIn = amount(6 + Math.floor(rand() * 18));
  let flowing = amountIn;
  const steps: RouteStep[] = [];
  for (let h = 0; h < hops; h++) {
    const venueAmountIn = flowing - flowing / 1000n;
    const venueAmountOut = amount(6 + Math.floor(rand() * 18));
    const stepAmountOut = venueAmountOut - venueAmountOut / 2000n;
    steps.push({
      venue: pick(VENUE_IDS),
      from: path[h]!,
      to: path[h + 1]!,
      execution: rand() < 0.7 ? { mode: 'evm', chain: pick([1, 10, 137, 8453, 42161]) } : { mode: 'bitcoin' },
      stepAmountIn: flowing,
      venueAmountIn,
      venueAmountOut,
      stepAmountOut,
    });
    flowing = stepAmountOut;
  }
  const executionCost = flowing / 500n;
  const out = flowing - executionCost;
  const executed = listStatus === 'settled' || listStatus === 'filled';
  const received = listStatus !== 'cancelled' && !(listStatus === 'unfilled' && rand() < 0.7);
  const terminal = listStatus === 'settled' || listStatus === 'refunded' || listStatus === 'cancelled';
  return {
    quoteId: uuid(),
    from: path[0]!,
    to: path.at(-1)!,
    route: { from: path[0]!, to: path.at(-1)!, amountIn, steps, delivery: { amountIn: flowing, executionCost, amountOut: out }, estimatedAmountOut: out },
    quoteMode: rand() < 0.8 ? 'exact_input' : 'exact_output',
    quotedIn: amountIn,
    quotedOut: out,
    minOut: rand() < 0.6 ? out - out / 100n : null,
    maxIn: rand() < 0.2 ? amountIn + amountIn / 50n : null,
    executedIn: executed ? amountIn : null,
    executedOut: listStatus === 'settled' ? out + out / 1000n : null,
    executedFees: received ? amountIn / 300n : null,
    depositTxId: received ? `0x${hex(64)}` : null,
    payoutTxId: listStatus === 'settled' ? `0x${hex(64)}` : null,
    refundTxId: listStatus === 'refunded' ? `0x${hex(64)}` : null,
    sender,
    integrator: rand() < 0.3 ? pick(['acme', 'wallet-x', 'dex-agg', 'bridge.io']) : null,
    lastSourceUpdateAt: received ? at + 30_000 : null,
    terminalAt: terminal ? at + 600_000 : null,
  };
}

/** A stand-in for the order's XState snapshot, about the size of a real one (the open-orders bench measured 1,549
 *  bytes of snapshot JSON for an order awaiting its deposit); listOrders never reads it, but it shares the row. */
function snapshotOf(id: string, index: OrderIndex, status: string): unknown {
  return {
    status: 'active',
    value: { lifecycle: status, refunds: 'idle' },
    historyValue: {},
    context: {
      id,
      createdAt: index.createdAt,
      toAddress: index.destination,
      refundAddress: index.refund,
      quote: index.summary.quoteId,
      route: index.summary.route,
      vault: { chain: 'base', address: `0x${hex(40)}`, vaultId: uuid(), index: Math.floor(rand() * 1e6) },
      deadline: index.createdAt + 7 * 86_400_000,
      deposits: [],
      legs: [],
      refunds: [],
      terms: { minOut: index.summary.minOut, integrator: index.summary.integrator, approvalMode: 'none' },
    },
  };
}

interface Made {
  id: string;
  createdAt: number;
  destination: number;
  listStatus: ListStatus;
}

function makeOrder(i: number): { save: SaveActor; made: Made } {
  const id = uuid();
  // 50 ms apart, every eighth order created in the same millisecond as the one before (ties go by id).
  const createdAt = T0 + (i - (i % 8 === 7 ? 1 : 0)) * 50;
  const [listStatus, status] = drawStatus();
  const destination = skewed(DESTINATIONS);
  const sender = listStatus === 'cancelled' || (listStatus === 'unfilled' && rand() < 0.7) ? null : senders[skewed(SENDERS)]!;
  const index: OrderIndex = {
    sender,
    destination: destinations[destination]!,
    refund: rand() < 0.3 ? (sender ?? senders[skewed(SENDERS)]!) : null,
    orderType: 'market',
    createdAt,
    listStatus,
    summary: summaryOf(listStatus, sender, createdAt),
  };
  const save: SaveActor = {
    kind: 'order',
    id,
    snapshot: snapshotOf(id, index, status),
    expectedVersion: 0,
    epoch: 0,
    wakeAt: listStatus === 'unfilled' ? createdAt + 7 * 86_400_000 : null,
    updatedAt: createdAt + 1000,
    shard: Math.floor(rand() * 128),
    status,
    history: [{ status, at: createdAt }],
    index,
  };
  return { save, made: { id, createdAt, destination, listStatus } };
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const ms = (x: number): string => x.toFixed(2);

async function measureSavePath(dir: string): Promise<number> {
  const store = openSqliteStore(join(dir, 'save-path.sqlite'));
  const orders = Array.from({ length: SAVES }, (_, i) => makeOrder(i).save);
  const t = performance.now();
  for (const o of orders) await store.save(o);
  const rate = SAVES / ((performance.now() - t) / 1000);
  await store.close();
  return rate;
}

async function fill(file: string): Promise<{ made: Made[]; seconds: number; snapshotBytes: number; summaryBytes: number }> {
  // The schema, columns and indexes as the store makes them.
  await openSqliteStore(file).close();
  const db = new Database(file);
  db.pragma('synchronous = FULL');
  db.pragma('cache_size = -1000000');
  const insert = db.prepare(INSERT_ACTOR_SQL);
  const insertAll = db.transaction((batch: SaveActor[]) => {
    for (const a of batch) insert.run(insertParams(a));
  });
  const made: Made[] = [];
  let snapshotBytes = 0;
  let summaryBytes = 0;
  const t = performance.now();
  for (let start = 0; start < COUNT; start += BATCH) {
    const batch: SaveActor[] = [];
    for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
      const o = makeOrder(i);
      batch.push(o.save);
      made.push(o.made);
      if (i % 1000 === 0) {
        snapshotBytes += encodeJson(o.save.snapshot).length;
        summaryBytes += encodeJson(o.save.index!.summary).length;
      }
    }
    insertAll(batch);
    const done = Math.min(COUNT, start + BATCH);
    const s = (performance.now() - t) / 1000;
    process.stdout.write(`\r  filled ${done.toLocaleString('en')} / ${COUNT.toLocaleString('en')}  (${s.toFixed(0)} s, ${Math.round(done / s)} rows/s)   `);
  }
  process.stdout.write('\n');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const sampled = Math.ceil(COUNT / 1000);
  return { made, seconds: (performance.now() - t) / 1000, snapshotBytes: snapshotBytes / sampled, summaryBytes: summaryBytes / sampled };
}

interface Case {
  name: string;
  /** The query of run k (runs vary the address, status or cursor so they do not all read the same pages). */
  query: (k: number) => OrderQuery;
}

async function runCase(store: ActorStore, db: Database.Database, c: Case) {
  const times: number[] = [];
  let minRows = Infinity;
  let maxRows = 0;
  for (let k = 0; k < WARMUP + RUNS; k++) {
    const q = c.query(k);
    const t = performance.now();
    const rows = await store.listOrders(q);
    const took = performance.now() - t;
    // Each page is what the query asks: in list order, strictly after the cursor, matching the filters.
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const prev = r === 0 ? q.after : rows[r - 1]!;
      if (prev && !(row.createdAt < prev.createdAt || (row.createdAt === prev.createdAt && row.id < prev.id))) {
        throw new Error(`${c.name}: row ${row.id} is not after ${prev.id}`);
      }
      if (q.listStatus !== undefined && row.listStatus !== q.listStatus) throw new Error(`${c.name}: wrong status`);
      if (q.destination !== undefined && row.destination !== q.destination) throw new Error(`${c.name}: wrong destination`);
    }
    if (k < WARMUP) continue;
    times.push(took);
    minRows = Math.min(minRows, rows.length);
    maxRows = Math.max(maxRows, rows.length);
  }
  const { sql, args } = listOrdersQuery(c.query(WARMUP));
  const plan = db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...args, PAGE)
    .map((r) => r.detail)
    .join('; ');
  const sorted = [...times].sort((x, y) => x - y);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted.at(-1)!, minRows, maxRows, plan };
}

async function main(): Promise<void> {
  const began = performance.now();
  const dir = mkdtempSync(join(ROOT, 'bench-list-orders-'));
  const file = join(dir, 'store.sqlite');
  console.log(`list-orders bench: ${COUNT.toLocaleString('en')} orders, pages of ${PAGE}, ${RUNS} runs per case (+${WARMUP} warm-up), ${cpus().length} cores`);
  console.log(`data dir ${dir}`);
  try {
    const saveRate = await measureSavePath(dir);
    console.log(
      `store.save path: ${Math.round(saveRate)} saves/s over ${SAVES} orders (one durable transaction each): ` +
        `${Math.round(COUNT / saveRate)} s for ${COUNT.toLocaleString('en')} at that rate, so the fill goes through batched transactions.`,
    );
    console.log(`fill: transactions of ${BATCH.toLocaleString('en')} rows, each through INSERT_ACTOR_SQL with insertParams (the adapter's statement and codec)`);
    const { made, seconds, snapshotBytes, summaryBytes } = await fill(file);
    const size = statSync(file).size;
    console.log(
      `filled in ${seconds.toFixed(1)} s (${Math.round(COUNT / seconds)} rows/s); file ${(size / 2 ** 20).toFixed(0)} MB, ` +
        `${Math.round(size / COUNT)} bytes per order; snapshot JSON ~${Math.round(snapshotBytes)} B, summary JSON ~${Math.round(summaryBytes)} B`,
    );

    // Newest first: made[] is in creation order, so list position p is made[COUNT - 1 - p] (ties aside).
    const byDestination = new Map<number, Made[]>();
    for (const m of made) {
      let l = byDestination.get(m.destination);
      if (!l) byDestination.set(m.destination, (l = []));
      l.push(m);
    }
    const busiest = [...byDestination.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 60);
    const counts = new Map<ListStatus, number>(LIST_STATUSES.map((s) => [s, 0]));
    for (const m of made) counts.set(m.listStatus, counts.get(m.listStatus)! + 1);
    console.log(
      `destinations: ${byDestination.size} used, the busiest has ${busiest[0]![1].length} orders, the 60th ${busiest.at(-1)![1].length}; ` +
        `statuses: ${LIST_STATUSES.map((s) => `${s} ${counts.get(s)}`).join(', ')}`,
    );
    const cursorAt = (m: Made) => ({ createdAt: m.createdAt, id: m.id });
    // 90 to 95% of the way down the list, a different row each run.
    const deep = (k: number) => made[Math.floor(COUNT * 0.05) + ((k * 7919) % Math.floor(COUNT * 0.05))]!;
    const statusOf = (k: number) => LIST_STATUSES[k % LIST_STATUSES.length]!;
    const cases: Case[] = [
      { name: 'first page', query: () => ({ limit: PAGE }) },
      { name: 'deep page (cursor ~90% down)', query: (k) => ({ limit: PAGE, after: cursorAt(deep(k)) }) },
      { name: 'destination, first page', query: (k) => ({ limit: PAGE, destination: destinations[busiest[k % busiest.length]![0]]! }) },
      {
        name: 'destination, deep page',
        query: (k) => {
          const [d, list] = busiest[k % busiest.length]!;
          return { limit: PAGE, destination: destinations[d]!, after: cursorAt(list[Math.floor(list.length * 0.1)]!) };
        },
      },
      { name: 'listStatus, first page', query: (k) => ({ limit: PAGE, listStatus: statusOf(k) }) },
      { name: 'listStatus, deep page', query: (k) => ({ limit: PAGE, listStatus: statusOf(k), after: cursorAt(deep(k)) }) },
      {
        name: 'destination + listStatus failed (rarest)',
        query: (k) => ({ limit: PAGE, destination: destinations[busiest[k % busiest.length]![0]]!, listStatus: 'failed' }),
      },
      {
        name: 'destination + listStatus settled, deep page',
        query: (k) => {
          const [d, list] = busiest[k % busiest.length]!;
          return { limit: PAGE, destination: destinations[d]!, listStatus: 'settled', after: cursorAt(list[Math.floor(list.length * 0.1)]!) };
        },
      },
    ];

    const store = openSqliteStore(file);
    const db = new Database(file, { readonly: true });
    const results: Array<{ name: string } & Awaited<ReturnType<typeof runCase>>> = [];
    for (const c of cases) results.push({ name: c.name, ...(await runCase(store, db, c)) });
    db.close();
    await store.close();

    console.log(`\n| case | rows | median ms | p95 ms | max ms | ${BUDGET_MS} ms |`);
    console.log('|---|---:|---:|---:|---:|---|');
    let failed = false;
    for (const r of results) {
      const pass = r.p95 < BUDGET_MS;
      failed ||= !pass;
      const rows = r.minRows === r.maxRows ? `${r.minRows}` : `${r.minRows}–${r.maxRows}`;
      console.log(`| ${r.name} | ${rows} | ${ms(r.median)} | ${ms(r.p95)} | ${ms(r.max)} | ${pass ? 'PASS' : 'FAIL'} |`);
    }
    console.log('\nplans:');
    for (const r of results) console.log(`  ${r.name}: ${r.plan}`);
    console.log(`\n${failed ? 'FAIL' : 'PASS'}: every case's p95 ${failed ? 'is not' : 'is'} under ${BUDGET_MS} ms a page (${((performance.now() - began) / 1000).toFixed(0)} s in all)`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    if (KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
