// Checks that a served OpenAPI document's examples validate against the schemas beside them (every family's
// document test uses it, so what a document shows a client is what its schemas accept).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

/** Every `{schema, example}` pair under `node`, with its JSON pointer. */
function examples(node: unknown, pointer: string, out: Array<{ pointer: string; example: unknown }>): typeof out {
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if ('schema' in o && 'example' in o) out.push({ pointer: `${pointer}/schema`, example: o.example });
    for (const [k, v] of Object.entries(o)) examples(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

/** Each example of the document's paths with the validation errors of its schema (null when it validates). */
export function exampleVerdicts(doc: unknown, id: string): Array<{ pointer: string; errors: string | null }> {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, discriminator: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, id);
  return examples((doc as { paths: unknown }).paths, '#/paths', []).map(({ pointer, example }) => {
    const v = ajv.compile({ $ref: `${id}${pointer}` });
    return { pointer, errors: v(example) ? null : JSON.stringify(v.errors) };
  });
}
