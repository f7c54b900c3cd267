// Quote latency and venue answers, measured at the router's two seams: the Market it asks (each venue's quote is
// timed and counted by outcome) and the Router itself (one routing per quote). Executions are not touched.
import type { Router } from '../routing/router.js';
import type { Market, Venue } from '../venues/types.js';
import type { HotSeries } from './hot-series.js';
import { secondsSince, type Metrics } from './registry.js';

type Outcome = 'quoted' | 'failed' | 'timed_out';

/**
 * A venue whose quotes are counted and timed: quoted, failed, or timed_out (it rejected once its deadline's signal
 * had fired, as the Venue contract asks). It sits on every quote's hot path, many times: its series are looked up once
 * per venue, and no listener is added to the signal.
 */
function instrumentVenue(venue: Venue, metrics: Metrics): Venue {
  const series = {
    quoted: metrics.venueAnswers.series({ venue: venue.id, outcome: 'quoted' }),
    failed: metrics.venueAnswers.series({ venue: venue.id, outcome: 'failed' }),
    timed_out: metrics.venueAnswers.series({ venue: venue.id, outcome: 'timed_out' }),
  } satisfies Record<Outcome, HotSeries>;
  const record = (outcome: Outcome, t0: number) => series[outcome].observe(secondsSince(t0));
  // The bound prunes the multi-hop search: a wrapper that dropped it would silently make every search unpruned.
  const quoteBound = venue.quoteBound?.bind(venue);
  return {
    ...(quoteBound && { quoteBound }),
    id: venue.id,
    routes: () => venue.routes(),
    supports: (from, to) => venue.supports(from, to),
    execute: (req) => venue.execute(req),
    quote(req) {
      const t0 = performance.now();
      let call: ReturnType<Venue['quote']>;
      try {
        call = venue.quote(req);
      } catch (err) {
        call = Promise.reject(err);
      }
      return call.then(
        (answer) => {
          record(answer.amountOut > 0n ? 'quoted' : 'failed', t0);
          return answer;
        },
        (err: unknown) => {
          record(req.signal.aborted ? 'timed_out' : 'failed', t0);
          throw err;
        },
      );
    },
  };
}

/** The market as the router sees it, with every venue instrumented; prices pass through. */
export function instrumentMarket(market: Market, metrics: Metrics): Market {
  const byId = new Map(market.venues().map((v) => [v.id, instrumentVenue(v, metrics)]));
  const list = Object.freeze([...byId.values()]);
  return {
    venues: () => list,
    venue(id) {
      const v = byId.get(id);
      // A venue the market did not list at start is asked without being counted.
      return v ?? market.venue(id);
    },
    usdPrice: (asset) => market.usdPrice(asset),
  };
}

/** A router whose routings are timed: one per quote (exact input), one per exact-output search. */
export function instrumentRouter(router: Router, metrics: Metrics): Router {
  async function timed<R extends { best: unknown }>(search: 'exact_input' | 'exact_output', run: () => Promise<R>): Promise<R> {
    const t0 = performance.now();
    let outcome = 'error';
    try {
      const result = await run();
      outcome = result.best === null ? 'none' : 'quoted';
      return result;
    } finally {
      metrics.quoteDuration.observe({ search, outcome }, secondsSince(t0));
    }
  }
  return {
    route: (req) => timed('exact_input', () => router.route(req)),
    routeBest: (req) => timed('exact_input', () => router.routeBest(req)),
    exactOutput: (req) => timed('exact_output', () => router.exactOutput(req)),
  };
}
