// The served document of Family B is self-consistent: every example validates against the schema beside it, every
// operation documents its errors with the envelope, and the status enum is the status table's.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B_ORDER_STATUSES } from '../../../http/family-b/index.js';
import { startB, type HarnessB } from './support.js';

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

let h: HarnessB;
let doc: any;
beforeAll(async () => {
  h = await startB();
  doc = (await h.call('/openapi.json')).body;
});
afterAll(() => h.close());

/** Every `{schema, example}` pair under `node`, with its JSON pointer. */
function examples(node: unknown, pointer: string, out: Array<{ pointer: string; example: unknown }>): typeof out {
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if ('schema' in o && 'example' in o) out.push({ pointer: `${pointer}/schema`, example: o.example });
    for (const [k, v] of Object.entries(o)) examples(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

describe('GET /openapi.json: every example validates against its schema', () => {
  it('examples of requests and answers', () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, discriminator: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'urn:test:family-b');
    const found = examples(doc.paths, '#/paths', []);
    expect(found.length).toBeGreaterThan(8);
    for (const { pointer, example } of found) {
      const v = ajv.compile({ $ref: `urn:test:family-b${pointer}` });
      expect(v(example), `${pointer}: ${JSON.stringify(v.errors)}`).toBe(true);
    }
  });
  it('every JSON operation documents 400/404/500/503 with the Error envelope, and the status enum is the table\'s', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const status of ['404', '500', '503']) expect(op.responses[status]?.content['application/json'].schema.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/Error');
        if (method === 'post') expect(op.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
    }
    expect(doc.components.schemas.OrderStatus.enum).toEqual([...B_ORDER_STATUSES]);
  });
});
