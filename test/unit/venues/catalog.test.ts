// The catalog of the simulated market: all 21 venues with routes, and the pairs only multi-hop search can price.
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../../src/assets/registry.js';
import { EXAMPLE_PAIRS, VENUE_IDS, VENUE_SPECS, createSimMarket } from '../../../src/venues/index.js';
import type { AssetId } from '../../../src/assets/types.js';

const market = createSimMarket({ seed: 7, latencyScale: 0, failures: false });
const known = new Set(ASSETS.map((a) => a.id));

function directVenues(from: AssetId, to: AssetId): string[] {
  return market.venues().filter((v) => v.supports(from, to)).map((v) => v.id);
}

/** Intermediate assets m with some venue serving from -> m and some venue serving m -> to. */
function twoHopIntermediates(from: AssetId, to: AssetId): AssetId[] {
  const out = new Set<AssetId>();
  const next = new Set<AssetId>();
  for (const v of market.venues()) for (const [a, b] of v.routes()) if (a === from) next.add(b);
  for (const m of next) if (m !== to && directVenues(m, to).length > 0) out.add(m);
  return [...out];
}

describe('every VenueId of the spec is a venue of the market', () => {
  it('has all 21 ids, each once, in the order of VENUE_IDS', () => {
    expect([...VENUE_IDS]).toEqual([
      'aave', 'across', 'cctp_fast', 'cctp_hyperliquid_fast', 'cctp_hyperliquid_standard', 'cctp_standard', 'chainflip', 'flytrade',
      'hyperliquid_spot', 'kyberswap', 'lifi_fast', 'lifi_standard', 'mayan', 'morpho', 'nordstern', 'near_intents', 'okx', 'relay',
      'transit', 'unit', 'velora',
    ]);
    expect(market.venues().map((v) => v.id)).toEqual([...VENUE_IDS]);
    for (const id of VENUE_IDS) expect(market.venue(id).id).toBe(id);
  });

  it('gives each venue at least one route, between registry assets, never an asset to itself', () => {
    for (const v of market.venues()) {
      const routes = v.routes();
      expect(routes.length, v.id).toBeGreaterThan(0);
      for (const [a, b] of routes) {
        expect(known.has(a), `${v.id} ${a}`).toBe(true);
        expect(known.has(b), `${v.id} ${b}`).toBe(true);
        expect(a).not.toBe(b);
        expect(v.supports(a, b)).toBe(true);
      }
      expect(new Set(routes.map(([a, b]) => `${a}>${b}`)).size).toBe(routes.length);
    }
  });

  it('keeps routes static: the same array on every call', () => {
    const v = market.venue('across');
    expect(v.routes()).toBe(v.routes());
  });

  it('serves bridges in both directions where the real venue does', () => {
    for (const id of ['across', 'cctp_fast', 'cctp_standard', 'cctp_hyperliquid_fast', 'unit', 'chainflip'] as const) {
      const v = market.venue(id);
      for (const [a, b] of v.routes()) expect(v.supports(b, a), `${id} ${b} -> ${a}`).toBe(true);
    }
  });

  it('documents each venue with a role, a fee, a depth, a latency and rates', () => {
    for (const id of VENUE_IDS) {
      const s = VENUE_SPECS[id];
      expect(s.role.length).toBeGreaterThan(10);
      expect(Number.isInteger(s.feeBps) && s.feeBps >= 0 && s.feeBps < 100).toBe(true);
      expect(s.depthUsd).toBeGreaterThan(0n);
      expect(s.latency.medianMs).toBeGreaterThan(0);
      expect(s.failureRate).toBeGreaterThanOrEqual(0);
      expect(s.timeoutRate).toBeLessThan(0.05);
      expect(s.failureMessages.length).toBeGreaterThan(0);
    }
  });
});

describe('pairs with no direct venue are connected through an intermediate asset in two hops', () => {
  it('lists the required multi-hop-only pairs', () => {
    const names = EXAMPLE_PAIRS.multiHopOnly.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['bitcoin BTC -> arbitrum USDC', 'bitcoin BTC -> arbitrum USDT', 'hyperliquid HYPE -> base ETH']));
  });

  for (const p of EXAMPLE_PAIRS.multiHopOnly) {
    it(`${p.name}: no direct venue, yet two hops`, () => {
      expect(directVenues(p.from, p.to)).toEqual([]);
      expect(twoHopIntermediates(p.from, p.to).length).toBeGreaterThan(0);
    });
  }

  it('BTC reaches Arbitrum USDC through Ethereum USDC (chainflip/near_intents, then a USDC bridge)', () => {
    const [btc, arbUsdc] = [EXAMPLE_PAIRS.multiHopOnly[0]!.from, EXAMPLE_PAIRS.multiHopOnly[0]!.to];
    const ethUsdc = ASSETS.find((a) => a.chain === 'ethereum' && a.symbol === 'USDC')!.id;
    expect(twoHopIntermediates(btc, arbUsdc)).toContain(ethUsdc);
    expect(directVenues(btc, ethUsdc).sort()).toEqual(['chainflip', 'near_intents']);
    expect(directVenues(ethUsdc, arbUsdc)).toEqual(expect.arrayContaining(['cctp_fast', 'cctp_standard', 'across']));
  });

  for (const p of EXAMPLE_PAIRS.direct) {
    it(`${p.name}: has a direct venue that can fill the example amount`, () => {
      const venues = market.venues().filter((v) => v.supports(p.from, p.to));
      expect(venues.length).toBeGreaterThan(0);
      const from = ASSETS.find((a) => a.id === p.from)!;
      const to = ASSETS.find((a) => a.id === p.to)!;
      for (const v of venues) expect(market.preview(v.id, from, to, p.amountIn)).toBeGreaterThan(0n);
    });
  }
});
