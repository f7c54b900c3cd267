// Public names of Family A: the app factory, its OpenAPI document, the schemas and the renderers.
export { createApp, type FamilyADeps } from './app.js';
export { familyAOpenApi, FAMILY_A_VERSION } from './openapi.js';
export { FAMILY_A_SCHEMAS, ORDER_ID_PARAMETER_SCHEMA, SCHEMA_NAMES, type JsonSchema, type SchemaName } from './schemas.js';
export { compileSchema, createFamilyAAjv } from './validate.js';
export { STATUS_BY_CODE, errorReply, statusOf } from './errors.js';
export { renderOrder, renderQuote, renderRefusal, renderAudit, renderStep, renderPricedRoute, type RenderContext } from './render.js';
export { toQuoteRequest } from './quote.js';
export { canonicalUuid } from './order.js';
export type * from './wire.js';
