// How much slower the service's own code runs when the thread has just been asleep: one quote's answer work (the
// Family A render of a quote with its candidates, and the codec's encoding of it) timed back to back, and once after
// the thread slept for a gap, or spun on something else. At latency scale 1 quotes come seconds apart, so every step
// of a quote runs after such a gap: this is the factor between the hot figures of bench:quote's throughput rounds and
// its overhead at latency scale 1. Pure in-process work, no I/O in the timed part.
// Usage: npm run bench:cold-start   (BENCH_TRIALS, default 15)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderQuote } from '../http/family-a/render.js';
import { toQuoteRequest } from '../http/family-a/quote.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import type { Quote } from '../src/quotes/types.js';
import { createEmbeddedService } from '../src/service.js';
import { encodeJson } from '../src/store/codec.js';
import { median } from './stats.js';

const TRIALS = Number(process.env.BENCH_TRIALS ?? 15);
const GAPS_MS = [1, 5, 50, 1_500];

const dataDir = mkdtempSync(join(tmpdir(), 'router-bench-cold-'));
const config = loadConfig({ ...process.env, ROUTER_DATA_DIR: dataDir, ROUTER_LOG_LEVEL: 'silent', ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off' });
const service = await createEmbeddedService(config, { logger: createLogger('silent') });
await service.start();
const request = toQuoteRequest({ from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true, include_candidates: true });
const quote: Quote = await service.bus.request({ kind: 'quote', id: crypto.randomUUID() }, { type: 'quote.request', request });

const work: Record<string, () => unknown> = {
  [`render (${JSON.stringify(renderQuote(quote)).length} bytes of JSON)`]: () => renderQuote(quote),
  'encodeJson': () => encodeJson(quote),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const timed = (f: () => unknown) => {
  const t = performance.now();
  f();
  return (performance.now() - t) * 1000;
};

const rows: Record<string, Record<string, string>> = {};
try {
  for (const [name, f] of Object.entries(work)) {
    for (let i = 0; i < 2_000; i++) f(); // hot: optimised and in the caches
    const hot: number[] = [];
    for (let i = 0; i < TRIALS; i++) hot.push(timed(f));
    const base = median(hot);
    const row: Record<string, string> = { 'back to back, µs': base.toFixed(1) };
    for (const gap of GAPS_MS) {
      const cold: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        await sleep(gap);
        cold.push(timed(f));
      }
      row[`after ${gap} ms asleep`] = `${median(cold).toFixed(0)} (${(median(cold) / base).toFixed(1)}×)`;
    }
    const spun: number[] = [];
    for (let i = 0; i < Math.min(TRIALS, 5); i++) {
      const until = performance.now() + 1_500;
      while (performance.now() < until) {
        // busy on nothing: the thread never sleeps
      }
      spun.push(timed(f));
    }
    row['after 1.5 s spinning'] = `${median(spun).toFixed(0)} (${(median(spun) / base).toFixed(1)}×)`;
    rows[name] = row;
  }
  console.log(`Medians of ${TRIALS} single runs each (µs; × the back-to-back median):`);
  console.table(rows);
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
