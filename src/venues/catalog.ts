// The catalog of the 21 simulated venues: what each one serves (static routes between canonical ids), its fee,
// liquidity depth, quote latency, failure and timeout rates. Roles follow what the real venues do; see README.md.
import { assetsOn, findAsset } from '../assets/registry.js';
import type { AssetId, ChainName } from '../assets/types.js';
import type { VenueId } from './types.js';

export type VenueKind = 'bridge' | 'intents' | 'aggregator' | 'dex_aggregator' | 'order_book' | 'lending';

export interface VenueSpec {
  id: VenueId;
  kind: VenueKind;
  /** One line on what the venue does here. */
  role: string;
  /** One line on the routes, for the README table. */
  routesSummary: string;
  /** Venue fee in basis points of the output, integer. */
  feeBps: number;
  /** Liquidity depth in whole USD: impact = size / (size + depth); a trade larger than the depth is refused. */
  depthUsd: bigint;
  /** Largest deterministic price skew in bps (drawn per venue and pair from the seed) so venues differ. */
  maxSkewBps: number;
  /** Quote latency: log-normal with this median (ms) and spread (sigma of ln latency). */
  latency: { medianMs: number; sigma: number };
  /** Probability that a quote fails with VenueFailed after its latency. */
  failureRate: number;
  /** Probability that a quote never answers (it waits for the caller's signal). */
  timeoutRate: number;
  /** Realistic error texts a failing quote picks from. */
  failureMessages: readonly string[];
  routes: ReadonlyArray<readonly [AssetId, AssetId]>;
}

type Pair = readonly [AssetId, AssetId];
const EVM_MAIN: ChainName[] = ['ethereum', 'base', 'arbitrum'];

/** Ids of the symbols that exist on a chain; a symbol the registry lacks is skipped, not an error. */
function idsOf(chains: readonly ChainName[], symbols: readonly string[]): { chain: ChainName; symbol: string; id: AssetId }[] {
  const out: { chain: ChainName; symbol: string; id: AssetId }[] = [];
  for (const chain of chains) {
    for (const symbol of symbols) {
      const a = findAsset(chain, symbol);
      if (a) out.push({ chain, symbol: a.symbol, id: a.id });
    }
  }
  return out;
}

function must(chain: ChainName, symbol: string): AssetId {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`Simulated market: asset ${chain} ${symbol} is missing from the registry.`);
  return a.id;
}

/** The same asset moved between chains (a bridge): every ordered pair of distinct chains holding the symbol. */
function sameAssetAcross(chains: readonly ChainName[], symbols: readonly string[]): Pair[] {
  const all = idsOf(chains, symbols);
  return all.flatMap((a) => all.filter((b) => b.symbol === a.symbol && b.chain !== a.chain).map((b) => [a.id, b.id] as const));
}

/** Any listed asset into any other on another chain (an intent network or cross-chain aggregator). */
function anyAcross(chains: readonly ChainName[], symbols: readonly string[]): Pair[] {
  const all = idsOf(chains, symbols);
  return all.flatMap((a) => all.filter((b) => b.chain !== a.chain).map((b) => [a.id, b.id] as const));
}

/** Every ordered pair of distinct assets on one chain (a same-chain DEX aggregator). */
function sameChain(chains: readonly ChainName[], symbols?: readonly string[]): Pair[] {
  return chains.flatMap((chain) => {
    // Without a symbol list every registry asset of the chain joins, so new registry assets reach the DEX venues.
    const all = symbols ? idsOf([chain], symbols) : assetsOn(chain).map((a) => ({ chain, symbol: a.symbol, id: a.id }));
    return all.flatMap((a) => all.filter((b) => b.id !== a.id).map((b) => [a.id, b.id] as const));
  });
}

/** Every ordered pair within one explicit set of assets (may span chains). */
function mesh(ids: readonly AssetId[]): Pair[] {
  return ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => [a, b] as const));
}

function both(a: AssetId, b: AssetId): Pair[] {
  return [[a, b], [b, a]];
}

function dedupe(pairs: Pair[]): Pair[] {
  const seen = new Set<string>();
  return pairs.filter(([a, b]) => {
    const k = `${a}>${b}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const hl = (symbol: string) => must('hyperliquid', symbol);
const btc = () => must('bitcoin', 'BTC');

const GENERIC = ['upstream returned 503 Service Unavailable', 'rate limited (429 Too Many Requests)'];

function spec(s: Omit<VenueSpec, 'routes'> & { routes: () => Pair[] }): VenueSpec {
  return { ...s, routes: Object.freeze(dedupe(s.routes()).map((p) => Object.freeze(p))) };
}

/** Built once at load: routes are static for the life of the process (Venue.routes contract). */
export const VENUE_SPECS: Readonly<Record<VenueId, VenueSpec>> = {
  aave: spec({
    id: 'aave', kind: 'lending',
    role: 'Aave v3 pools: ETH↔WETH through the WrappedTokenGateway, USDC↔USDT by supplying one and withdrawing the other against pool liquidity',
    routesSummary: 'same chain on ethereum, base, arbitrum: ETH↔WETH, USDC↔USDT',
    feeBps: 1, depthUsd: 40_000_000n, maxSkewBps: 1,
    latency: { medianMs: 250, sigma: 0.3 }, failureRate: 0.005, timeoutRate: 0.002,
    failureMessages: ['reserve is paused', 'not enough available liquidity in the reserve', ...GENERIC],
    routes: () => EVM_MAIN.flatMap((c) => [...sameChain([c], ['ETH', 'WETH']), ...sameChain([c], ['USDC', 'USDT'])]),
  }),
  across: spec({
    id: 'across', kind: 'bridge',
    role: 'Across: relayers front the same asset on the destination chain, repaid later through the hub pool',
    routesSummary: 'same asset between ethereum, base, arbitrum, ink: ETH, WETH, USDC; USDT where listed',
    feeBps: 4, depthUsd: 8_000_000n, maxSkewBps: 3,
    latency: { medianMs: 450, sigma: 0.35 }, failureRate: 0.01, timeoutRate: 0.005,
    failureMessages: ['amount exceeds relayer liquidity for this route', 'route is disabled', ...GENERIC],
    routes: () => sameAssetAcross(['ethereum', 'base', 'arbitrum', 'ink'], ['ETH', 'WETH', 'USDC', 'USDT']),
  }),
  cctp_fast: spec({
    id: 'cctp_fast', kind: 'bridge',
    role: 'Circle CCTP v2 fast transfer: burn and mint USDC with soft finality, backed by the fast-transfer allowance',
    routesSummary: 'USDC between ethereum, base, arbitrum, ink',
    feeBps: 1, depthUsd: 10_000_000n, maxSkewBps: 0,
    latency: { medianMs: 350, sigma: 0.3 }, failureRate: 0.005, timeoutRate: 0.002,
    failureMessages: ['fast transfer allowance exhausted', 'attestation service unavailable', ...GENERIC],
    routes: () => sameAssetAcross(['ethereum', 'base', 'arbitrum', 'ink'], ['USDC']),
  }),
  cctp_standard: spec({
    id: 'cctp_standard', kind: 'bridge',
    role: 'Circle CCTP v2 standard transfer: burn and mint USDC after hard finality, no fee, practically unlimited',
    routesSummary: 'USDC between ethereum, base, arbitrum, ink',
    feeBps: 0, depthUsd: 1_000_000_000n, maxSkewBps: 0,
    latency: { medianMs: 300, sigma: 0.3 }, failureRate: 0.005, timeoutRate: 0.002,
    failureMessages: ['attestation service unavailable', ...GENERIC],
    routes: () => sameAssetAcross(['ethereum', 'base', 'arbitrum', 'ink'], ['USDC']),
  }),
  cctp_hyperliquid_fast: spec({
    id: 'cctp_hyperliquid_fast', kind: 'bridge',
    role: 'CCTP fast transfer into HyperCore (mint on HyperEVM, forwarded to the spot balance) and back out',
    routesSummary: 'USDC on ethereum, base, arbitrum ↔ Hyperliquid USDC',
    feeBps: 1, depthUsd: 5_000_000n, maxSkewBps: 0,
    latency: { medianMs: 400, sigma: 0.35 }, failureRate: 0.005, timeoutRate: 0.003,
    failureMessages: ['fast transfer allowance exhausted', 'HyperCore forwarder paused', ...GENERIC],
    routes: () => idsOf(EVM_MAIN, ['USDC']).flatMap((a) => both(a.id, hl('USDC'))),
  }),
  cctp_hyperliquid_standard: spec({
    id: 'cctp_hyperliquid_standard', kind: 'bridge',
    role: 'CCTP standard transfer into and out of HyperCore, no fee',
    routesSummary: 'USDC on ethereum, base, arbitrum ↔ Hyperliquid USDC',
    feeBps: 0, depthUsd: 1_000_000_000n, maxSkewBps: 0,
    latency: { medianMs: 500, sigma: 0.35 }, failureRate: 0.005, timeoutRate: 0.003,
    failureMessages: ['HyperCore forwarder paused', ...GENERIC],
    routes: () => idsOf(EVM_MAIN, ['USDC']).flatMap((a) => both(a.id, hl('USDC'))),
  }),
  chainflip: spec({
    id: 'chainflip', kind: 'intents',
    role: 'Chainflip JIT AMM: native BTC against Ethereum assets; the Arbitrum leg is left out so BTC→Arbitrum needs two hops',
    routesSummary: 'any of bitcoin BTC, ethereum ETH, USDC, USDT into any other',
    feeBps: 15, depthUsd: 6_000_000n, maxSkewBps: 5,
    latency: { medianMs: 1100, sigma: 0.45 }, failureRate: 0.02, timeoutRate: 0.01,
    failureMessages: ['insufficient liquidity in the BTC pool', 'broker API: quote engine unavailable', ...GENERIC],
    routes: () => mesh([btc(), must('ethereum', 'ETH'), must('ethereum', 'USDC'), must('ethereum', 'USDT')]),
  }),
  flytrade: spec({
    id: 'flytrade', kind: 'dex_aggregator',
    role: 'Fly (ex Magpie) DEX aggregator: same-chain swaps, also on the newer L2s',
    routesSummary: 'same chain, every pair, on ethereum, base, arbitrum, robinhood, ink',
    feeBps: 6, depthUsd: 3_000_000n, maxSkewBps: 4,
    latency: { medianMs: 700, sigma: 0.4 }, failureRate: 0.02, timeoutRate: 0.01,
    failureMessages: ['no route found', 'simulation reverted: slippage', ...GENERIC],
    routes: () => sameChain(['ethereum', 'base', 'arbitrum', 'robinhood', 'ink']),
  }),
  hyperliquid_spot: spec({
    id: 'hyperliquid_spot', kind: 'order_book',
    role: 'HyperCore spot order book: taker orders against USDC',
    routesSummary: 'Hyperliquid USDC ↔ HYPE, UBTC, UETH',
    feeBps: 7, depthUsd: 10_000_000n, maxSkewBps: 2,
    latency: { medianMs: 150, sigma: 0.3 }, failureRate: 0.005, timeoutRate: 0.002,
    failureMessages: ['order book too thin for this size', 'info endpoint returned 502 Bad Gateway', ...GENERIC],
    routes: () => ['HYPE', 'UBTC', 'UETH'].flatMap((s) => both(hl('USDC'), hl(s))),
  }),
  kyberswap: spec({
    id: 'kyberswap', kind: 'dex_aggregator',
    role: 'KyberSwap aggregator: same-chain swaps across AMMs',
    routesSummary: 'same chain, every pair, on ethereum, base, arbitrum, ink',
    feeBps: 5, depthUsd: 15_000_000n, maxSkewBps: 4,
    latency: { medianMs: 500, sigma: 0.35 }, failureRate: 0.015, timeoutRate: 0.005,
    failureMessages: ['route not found', 'price impact too high', ...GENERIC],
    routes: () => sameChain(['ethereum', 'base', 'arbitrum', 'ink']),
  }),
  lifi_fast: spec({
    id: 'lifi_fast', kind: 'aggregator',
    role: 'LI.FI ordered for speed: first bridge+DEX route its solvers return, dearer',
    routesSummary: 'ETH, USDC cross-chain any to any between ethereum, base, arbitrum, ink',
    feeBps: 12, depthUsd: 4_000_000n, maxSkewBps: 5,
    latency: { medianMs: 900, sigma: 0.4 }, failureRate: 0.02, timeoutRate: 0.01,
    failureMessages: ['no available quotes for the requested transfer', 'all bridges failed', ...GENERIC],
    routes: () => anyAcross(['ethereum', 'base', 'arbitrum', 'ink'], ['ETH', 'USDC']),
  }),
  lifi_standard: spec({
    id: 'lifi_standard', kind: 'aggregator',
    role: 'LI.FI ordered for price: waits for every bridge and DEX, cheaper but slow (often cut off in fast mode)',
    routesSummary: 'ETH, WETH, USDC, USDT (and Robinhood USDG) cross-chain any to any between all five EVM chains',
    feeBps: 6, depthUsd: 6_000_000n, maxSkewBps: 4,
    latency: { medianMs: 2600, sigma: 0.45 }, failureRate: 0.02, timeoutRate: 0.015,
    failureMessages: ['no available quotes for the requested transfer', 'all bridges failed', ...GENERIC],
    // USDG is Robinhood Chain's dollar (it has no Circle USDC); LI.FI is its way out to the other chains' stables.
    routes: () => anyAcross(['ethereum', 'base', 'arbitrum', 'robinhood', 'ink'], ['ETH', 'WETH', 'USDC', 'USDT', 'USDG']),
  }),
  mayan: spec({
    id: 'mayan', kind: 'intents',
    role: 'Mayan Swift: auction-based cross-chain swaps between EVM chains',
    routesSummary: 'ETH, USDC, USDT cross-chain any to any between ethereum, base, arbitrum',
    feeBps: 8, depthUsd: 3_000_000n, maxSkewBps: 5,
    latency: { medianMs: 1300, sigma: 0.5 }, failureRate: 0.02, timeoutRate: 0.01,
    failureMessages: ['no driver bid for this route', 'amount below minimum for Swift', ...GENERIC],
    routes: () => anyAcross(EVM_MAIN, ['ETH', 'USDC', 'USDT']),
  }),
  morpho: spec({
    id: 'morpho', kind: 'lending',
    role: 'Morpho vaults and markets: stablecoin and BTC-wrapper conversions against vault liquidity, ETH↔WETH via the bundler',
    routesSummary: 'ethereum: USDC↔USDT, WBTC↔cbBTC, ETH↔WETH; base: USDC↔USDT, ETH↔WETH',
    feeBps: 2, depthUsd: 20_000_000n, maxSkewBps: 2,
    latency: { medianMs: 350, sigma: 0.3 }, failureRate: 0.005, timeoutRate: 0.002,
    failureMessages: ['vault withdraw queue has not enough liquidity', 'bundler simulation reverted', ...GENERIC],
    routes: () => [
      ...sameChain(['ethereum', 'base'], ['USDC', 'USDT']),
      ...sameChain(['ethereum', 'base'], ['ETH', 'WETH']),
      ...sameChain(['ethereum'], ['WBTC', 'cbBTC']),
    ],
  }),
  near_intents: spec({
    id: 'near_intents', kind: 'intents',
    role: 'NEAR Intents (1Click): solver auction; native BTC only against Ethereum assets, plus EVM cross-chain',
    routesSummary: 'bitcoin BTC ↔ ethereum ETH, USDC, USDT; ETH, USDC cross-chain any to any between ethereum, base, arbitrum',
    feeBps: 12, depthUsd: 5_000_000n, maxSkewBps: 5,
    latency: { medianMs: 2400, sigma: 0.45 }, failureRate: 0.03, timeoutRate: 0.02,
    failureMessages: ['no solver quoted within the auction window', 'amount too low for this route', ...GENERIC],
    routes: () => [
      ...['ETH', 'USDC', 'USDT'].flatMap((s) => both(btc(), must('ethereum', s))),
      ...anyAcross(EVM_MAIN, ['ETH', 'USDC']),
    ],
  }),
  nordstern: spec({
    id: 'nordstern', kind: 'intents',
    role: 'RFQ market maker between HyperCore and the EVM L2s (assumed role: quotes firm prices, slow to answer)',
    routesSummary: 'Hyperliquid USDC, UETH, UBTC ↔ ETH, USDC on base and arbitrum',
    feeBps: 10, depthUsd: 2_000_000n, maxSkewBps: 5,
    latency: { medianMs: 2000, sigma: 0.4 }, failureRate: 0.03, timeoutRate: 0.02,
    failureMessages: ['market maker declined to quote', 'inventory too low on the destination chain', ...GENERIC],
    routes: () =>
      ['USDC', 'UETH', 'UBTC'].flatMap((h) => idsOf(['base', 'arbitrum'], ['ETH', 'USDC']).flatMap((e) => both(hl(h), e.id))),
  }),
  okx: spec({
    id: 'okx', kind: 'dex_aggregator',
    role: 'OKX DEX aggregator: same-chain swaps',
    routesSummary: 'same chain, every pair, on ethereum, base, arbitrum',
    feeBps: 8, depthUsd: 12_000_000n, maxSkewBps: 4,
    latency: { medianMs: 650, sigma: 0.4 }, failureRate: 0.02, timeoutRate: 0.01,
    failureMessages: ['insufficient liquidity', 'request timestamp expired', ...GENERIC],
    routes: () => sameChain(EVM_MAIN),
  }),
  relay: spec({
    id: 'relay', kind: 'bridge',
    role: 'Relay: solver fills the same asset on the destination chain at once',
    routesSummary: 'same asset between all five EVM chains: ETH, USDC',
    feeBps: 5, depthUsd: 6_000_000n, maxSkewBps: 3,
    latency: { medianMs: 300, sigma: 0.35 }, failureRate: 0.01, timeoutRate: 0.005,
    failureMessages: ['solver has insufficient liquidity', 'route not supported for this amount', ...GENERIC],
    routes: () => sameAssetAcross(['ethereum', 'base', 'arbitrum', 'robinhood', 'ink'], ['ETH', 'USDC']),
  }),
  transit: spec({
    id: 'transit', kind: 'aggregator',
    role: 'Transit Swap cross-chain aggregator: bridges plus DEX legs, thin and slow',
    routesSummary: 'ETH, USDT cross-chain any to any between ethereum, base, arbitrum',
    feeBps: 10, depthUsd: 1_500_000n, maxSkewBps: 5,
    latency: { medianMs: 1800, sigma: 0.45 }, failureRate: 0.04, timeoutRate: 0.02,
    failureMessages: ['result -1: no bridge available', 'liquidity not enough', ...GENERIC],
    routes: () => anyAcross(EVM_MAIN, ['ETH', 'USDT']),
  }),
  unit: spec({
    id: 'unit', kind: 'bridge',
    role: 'Hyperunit: guardians custody native BTC and ETH and mint UBTC and UETH on HyperCore, and back',
    routesSummary: 'bitcoin BTC ↔ Hyperliquid UBTC; ethereum ETH ↔ Hyperliquid UETH',
    feeBps: 10, depthUsd: 5_000_000n, maxSkewBps: 0,
    latency: { medianMs: 800, sigma: 0.4 }, failureRate: 0.01, timeoutRate: 0.005,
    failureMessages: ['guardian network did not sign in time', 'withdrawal queue full', ...GENERIC],
    routes: () => [...both(btc(), hl('UBTC')), ...both(must('ethereum', 'ETH'), hl('UETH'))],
  }),
  velora: spec({
    id: 'velora', kind: 'dex_aggregator',
    role: 'Velora (ex ParaSwap) aggregator: same-chain swaps',
    routesSummary: 'same chain, every pair, on ethereum, base, arbitrum',
    feeBps: 6, depthUsd: 10_000_000n, maxSkewBps: 4,
    latency: { medianMs: 750, sigma: 0.4 }, failureRate: 0.015, timeoutRate: 0.005,
    failureMessages: ['no routes found with enough liquidity', 'estimated loss greater than max impact', ...GENERIC],
    routes: () => sameChain(EVM_MAIN),
  }),
};
