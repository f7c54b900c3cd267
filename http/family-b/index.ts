// Public names of Family B (the gateway): the app factory, its OpenAPI document, the status table and the secret.
export { createAppB, type FamilyBDeps } from './app.js';
export { familyBOpenApi, FAMILY_B_VERSION } from './openapi.js';
export { FAMILY_B_SCHEMAS, B_SCHEMA_NAMES } from './schemas.js';
export { B_ORDER_STATUSES, bStatusOf, type BOrderStatus } from './statuses.js';
export { B_STATUS_BY_CODE, errorReplyB } from './errors.js';
export { GatewaySecret, loadOrCreateGatewaySecret, SECRET_FILE } from './refund-token.js';
export { CANCEL_DOMAIN, CANCEL_TYPES } from './cancel.js';
export { keyedOrderId } from './order.js';
export { quoteIdFor, orderTypeOf } from './order-type.js';
export { VENUE_EXECUTION_MS, expectedSwapTimeMs } from './swap-time.js';
export type * from './wire.js';
