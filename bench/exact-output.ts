// Exact-output benchmark: at latency scale 1 with failures on (the production defaults of src/config.ts), exact-input
// and exact-output quotes of the same pairs, interleaved, several rounds, in one process over the simulated market.
// Prints the medians, the ratio EO ÷ EI per pair with PASS/FAIL against ≤ 3, and the median/max venue rounds.
// Usage: npm run bench:exact-output   (BENCH_ROUNDS=7 BENCH_MODE=fast BENCH_SEED=1 by default)
import { findAsset } from '../src/assets/registry.js';
import type { ChainName } from '../src/assets/types.js';
import { createRouter, DEFAULT_DEADLINES, DEFAULT_MAX_HOPS, DEFAULT_PATH_LIMIT, MAX_ROUNDS, type QuoteMode } from '../src/routing/index.js';
import { createSimMarket } from '../src/venues/index.js';
import { median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MODE = (process.env.BENCH_MODE ?? 'fast') as QuoteMode;
const SEED = Number(process.env.BENCH_SEED ?? 1);
const LIMIT = 3;

const id = (chain: ChainName, symbol: string) => {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`asset ${chain} ${symbol} missing`);
  return a.id;
};

const PAIRS = [
  { name: 'direct base.usdc → arbitrum.usdc', from: id('base', 'USDC'), to: id('arbitrum', 'USDC'), amountIn: 2_500_000_000n, amountOut: 2_500_000_000n },
  { name: 'multi-hop bitcoin.btc → arbitrum.usdc', from: id('bitcoin', 'BTC'), to: id('arbitrum', 'USDC'), amountIn: 50_000_000n, amountOut: 45_000_000_000n },
];

const market = createSimMarket({ seed: SEED, latencyScale: 1, failures: true });
const router = createRouter({ market, deadlines: { ...DEFAULT_DEADLINES }, pathLimit: DEFAULT_PATH_LIMIT, maxHops: DEFAULT_MAX_HOPS });

const out = (line: string) => process.stdout.write(`${line}\n`);

const ei: number[][] = PAIRS.map(() => []);
const eo: number[][] = PAIRS.map(() => []);
const rounds: number[][] = PAIRS.map(() => []);
let misses = 0;
out(`Exact output vs exact input, latency scale 1, failures on, mode ${MODE}, seed ${SEED}, ${ROUNDS} rounds (round 0 warms up)`);
for (let r = 0; r <= ROUNDS; r++) {
  for (let p = 0; p < PAIRS.length; p++) {
    const pair = PAIRS[p]!;
    const base = { from: pair.from, to: pair.to, mode: MODE, allowlist: [], blocklist: [] };
    // Alternate which goes first, so neither always runs right after the other's venue traffic.
    const order = r % 2 === 0 ? (['ei', 'eo'] as const) : (['eo', 'ei'] as const);
    for (const kind of order) {
      const t0 = performance.now();
      if (kind === 'ei') {
        await router.route({ ...base, amountIn: pair.amountIn });
        if (r > 0) ei[p]!.push(performance.now() - t0);
      } else {
        const res = await router.exactOutput({ ...base, amountOut: pair.amountOut });
        const ms = performance.now() - t0;
        if (res.best === null || res.best.estimatedAmountOut < pair.amountOut) misses++;
        if (r > 0) {
          eo[p]!.push(ms);
          rounds[p]!.push(res.rounds);
        }
      }
    }
  }
  out(`  round ${r}${r === 0 ? ' (warm-up)' : ''} done`);
}

let pass = true;
const rows = PAIRS.map((pair, p) => {
  const ratio = median(eo[p]!) / median(ei[p]!);
  if (!(ratio <= LIMIT)) pass = false;
  return {
    pair: pair.name,
    'EI median ms': Math.round(median(ei[p]!)),
    'EO median ms': Math.round(median(eo[p]!)),
    'EO ÷ EI': +ratio.toFixed(2),
    [`≤ ${LIMIT}`]: ratio <= LIMIT ? 'PASS' : 'FAIL',
    'rounds median': median(rounds[p]!),
    'rounds max': Math.max(...rounds[p]!),
  };
});
console.table(rows);
out(`Round bound ${MAX_ROUNDS}; answers missing or short of the target: ${misses}. Overall: ${pass && misses === 0 ? 'PASS' : 'FAIL'}`);
