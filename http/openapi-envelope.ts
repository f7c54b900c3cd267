// OpenAPI pieces of the families whose errors are the `{error: {code, message, details}}` envelope (B and C): a JSON
// answer with the request-id header, the envelope's example, and the failures every operation or body can meet.
import type { JsonSchema } from './json-schema.js';

export const REQUEST_ID_HEADER = { $ref: '#/components/headers/XRequestId' };
export const REQUEST_ID_PARAM = { $ref: '#/components/parameters/XRequestId' };
const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };

/** A JSON answer of `schema` (a `$ref`), with the request-id header and an example when given. */
export function jsonAnswer(description: string, schema: JsonSchema, example?: unknown): JsonSchema {
  return {
    description,
    headers: { 'X-Request-Id': REQUEST_ID_HEADER },
    content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
  };
}

export const envelopeExample = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, details } });

/** An `invalid_request` naming the field, as the error table writes it. */
export const issueExample = (path: string, message: string) => envelopeExample('invalid_request', message, { issues: [{ path, message }] });

const errorAnswer = (description: string, example?: unknown) => jsonAnswer(description, ERROR_SCHEMA, example);

/** What any operation can answer besides its own: no such path, another method, our failure, a moment's outage. */
export const COMMON_ERROR_ANSWERS: Readonly<Record<string, JsonSchema>> = {
  '404': errorAnswer('No such path (`not_found`).', envelopeExample('not_found', 'No resource at GET /nope.')),
  '405': errorAnswer('The path exists but not with this method (`method_not_allowed`); `Allow` lists the methods.'),
  '429': errorAnswer(
    'Too many requests from this address (`rate_limited`; only when the operator sets a rate limit); retry after `Retry-After` seconds.',
    envelopeExample('rate_limited', 'Too many requests from this address; retry in 1 s.'),
  ),
  '500': errorAnswer(
    'Something failed (`internal`); `details.requestId` is the id to report. Never a stack.',
    envelopeExample('internal', 'Something failed on our side (request id 3f2c…).', { requestId: '3f2c…' }),
  ),
  '503': errorAnswer('Unavailable for a moment, or answering as many quotes as it can (`unavailable`); retry after `Retry-After` seconds.'),
};

/** What an operation with a JSON body can answer about the body: 400 (with the family's own example), 413, 415. */
export function bodyErrorAnswers(description400: string, example400: unknown): Record<string, JsonSchema> {
  return {
    '400': errorAnswer(description400, example400),
    '413': errorAnswer('The body is larger than 16 KiB (`payload_too_large`).', envelopeExample('payload_too_large', 'The request body is larger than 16384 bytes.')),
    '415': errorAnswer('The body is not `application/json` in utf-8 (`unsupported_media_type`).'),
  };
}
