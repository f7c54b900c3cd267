// The OpenAPI 3.1 document of Family C, served at GET /openapi.json.
export const FAMILY_C_VERSION = '1.0.0';

export function familyCOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Swap router, Family C (typed currencies)', version: FAMILY_C_VERSION },
    paths: {},
  };
}
