// A small hand-built Market for the routing tests: venues with chosen routes and scripted answers (a rate, a fixed
// output, a failure, a latency, or a hang that ignores the abort signal), and a log of every quote call.
import { assetById, findAsset } from '../../../src/assets/registry.js';
import type { Asset, AssetId, ChainName } from '../../../src/assets/types.js';
import { VenueFailed } from '../../../src/errors.js';
import { REFERENCE_USD_PRICES } from '../../../src/venues/index.js';
import type { Market, Venue, VenueId, VenueQuote, VenueQuoteRequest } from '../../../src/venues/types.js';
import type { RouteRequest } from '../../../src/routing/types.js';

export function id(chain: ChainName, symbol: string): AssetId {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`test asset ${chain} ${symbol} missing`);
  return a.id;
}

/** How a fake venue answers one quote. */
export type Script =
  | { kind: 'rate'; bps: number } // USD value in, less (10000 - bps)/10000
  | { kind: 'fixed'; amountOut: bigint }
  | { kind: 'fail'; message: string }
  | { kind: 'hang' } // never settles and ignores the signal
  | { kind: 'honour' }; // never settles by itself, rejects on abort

export interface FakeVenueSpec {
  id: VenueId;
  routes: ReadonlyArray<readonly [AssetId, AssetId]>;
  script?: Script;
  /** Scripts per edge `${from}>${to}`, winning over `script`. */
  edges?: Record<string, Script>;
  latencyMs?: number;
}

export interface QuoteCall {
  venue: VenueId;
  from: AssetId;
  to: AssetId;
  amountIn: bigint;
  signal: AbortSignal;
  /** performance.now() when the venue was asked, and when its answer or failure settled (null while pending). */
  askedAt: number;
  answeredAt: number | null;
}

export interface FakeMarket extends Market {
  calls: QuoteCall[];
  callsOf(venue: VenueId): QuoteCall[];
}

export function fakeMarket(specs: readonly FakeVenueSpec[]): FakeMarket {
  const calls: QuoteCall[] = [];
  const usdPrice = (a: Asset): bigint => {
    const p = REFERENCE_USD_PRICES[a.priceKey];
    if (p === undefined) throw new Error(`no price for ${a.priceKey}`);
    return p;
  };
  const venues: Venue[] = specs.map((s) => {
    const keys = new Set(s.routes.map(([a, b]) => `${a}>${b}`));
    return {
      id: s.id,
      routes: () => s.routes,
      supports: (a, b) => keys.has(`${a}>${b}`),
      quote(req: VenueQuoteRequest): Promise<VenueQuote> {
        const call: QuoteCall = { venue: s.id, from: req.from.id, to: req.to.id, amountIn: req.amountIn, signal: req.signal, askedAt: performance.now(), answeredAt: null };
        calls.push(call);
        const script = s.edges?.[`${req.from.id}>${req.to.id}`] ?? s.script ?? { kind: 'rate', bps: 9_990 };
        if (script.kind === 'hang') return new Promise(() => undefined);
        if (script.kind === 'honour') {
          return new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason), { once: true }));
        }
        return new Promise((resolve, reject) => {
          setTimeout(() => {
            call.answeredAt = performance.now();
            if (script.kind === 'fail') return reject(new VenueFailed(script.message));
            const amountOut = script.kind === 'fixed' ? script.amountOut : convert(req.from, req.to, req.amountIn, script.bps, usdPrice);
            resolve({ venue: s.id, amountIn: req.amountIn, amountOut });
          }, s.latencyMs ?? 0);
        });
      },
      execute: () => Promise.reject(new Error('fake venues do not execute')),
    };
  });
  return {
    calls,
    callsOf: (v) => calls.filter((c) => c.venue === v),
    venues: () => venues,
    venue: (v) => {
      const found = venues.find((x) => x.id === v);
      if (!found) throw new Error(`no fake venue ${v}`);
      return found;
    },
    usdPrice,
  };
}

function convert(from: Asset, to: Asset, amountIn: bigint, bps: number, price: (a: Asset) => bigint): bigint {
  return (amountIn * price(from) * 10n ** BigInt(to.decimals) * BigInt(bps)) / (price(to) * 10n ** BigInt(from.decimals) * 10_000n);
}

export function request(from: AssetId, to: AssetId, amountIn: bigint, over: Partial<RouteRequest> = {}): RouteRequest {
  return { from, to, amountIn, mode: 'fast', allowlist: [], blocklist: [], ...over };
}

export { assetById };
