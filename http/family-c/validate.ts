// The ajv instance of Family C, compiled once from the same components the OpenAPI document serves, and ajv errors
// as one sentence naming the field (the `issues` of a 400 `invalid_request`), worded as Family B words them.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { InvalidRequest } from '../../src/errors.js';
import { toInvalidRequest as toInvalidRequestB } from '../family-b/validate.js';
import { FAMILY_C_SCHEMAS, type CSchemaName } from './schemas.js';
import type { WireCOrderRequest, WireCQuoteRequest } from './wire.js';

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

const DOCUMENT_ID = 'urn:swap-router:family-c';

export function createFamilyCAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true, allErrors: false, verbose: true });
  addFormats(ajv, ['uuid', 'date-time']);
  ajv.addKeyword({ keyword: 'components', schemaType: 'object' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: FAMILY_C_SCHEMAS } });
  return ajv;
}

const ajv = createFamilyCAjv();
const compile = (name: CSchemaName): ValidateFunction => ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });
const validators = { QuoteRequest: compile('QuoteRequest'), OrderRequest: compile('OrderRequest') };

/** Throws InvalidRequest naming the first field of `body` that breaks the schema `name`. */
/** The wire type each request schema admits (wire.ts mirrors schemas.ts; the tests keep them in step). */
interface RequestShapes {
  QuoteRequest: WireCQuoteRequest;
  OrderRequest: WireCOrderRequest;
}

export function assertShape<N extends keyof RequestShapes & keyof typeof validators>(name: N, body: unknown): asserts body is RequestShapes[N] {
  const v = validators[name];
  if (v(body)) return;
  const first = v.errors?.[0];
  throw first ? toInvalidRequest(first) : new InvalidRequest('The request body is not valid.');
}

/** Family B's sentences, plus the keywords only C's schemas use (upper bounds, tags of typed currencies). */
export function toInvalidRequest(err: ErrorObject): InvalidRequest {
  const path = err.instancePath.slice(1).split('/').filter(Boolean).join('.');
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'maximum':
      return new InvalidRequest(`\`${path}\` must be at most ${String(p.limit)}.`, path);
    case 'discriminator': {
      const field = path === '' ? String(p.tag) : `${path}.${String(p.tag)}`;
      return p.error === 'mapping'
        ? new InvalidRequest(`\`${field}\` is not one of the accepted kinds.`, field)
        : new InvalidRequest(`\`${field}\` is required and must be a string.`, field);
    }
    default:
      return toInvalidRequestB(err);
  }
}
