// Public names of the venues module: the Venue port, the simulated market and its catalog, example pairs.
export type { Execution, Market, Venue, VenueExecuteRequest, VenueExecution, VenueId, VenueQuote, VenueQuoteRequest } from './types.js';
export { VENUE_IDS } from './types.js';
export { createSimMarket, type SimMarket, type SimMarketOptions } from './sim-market.js';
export type { FillRecord, VenueBehaviour } from './sim-venue.js';
export { VENUE_SPECS, type VenueKind, type VenueSpec } from './catalog.js';
export { REFERENCE_USD_PRICES, USD_DECIMALS, USD_ONE } from './prices.js';
export { EXAMPLE_PAIRS, type ExamplePair } from './examples.js';
