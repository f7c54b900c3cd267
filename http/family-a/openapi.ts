// The OpenAPI 3.1 document of Family A (spec 9: version 0.2.47), served at GET /openapi.json. Its schemas are the
// very objects ajv validates requests with (schemas.ts), so what is published is what is enforced.
import { healthAndOpenApiPaths } from '../json-schema.js';
import { FAMILY_A_SCHEMAS, ORDER_ID_PARAMETER_SCHEMA, ref, type JsonSchema, type SchemaName } from './schemas.js';

export const FAMILY_A_VERSION = '0.2.47';

const requestIdHeader = { $ref: '#/components/headers/XRequestId' };

function json(description: string, schema: SchemaName): JsonSchema {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader },
    content: { 'application/json': { schema: ref(schema) } },
  };
}

/** Statuses every JSON endpoint can answer besides its own (spec 7: every non-success is the `{error}` envelope). */
const commonErrors: Record<string, JsonSchema> = {
  '404': json('No such path.', 'Error'),
  '405': json('The path exists but not with this method; `Allow` lists the methods it has.', 'Error'),
  '429': json('Too many requests from this address (only when the operator sets a rate limit); retry after `Retry-After` seconds.', 'Error'),
  '500': json('Something failed; the body gives the request id to report.', 'Error'),
  '503': json('The service is unavailable for a moment, or answering as many quotes as it can; retry after `Retry-After` seconds.', 'Error'),
};

export function familyAOpenApi(): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Swap router: Family A',
      version: FAMILY_A_VERSION,
      description:
        'Cross-chain swap quotes (snake_case family). Every answer carries `X-Request-Id` (the caller\'s when it is ' +
        '1–128 characters of [A-Za-z0-9._:-], else a fresh uuid). Request bodies are `application/json` in utf-8.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:8080' } } }],
    paths: {
      '/quote': {
        post: {
          operationId: 'createQuote',
          summary: 'Creates a quote, the best route across admitted venues.',
          parameters: [{ $ref: '#/components/parameters/XRequestId' }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('QuoteRequest') } } },
          responses: {
            '200': json('The quote.', 'Quote'),
            '400': json('Malformed request, unknown asset, same asset on both sides, invalid amount, or both venue lists set.', 'Error'),
            '413': json('The request body is larger than the configured limit.', 'Error'),
            '415': json('The body is not `application/json` in utf-8, or is compressed.', 'Error'),
            '422': json('No venue could quote the pair and amount.', 'QuoteRefusal'),
            ...commonErrors,
          },
        },
      },
      '/order': {
        post: {
          operationId: 'createOrder',
          summary: 'Binds a quote to a fresh deposit address: one quote, one order.',
          description:
            'Repeating the call with the same `quote_id` and the same addresses (compared once normalised, `refund_address` ' +
            'absent = null) answers 201 with the order already created, in its current status. Other addresses for a quote ' +
            'already used → 409. Checks run in this order: body, unknown quote (400; also a quote made through the typed-currency API, ' +
            'whose slippageBps and exact output this API cannot honour), addresses (400), expiry (410) or binding (409).',
          parameters: [{ $ref: '#/components/parameters/XRequestId' }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('OrderRequest') } } },
          responses: {
            '201': {
              ...json('The order (status `awaiting_deposit` when new); also the answer to a repeat with the same addresses.', 'Order'),
              headers: {
                'X-Request-Id': requestIdHeader,
                Location: { description: 'Path of the order: `/order/{id}`.', schema: { type: 'string' } },
              },
            },
            '400': json(
              'Malformed request, unknown quote, `to_address` not valid for the destination chain, or `refund_address` not valid for the source chain.',
              'Error',
            ),
            '409': json('The quote is already bound to another order (including the same quote with changed addresses).', 'Error'),
            '410': json('The quote has expired.', 'Error'),
            '413': json('The request body is larger than the configured limit.', 'Error'),
            '415': json('The body is not `application/json` in utf-8, or is compressed.', 'Error'),
            ...commonErrors,
          },
        },
      },
      '/order/{id}': {
        get: {
          operationId: 'getOrder',
          summary: 'The order with its current status; poll it every few seconds until `delivered` or `expired`.',
          parameters: [
            { $ref: '#/components/parameters/XRequestId' },
            { name: 'id', in: 'path', required: true, description: 'Order id.', schema: ORDER_ID_PARAMETER_SCHEMA },
          ],
          responses: {
            '200': json('The order with its current `status`.', 'Order'),
            '400': json('`id` is not a uuid.', 'Error'),
            ...commonErrors,
            '404': json('No such order.', 'Error'),
          },
        },
      },
      ...healthAndOpenApiPaths('Family A', requestIdHeader, commonErrors),
    },
    components: {
      schemas: FAMILY_A_SCHEMAS,
      headers: {
        XRequestId: {
          description: 'The request id, also on every log line of the request.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
        },
      },
      parameters: {
        XRequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Kept when it is 1–128 characters of [A-Za-z0-9._:-]; otherwise replaced by a fresh uuid.',
          schema: { type: 'string' },
        },
      },
    },
  };
}
