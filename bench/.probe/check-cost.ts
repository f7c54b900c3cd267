import { findAsset } from '../../src/assets/registry.js';
import { isQuote } from '../../src/protocol/index.js';
import { createRouter, DEFAULT_DEADLINES, DEFAULT_MAX_HOPS, DEFAULT_PATH_LIMIT } from '../../src/routing/index.js';
import { createSimMarket } from '../../src/venues/index.js';
import { encodeJson, decodeJson } from '../../src/store/codec.js';
const id = (c: string, s: string) => findAsset(c as never, s)!.id;
const market = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
const router = createRouter({ market, deadlines: { ...DEFAULT_DEADLINES }, pathLimit: DEFAULT_PATH_LIMIT, maxHops: DEFAULT_MAX_HOPS });
for (const [from, to, amountIn] of [[id('base', 'USDC'), id('arbitrum', 'USDC'), 2_500_000_000n], [id('bitcoin', 'BTC'), id('arbitrum', 'USDC'), 50_000_000n]] as const) {
  const res = await router.route({ from, to, amountIn, mode: 'optimal', allowlist: [], blocklist: [] });
  const quote = { id: 'q', request: { from, to, amountIn, mode: 'optimal' as const, allowlist: [], blocklist: [], format: 'raw' as const, returnFullRoute: true, includeCandidates: true },
    route: res.best!, refundCost: res.refundCost, audit: res.audit, quotedAt: 1, expiresAt: 2, usdPrices: {}, rounds: 1 };
  const text = encodeJson(quote);
  if (!isQuote(decodeJson(text))) throw new Error('not a quote');
  const N = 2000;
  for (let i = 0; i < N; i++) isQuote(quote);
  let t = performance.now();
  for (let i = 0; i < N; i++) isQuote(quote);
  const check = (performance.now() - t) / N;
  t = performance.now();
  for (let i = 0; i < 200; i++) decodeJson(text);
  const dec = (performance.now() - t) / 200;
  console.log(`${from}->${to}: ${text.length} bytes, isQuote ${(check * 1000).toFixed(1)} µs, decode ${(dec * 1000).toFixed(1)} µs; no audit: `);
  const bare = { ...quote, audit: null };
  t = performance.now();
  for (let i = 0; i < N; i++) isQuote(bare);
  console.log(`   isQuote without audit ${(((performance.now() - t) / N) * 1000).toFixed(2)} µs`);
}
