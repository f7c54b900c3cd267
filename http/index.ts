// Public names of the HTTP edge: one Koa app per family (A, B and C) and the pieces they share.
export { createApp, createApp as createFamilyAApp, familyAOpenApi, FAMILY_A_VERSION, type FamilyADeps } from './family-a/index.js';
export {
  createAppB, familyBOpenApi, FAMILY_B_VERSION, GatewaySecret, loadOrCreateGatewaySecret, CANCEL_DOMAIN, CANCEL_TYPES, type FamilyBDeps,
} from './family-b/index.js';
export { createAppC, familyCOpenApi, FAMILY_C_VERSION, type FamilyCDeps } from './family-c/index.js';
export { HttpError } from './http-error.js';
export { REQUEST_ID_HEADER, acceptRequestId } from './request-id.js';
export { createDevApp, type DevDeps } from './dev/app.js';
export { createIssuedQuotes, ISSUED_QUOTES_MAX, type IssuedQuotes } from './issued-quotes.js';
export { createEdgeGuard, UNGUARDED, type EdgeGuard, type EdgeGuardHooks, type EdgeGuardOptions, type RateLimit, type RefusalReason } from './overload.js';
