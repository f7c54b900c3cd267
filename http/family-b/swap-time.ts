// `expectedSwapTimeMs`: the source chain's confirmations (src/chains/blocks.ts) plus a typical execution time per
// venue of the route plus one block of the destination chain for delivery. The figures are typical (median-ish)
// times of the real services, rounded up; they inform a client's progress display and decide nothing.
import { assetById } from '../../src/assets/index.js';
import { BLOCK_MS, REQUIRED_CONFIRMATIONS } from '../../src/chains/blocks.js';
import type { PricedRoute } from '../../src/routing/types.js';
import type { VenueId } from '../../src/venues/types.js';

const S = 1000;
const MIN = 60 * S;

/** Typical time from handing the asset to the venue to the output being ours. */
export const VENUE_EXECUTION_MS: Readonly<Record<VenueId, number>> = {
  // Same-chain swaps and lending: one transaction, a block or two on an L2, one on Ethereum.
  aave: 5 * S,
  morpho: 5 * S,
  flytrade: 5 * S,
  kyberswap: 5 * S,
  okx: 5 * S,
  velora: 5 * S,
  // HyperCore spot order: filled within its ~1 s block.
  hyperliquid_spot: 2 * S,
  // Intent bridges filled by relayers: Across and Relay fill in seconds (docs quote 2–10 s), Mayan Swift 15–60 s,
  // NEAR Intents ~30 s.
  across: 10 * S,
  relay: 10 * S,
  mayan: 30 * S,
  near_intents: 30 * S,
  transit: 30 * S,
  nordstern: 30 * S,
  // Circle CCTP: fast transfers (soft finality) ~8–20 s; standard waits for hard finality on the source, ~13–19 min.
  cctp_fast: 20 * S,
  cctp_hyperliquid_fast: 20 * S,
  cctp_standard: 15 * MIN,
  cctp_hyperliquid_standard: 15 * MIN,
  // LI.FI picks a bridge: its fast routes are intent bridges, its standard ones canonical/messaging bridges (minutes).
  lifi_fast: 30 * S,
  lifi_standard: 5 * MIN,
  // Chainflip swaps go through its state chain and witnessing: 1–3 min typically.
  chainflip: 2 * MIN,
  // Unit (HyperCore deposits/withdrawals of native assets): its guardians sign after their own checks, ~1 min.
  unit: 1 * MIN,
};

export function expectedSwapTimeMs(route: PricedRoute): number {
  const source = assetById(route.from).chain;
  const destination = assetById(route.to).chain;
  const confirmations = REQUIRED_CONFIRMATIONS[source] * BLOCK_MS[source];
  const venues = route.steps.reduce((sum, s) => sum + VENUE_EXECUTION_MS[s.venue], 0);
  return confirmations + venues + BLOCK_MS[destination];
}
