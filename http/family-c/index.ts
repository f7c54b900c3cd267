// Public names of Family C: the app factory, its OpenAPI document, and the wire types clients and tests read.
export { createAppC, CURSOR_KEY_LABEL, type FamilyCDeps } from './app.js';
export { familyCOpenApi, FAMILY_C_VERSION } from './openapi.js';
export { parseCurrency, renderCurrency } from './currency.js';
export { feeParts, renderFees, type FeeParts } from './fees.js';
export { renderCQuote, renderListItem } from './render.js';
export { C_QUOTE_MODE, toCQuoteRequest } from './quote.js';
export { DEFAULT_PAGE, MAX_PAGE, ORDERS_QUERY_PARAMS, addressFilter, toOrdersAsk } from './orders.js';
export { FAMILY_C_SCHEMAS, C_SCHEMA_NAMES } from './schemas.js';
export type * from './wire.js';
