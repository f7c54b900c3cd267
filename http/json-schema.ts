// What the families' JSON Schemas and OpenAPI documents share: the schema type, objects discriminated by a tag
// (OpenAPI `discriminator` over a closed `oneOf`), and the paths every family serves (`/health`, `/openapi.json`).

export type JsonSchema = { [keyword: string]: unknown };

/**
 * A closed object discriminated by one property: each variant lists the shared properties plus its own, so
 * `additionalProperties: false` holds per variant (it cannot see through oneOf) and ajv's `discriminator` picks
 * the branch, which also makes its error name the right field.
 */
export function discriminated(
  tag: string,
  shared: Record<string, JsonSchema>,
  sharedRequired: string[],
  variants: Record<string, { properties?: Record<string, JsonSchema>; required?: string[]; description: string }>,
  description: string,
): JsonSchema {
  return {
    type: 'object',
    description,
    properties: { [tag]: { type: 'string', enum: Object.keys(variants) } },
    required: [tag],
    discriminator: { propertyName: tag },
    oneOf: Object.entries(variants).map(([value, v]) => ({
      type: 'object',
      description: v.description,
      properties: { ...shared, [tag]: { const: value }, ...v.properties },
      required: [...sharedRequired, tag, ...(v.required ?? [])],
      additionalProperties: false,
    })),
  };
}

/** The `/health` and `/openapi.json` path items of a family's document. */
export function healthAndOpenApiPaths(family: string, requestIdHeader: JsonSchema, commonErrors: Record<string, unknown>): Record<string, unknown> {
  // `/health` is never rate limited (a liveness probe must not be refused for the caller's other traffic).
  const { '429': _rateLimited, ...healthErrors } = commonErrors;
  const ok = (description: string, type: string, schema: JsonSchema) => ({
    description,
    headers: { 'X-Request-Id': requestIdHeader },
    content: { [type]: { schema } },
  });
  return {
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness.',
        responses: { '200': ok('`ok` while the service is serving.', 'text/plain; charset=utf-8', { type: 'string', const: 'ok' }), ...healthErrors },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document.',
        responses: { '200': ok(`The OpenAPI 3.1 document of ${family}.`, 'application/json', { type: 'object' }), ...commonErrors },
      },
    },
  };
}
