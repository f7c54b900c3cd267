// The ajv instance of Family B, compiled once from the same components the OpenAPI document serves, and ajv errors
// as one sentence naming the field (the `issues` of a 400 `invalid_request`).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { InvalidRequest } from '../../src/errors.js';
import { FAMILY_B_SCHEMAS, type BSchemaName } from './schemas.js';
import type { WireBCancelRequest, WireBOrderRequest, WireBQuoteRequest } from './wire.js';

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

const DOCUMENT_ID = 'urn:swap-router:family-b';

export function createFamilyBAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true, allErrors: false, verbose: true });
  addFormats(ajv, ['uuid', 'date-time']);
  ajv.addKeyword({ keyword: 'components', schemaType: 'object' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: FAMILY_B_SCHEMAS } });
  return ajv;
}

const ajv = createFamilyBAjv();
const compile = (name: BSchemaName): ValidateFunction => ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });
const validators = { QuoteRequest: compile('QuoteRequest'), OrderRequest: compile('OrderRequest'), CancelRequest: compile('CancelRequest') };
const uuidValidator = ajv.compile<string>({ type: 'string', format: 'uuid' });

/** Throws InvalidRequest naming the first field of `body` that breaks the schema `name`. */
/** The wire type each request schema admits (wire.ts mirrors schemas.ts; the tests keep them in step). */
interface RequestShapes {
  QuoteRequest: WireBQuoteRequest;
  OrderRequest: WireBOrderRequest;
  CancelRequest: WireBCancelRequest;
}

export function assertShape<N extends keyof RequestShapes & keyof typeof validators>(name: N, body: unknown): asserts body is RequestShapes[N] {
  const v = validators[name];
  if (v(body)) return;
  const first = v.errors?.[0];
  throw first ? toInvalidRequest(first) : new InvalidRequest('The request body is not valid.');
}

export function assertUuid(value: string, field: string): void {
  if (!uuidValidator(value)) throw new InvalidRequest(`\`${field}\` must be a uuid.`, field);
}

export function toInvalidRequest(err: ErrorObject): InvalidRequest {
  const path = err.instancePath.slice(1).split('/').filter(Boolean).map(clip).join('.');
  const p = err.params as Record<string, unknown>;
  const field = (name: string) => (path === '' ? name : `${path}.${name}`);
  switch (err.keyword) {
    case 'required':
      return new InvalidRequest(`\`${field(String(p.missingProperty))}\` is required.`, field(String(p.missingProperty)));
    case 'additionalProperties':
      return new InvalidRequest(`Property \`${field(clip(String(p.additionalProperty)))}\` is not allowed.`, field(clip(String(p.additionalProperty))));
    case 'type':
      if (path === '') return new InvalidRequest('The request body must be a JSON object.');
      return new InvalidRequest(`\`${path}\` must be of type ${String(p.type).replace(',', ' or ')}.`, path);
    case 'enum':
      return new InvalidRequest(`\`${path}\` must be one of ${(p.allowedValues as unknown[]).join(', ')}.`, path);
    case 'format':
      return new InvalidRequest(`\`${path}\` must be a ${String(p.format)}.`, path);
    case 'minLength':
      return new InvalidRequest(`\`${path}\` must be at least ${String(p.limit)} characters long.`, path);
    case 'maxLength':
      return new InvalidRequest(`\`${path}\` must be at most ${String(p.limit)} characters long.`, path);
    case 'pattern':
      return new InvalidRequest(`\`${path}\` must match ${String(p.pattern)}.`, path);
    case 'minimum':
      return new InvalidRequest(`\`${path}\` must be at least ${String(p.limit)}.`, path);
    default:
      return new InvalidRequest(`\`${path || 'body'}\` ${err.message ?? 'is invalid'}.`, path);
  }
}

/** A caller-chosen property name goes into the message: short and on one line. */
function clip(name: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = name.replace(/[\u0000-\u001f\u007f`]/g, '?');
  return flat.length > 64 ? `${flat.slice(0, 64)}…` : flat;
}
