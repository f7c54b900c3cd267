// Public names of Family C: the app factory and its OpenAPI document.
export { createAppC, type FamilyCDeps } from './app.js';
export { familyCOpenApi, FAMILY_C_VERSION } from './openapi.js';
