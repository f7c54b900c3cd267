// The ajv instance of Family A and the one-sentence wording of its errors. Validators are compiled once, at
// import, from the same components the OpenAPI document serves.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { InvalidRequest } from '../../src/errors.js';
import { FAMILY_A_SCHEMAS, ORDER_ID_PARAMETER_SCHEMA, type SchemaName } from './schemas.js';
import type { WireOrderRequest, WireQuoteRequest } from './wire.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

/** Where the components live for ajv; refs `#/components/schemas/X` resolve against this document. */
const DOCUMENT_ID = 'urn:swap-router:family-a';

export function createFamilyAAjv(): Ajv2020 {
  // strict: a typo in a schema fails at start instead of silently validating nothing.
  // verbose: errors carry their schema, so a wrong type on an enum field can list the allowed values.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true, allErrors: false, verbose: true });
  addFormats(ajv, ['uuid', 'date-time', 'int32']);
  ajv.addFormat('uint64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) && n >= 0 });
  // `components` is OpenAPI's container, not a JSON Schema keyword: declare it so strict mode accepts the document.
  ajv.addKeyword({ keyword: 'components', schemaType: 'object' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: FAMILY_A_SCHEMAS } });
  return ajv;
}

const ajv = createFamilyAAjv();

export function compileSchema<T = unknown>(name: SchemaName): ValidateFunction<T> {
  return ajv.compile<T>({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });
}

const quoteRequestValidator = compileSchema('QuoteRequest');
const orderRequestValidator = compileSchema('OrderRequest');
const orderIdValidator = ajv.compile<string>(ORDER_ID_PARAMETER_SCHEMA);

/** Throws InvalidRequest naming the first field that breaks the POST /quote body schema. */
export function assertQuoteRequestShape(body: unknown): asserts body is WireQuoteRequest {
  assertShape(quoteRequestValidator, body, 'quote request');
}

/** Throws InvalidRequest naming the first field that breaks the POST /order body schema. */
export function assertOrderRequestShape(body: unknown): asserts body is WireOrderRequest {
  assertShape(orderRequestValidator, body, 'order request');
}

/** Throws InvalidRequest unless the `id` path parameter of GET /order/{id} is a uuid. */
export function assertOrderId(id: string): void {
  if (!orderIdValidator(id)) throw new InvalidRequest('`id` must be a uuid.', 'id');
}

function assertShape(validator: ValidateFunction, body: unknown, what: string): asserts body is Record<string, unknown> {
  if (validator(body)) return;
  const first = validator.errors?.[0];
  throw first ? toInvalidRequest(first) : new InvalidRequest(`The request body is not a valid ${what}.`);
}

/** One ajv error as one sentence that names the field and the rule it breaks. */
export function toInvalidRequest(err: ErrorObject): InvalidRequest {
  const path = fieldOf(err.instancePath);
  const at = (name: string) => `\`${path === '' ? name : `${path}.${name}`}\``;
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return new InvalidRequest(`${at(String(p.missingProperty))} is required.`, join(path, String(p.missingProperty)));
    case 'additionalProperties':
      return new InvalidRequest(`Property ${at(clip(String(p.additionalProperty)))} is not allowed.`, path || undefined);
    case 'type': {
      const allowed = (err.parentSchema as { enum?: unknown[] } | undefined)?.enum;
      if (path !== '' && allowed) return new InvalidRequest(`\`${path}\` must be one of ${allowed.join(', ')}.`, path);
      return new InvalidRequest(
        path === '' ? 'The request body must be a JSON object.' : `\`${path}\` must be ${article(String(p.type))}.`,
        path || undefined,
      );
    }
    case 'enum':
      return new InvalidRequest(`\`${path}\` must be one of ${(p.allowedValues as unknown[]).join(', ')}.`, path);
    case 'uniqueItems':
      return new InvalidRequest(`\`${path}\` must not list the same item twice.`, path);
    case 'format':
      return new InvalidRequest(`\`${path}\` must be ${article(String(p.format))}.`, path);
    default:
      // Not reachable with the request schema today; still one sentence naming the field.
      return new InvalidRequest(`\`${path || 'body'}\` ${err.message ?? 'is invalid'}.`, path || undefined);
  }
}

/** `/venue_allowlist/0` → `venue_allowlist[0]`; the body itself is ''. */
function fieldOf(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : `${i === 0 ? '' : '.'}${clip(seg)}`))
    .join('');
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function article(type: string): string {
  const names: Record<string, string> = {
    uuid: 'a uuid', string: 'a string', boolean: 'a boolean', array: 'an array', object: 'an object', integer: 'an integer', number: 'a number', null: 'null',
  };
  return type.split(',').map((t) => names[t] ?? t).join(' or ');
}

/** A caller-chosen property name goes into the message: keep it short and on one line. */
function clip(name: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = name.replace(/[\u0000-\u001f\u007f`]/g, '?');
  return flat.length > 64 ? `${flat.slice(0, 64)}…` : flat;
}
