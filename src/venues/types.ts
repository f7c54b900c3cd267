// The Venue port: what every venue (simulated now, real adapters later) offers the router.
import type { Asset, AssetId } from '../assets/types.js';

export const VENUE_IDS = [
  'aave', 'across', 'cctp_fast', 'cctp_hyperliquid_fast', 'cctp_hyperliquid_standard', 'cctp_standard',
  'chainflip', 'flytrade', 'hyperliquid_spot', 'kyberswap', 'lifi_fast', 'lifi_standard', 'mayan', 'morpho',
  'nordstern', 'near_intents', 'okx', 'relay', 'transit', 'unit', 'velora',
] as const;
export type VenueId = (typeof VENUE_IDS)[number];

export function isVenueId(name: string): name is VenueId {
  return (VENUE_IDS as readonly string[]).includes(name);
}

/** How a step runs (spec 2.3). */
export type Execution =
  | { mode: 'evm'; chain: number }
  | { mode: 'evm_gas_desk'; chain: number }
  | { mode: 'bitcoin' }
  | { mode: 'hyperliquid' };

export interface VenueQuoteRequest {
  from: Asset;
  to: Asset;
  /** Amount the venue is asked to price, base units of `from` (the step's venue_amount_in). */
  amountIn: bigint;
  /** Aborted when the router's deadline for this venue passes; the promise must then reject promptly. */
  signal: AbortSignal;
}

export interface VenueQuote {
  venue: VenueId;
  amountIn: bigint;
  /** The venue's raw answer, base units of `to`, before any execution cost of the router. */
  amountOut: bigint;
}

export interface VenueExecuteRequest {
  /** Idempotency key `<order id>:<step index>`: the same key executes once and answers the same result again. */
  key: string;
  from: Asset;
  to: Asset;
  amountIn: bigint;
  /** The least output acceptable; below it the venue answers with a shortfall instead of filling. */
  minAmountOut: bigint;
  signal?: AbortSignal;
}

export type VenueExecution =
  | { status: 'filled'; key: string; amountIn: bigint; amountOut: bigint; txId: string }
  /** `shortfall`: the venue would fill, but below `minAmountOut` (re-priced); otherwise the venue itself is halted. */
  | { status: 'halted'; key: string; reason: string; shortfall?: boolean };

export interface Venue {
  readonly id: VenueId;
  /** Direct routes this venue serves, as (from, to) canonical id pairs. Static for the life of the process. */
  routes(): ReadonlyArray<readonly [AssetId, AssetId]>;
  supports(from: AssetId, to: AssetId): boolean;
  /** Rejects with VenueFailed on a venue error, or with the signal's reason when aborted. */
  quote(req: VenueQuoteRequest): Promise<VenueQuote>;
  /**
   * Optional, synchronous and free: an upper bound on the `amountOut` that `quote` can answer for this request at
   * the current market (a venue that knows its fee and that it never pays above its reference rate can bound it).
   * The router skips asks whose bound cannot beat a quote it already holds; a venue without it is always asked.
   */
  quoteBound?(from: Asset, to: Asset, amountIn: bigint): bigint;
  execute(req: VenueExecuteRequest): Promise<VenueExecution>;
}

export interface Market {
  venues(): ReadonlyArray<Venue>;
  venue(id: VenueId): Venue;
  /** USD reference price of one whole unit of the asset, as a fixed-point bigint with 8 decimals (1 USD = 100000000n). */
  usdPrice(asset: Asset): bigint;
}
