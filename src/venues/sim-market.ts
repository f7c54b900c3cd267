// The simulated market of all 21 venues (docs/architecture.md): seeded, latency-scaled, with test
// controls to halt a venue, move a price, force faults and read the fills.
import type { Asset } from '../assets/types.js';
import { RouterError } from '../errors.js';
import { VENUE_SPECS, type VenueSpec } from './catalog.js';
import { PriceTable } from './prices.js';
import { SimVenue, type FillRecord, type MarketState, type VenueBehaviour } from './sim-venue.js';
import { VENUE_IDS, type Market, type Venue, type VenueId } from './types.js';

export interface SimMarketOptions {
  /** Seeds every venue's stream of latencies and faults and the per-venue price skews. */
  seed: number;
  /** Multiplies every latency; 0 answers at once (still asynchronously). */
  latencyScale: number;
  /** false sets every failure and timeout rate to 0 (explicit setBehaviour overrides still apply). */
  failures: boolean;
  /** Venues that never answer a quote: each starts with a timeout rate of 1 (a setBehaviour override, so it holds
   *  with `failures: false` and can be lifted with setBehaviour(venue, null)). Default none. */
  silent?: readonly VenueId[];
}

export interface SimMarket extends Market {
  readonly options: Readonly<SimMarketOptions>;
  /** A halted venue refuses quotes (VenueFailed) and answers executions with status 'halted'. */
  setHalted(venue: VenueId, halted: boolean): void;
  isHalted(venue: VenueId): boolean;
  /** Moves a reference price (8 decimals) for this market only; quotes and executions use it from then on. */
  setUsdPrice(priceKey: string, price: bigint): void;
  /** Overrides a venue's quote behaviour (wins over `failures: false`); null restores the catalog's. */
  setBehaviour(venue: VenueId, patch: Partial<VenueBehaviour> | null): void;
  behaviour(venue: VenueId): VenueBehaviour;
  /** The next execution on the venue that reaches the venue rejects with VenueFailed (not remembered by key). */
  failNextExecute(venue: VenueId, message?: string): void;
  /** The catalog entry: role, routes, fee, depth, latency, rates. */
  spec(venue: VenueId): VenueSpec;
  /** The output the venue gives now, with no latency or random fault; throws VenueFailed when it cannot fill. */
  preview(venue: VenueId, from: Asset, to: Asset, amountIn: bigint): bigint;
  /** Every fill so far, in order. */
  fills(): readonly FillRecord[];
}

export function createSimMarket(opts: SimMarketOptions): SimMarket {
  if (!Number.isFinite(opts.latencyScale) || opts.latencyScale < 0) {
    throw new RangeError(`latencyScale must be a finite number >= 0, got ${opts.latencyScale}.`);
  }
  const options = Object.freeze({ seed: opts.seed, latencyScale: opts.latencyScale, failures: opts.failures });
  const state: MarketState = { ...options, prices: new PriceTable(), fills: [] };
  const byId = new Map<VenueId, SimVenue>(VENUE_IDS.map((id) => [id, new SimVenue(VENUE_SPECS[id], state)]));
  const list: readonly Venue[] = Object.freeze([...byId.values()]);
  for (const id of opts.silent ?? []) byId.get(id)?.setBehaviour({ timeoutRate: 1 });

  const get = (id: VenueId): SimVenue => {
    const v = byId.get(id);
    if (!v) throw new RouterError(`Unknown venue ${String(id)}.`);
    return v;
  };

  return {
    options,
    venues: () => list,
    venue: get,
    usdPrice: (asset) => state.prices.usdPrice(asset),
    setHalted: (venue, halted) => {
      get(venue).halted = halted;
    },
    isHalted: (venue) => get(venue).halted,
    setUsdPrice: (priceKey, price) => state.prices.set(priceKey, price),
    setBehaviour: (venue, patch) => get(venue).setBehaviour(patch),
    behaviour: (venue) => get(venue).behaviour(),
    failNextExecute: (venue, message = 'execution reverted') => get(venue).failNextExecute(message),
    spec: (venue) => get(venue).spec,
    preview: (venue, from, to, amountIn) => get(venue).price(from, to, amountIn),
    fills: () => state.fills.slice(),
  };
}
