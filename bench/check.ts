// The bars: runs the short versions of bench:quote, bench:orders and bench:cluster, reads the figures each writes to
// BENCH_JSON, compares every figure of the speed goals with its bar and prints a table; exits 1 when a bar is missed
// or a figure is missing, so a change that slows the service shows up. Timings are not tests: not part of npm test.
// Usage: npm run bench:check   (CHECK_ONLY=quote,orders,cluster runs a subset and checks only its bars; the benches'
// own knobs, e.g. BENCH_ROUNDS, override the short settings below)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Bench = 'quote' | 'orders' | 'cluster';

/** Each bench's short run: enough rounds for a median, minutes rather than the full run's quarter hour. The cluster's
 *  rounds are 1 000 requests per target: with 200 a round lasts a quarter of a second, mostly code still warming up,
 *  which flatters the cluster (its two processes share that work over both cores) against a hot embedded service. */
const RUNS: Record<Bench, { file: string; env: Record<string, string> }> = {
  quote: { file: 'bench/quote.ts', env: { BENCH_SECONDS: '3', BENCH_ROUNDS: '3', BENCH_OVERHEAD_QUOTES: '10', BENCH_SILENT_QUOTES: '200' } },
  // The bench's own 1 000 creations a round: each round's first hundred, after the idle second that measures the
  // background writes, run about 40 % slower than the rest, and a round of 300 was mostly that start.
  orders: { file: 'bench/orders.ts', env: { BENCH_ONLY: 'rate', BENCH_ORDERS: '1000', BENCH_ROUNDS: '3' } },
  cluster: { file: 'bench/cluster.ts', env: { BENCH_N: '1000', BENCH_ROUNDS: '3', BENCH_ECHO_N: '2000' } },
};

interface Bar {
  figure: string;
  bench: Bench;
  /** The key the bench writes to BENCH_JSON. */
  key: string;
  /** `min`: the figure must be at least the bar; `max`: at most. */
  kind: 'min' | 'max';
  bar: number;
  unit?: string;
}

/** The goals table of bench/README.md ("Bars"), each figure against its same-run baseline. */
const BARS: Bar[] = [
  { figure: 'quotes/s, direct pair, instant venues ÷ bare Koa echo', bench: 'quote', key: 'directPerEcho', kind: 'min', bar: 0.05 },
  { figure: 'quotes/s, multi-hop pair, full audit kept ÷ echo', bench: 'quote', key: 'multiPerEcho', kind: 'min', bar: 0.03 },
  // The two latency figures are read against the bare server of the same run (same requests, same bytes, same
  // waits): an absolute wall time would count this machine's HTTP client (2–5 ms a call here) as the service's.
  { figure: 'median quote overhead above the slowest venue that answered (latency scale 1), less the bare server\'s', bench: 'quote', key: 'overheadAboveClientMs', kind: 'max', bar: 2, unit: 'ms' },
  { figure: '`fast` quotes with a venue that never answers: p99 wall time above the bare server\'s (1.5 s + 20 ms)', bench: 'quote', key: 'fastNeverAnswersP99AboveBareMs', kind: 'max', bar: 20, unit: 'ms' },
  { figure: 'durable order creations ÷ raw store saves of the same document', bench: 'orders', key: 'ordersPerRawSave', kind: 'min', bar: 0.25 },
  { figure: 'durable transactions per order creation', bench: 'orders', key: 'transactionsPerOrder', kind: 'max', bar: 2 },
  { figure: 'quotes through a 1-worker cluster ÷ embedded', bench: 'cluster', key: 'quotesCluster1PerEmbedded', kind: 'min', bar: 1.0 },
  { figure: 'order creations through a 1-worker cluster ÷ embedded', bench: 'cluster', key: 'ordersCluster1PerEmbedded', kind: 'min', bar: 0.95 },
];

const only = process.env.CHECK_ONLY ? new Set(process.env.CHECK_ONLY.split(',').map((s) => s.trim())) : null;
const benches = (Object.keys(RUNS) as Bench[]).filter((b) => !only || only.has(b));

const dir = mkdtempSync(join(tmpdir(), 'router-bench-check-'));
const jsonFile = join(dir, 'results.jsonl');
const failedRuns: string[] = [];
try {
  for (const bench of benches) {
    const { file, env } = RUNS[bench];
    console.log(`\n=== ${file} (short run: ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}) ===`);
    // The caller's own knobs win over the short settings.
    const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...env, ...process.env, BENCH_JSON: jsonFile }, stdio: 'inherit' });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) failedRuns.push(`${file} exited ${code}`);
  }

  const figures: Partial<Record<Bench, Record<string, number>>> = {};
  let text = '';
  try {
    text = readFileSync(jsonFile, 'utf8');
  } catch {
    // No bench wrote a figure: every bar below is missing.
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const { bench, figures: f } = JSON.parse(line) as { bench: Bench; figures: Record<string, number> };
    figures[bench] = { ...figures[bench], ...f };
  }

  let missed = 0;
  const rows = BARS.filter((b) => benches.includes(b.bench)).map((b) => {
    const v = figures[b.bench]?.[b.key];
    const ok = v !== undefined && Number.isFinite(v) && (b.kind === 'min' ? v >= b.bar : v <= b.bar);
    if (!ok) missed++;
    const fmt = (x: number) => `${+x.toFixed(3)}${b.unit ? ` ${b.unit}` : ''}`;
    return {
      figure: b.figure,
      bench: `bench:${b.bench}`,
      bar: `${b.kind === 'min' ? '≥' : '≤'} ${fmt(b.bar)}`,
      measured: v === undefined ? 'not measured' : fmt(v),
      result: ok ? 'met' : v === undefined ? 'MISSING' : 'MISSED',
    };
  });
  console.log('\nBars (each figure against its baseline in the same run; short runs on a possibly shared machine):');
  console.table(rows);
  // Shown beside the bars, not one: the silent venue's round without candidates, as clients ask by default.
  const plain = figures.quote?.fastNeverAnswersDefaultP99AboveBareMs;
  if (plain !== undefined) console.log(`  beside the bars: \`fast\` quotes without candidates, a venue never answering: p99 above the bare server's ${plain.toFixed(1)} ms`);
  // Beside the overhead's bar: what a Koa server that commits its answer durably adds, measured the same way.
  const floor = figures.quote?.overheadFloorMs;
  if (floor !== undefined) console.log(`  beside the bars: the floor of the quote's overhead (Koa, one durable commit, the same answer; less the bare server's) ${floor.toFixed(1)} ms`);
  // Beside the cluster's bars (each target's best over several numbers of callers): the ratios at each number alone.
  const cluster = figures.cluster ?? {};
  for (const key of Object.keys(cluster)) {
    const at = /^quotesCluster1PerEmbeddedAt(\d+)$/.exec(key);
    const orders = at ? cluster[`ordersCluster1PerEmbeddedAt${at[1]}`] : undefined;
    if (at && orders !== undefined) console.log(`  beside the bars: 1-worker cluster ÷ embedded with ${at[1]} callers only: quotes ${cluster[key]!.toFixed(3)}, orders ${orders.toFixed(3)}`);
  }
  for (const f of failedRuns) console.log(`  ${f}`);
  console.log(missed === 0 && failedRuns.length === 0 ? '  every bar met' : `  ${missed} of ${rows.length} bars missed or not measured`);
  process.exitCode = missed === 0 && failedRuns.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
