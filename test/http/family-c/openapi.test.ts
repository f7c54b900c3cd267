// The served document of Family C is self-consistent: every example validates against the schema beside it, every
// operation documents its errors with the envelope, and the enums are the core's constants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleVerdicts } from '../../support/openapi-examples.js';
import { LIST_STATUSES, LIST_STATUS_MEANINGS } from '../../../src/orders/summary.js';
import { startC, type HarnessC } from './support.js';

let h: HarnessC;
let doc: any;
beforeAll(async () => {
  h = await startC();
  doc = (await h.call('/openapi.json')).body;
});
afterAll(() => h.close());

describe('GET /openapi.json: the OpenAPI 3.1 document of Family C', () => {
  it('lists every path and the schemas of spec 2.7', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/quote', '/order/market', '/orders', '/health', '/openapi.json']);
    for (const name of ['Currency', 'Quote', 'FeeBreakdown', 'Fee', 'Swap', 'EvmCallStep', 'Eip712SignStep', 'BtcTransferStep', 'OrderListItem', 'OrderList', 'Error']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.components.schemas.FeeBreakdown.properties.rift.required).toEqual(['network', 'liquidity', 'protocol']);
  });
  it('every example validates against its schema', () => {
    const verdicts = exampleVerdicts(doc, 'urn:test:family-c');
    expect(verdicts.length).toBeGreaterThan(8);
    for (const { pointer, errors } of verdicts) expect(errors, pointer).toBeNull();
  });
  it('every JSON operation documents 404/500/503 (and 400 for bodies and queries) with the Error envelope', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const status of ['404', '500', '503']) expect(op.responses[status]?.content['application/json'].schema.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/Error');
        if (method === 'post' || path === '/orders') expect(op.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
    }
  });
  it('the list status enum is the core\'s, each status described with its meaning', () => {
    const s = doc.components.schemas.ListStatus;
    expect(s.enum).toEqual([...LIST_STATUSES]);
    for (const status of LIST_STATUSES) expect(s.description).toContain(LIST_STATUS_MEANINGS[status]);
    const param = doc.paths['/orders'].get.parameters.find((p: any) => p.name === 'status');
    expect(param.schema.$ref).toBe('#/components/schemas/ListStatus');
  });
  it('the USD source of the fees is named', () => {
    expect(doc.components.schemas.FeeBreakdown.description).toMatch(/USD reference prices/);
    expect(doc.info.description).toMatch(/price oracle/);
  });
});

describe('Every answer validates against the served document (checked by the harness on each call)', () => {
  it('health, a routing miss, a wrong method', async () => {
    expect((await h.call('/health')).text).toBe('ok');
    expect((await h.call('/nope')).body.error.code).toBe('not_found');
    const r = await h.call('/orders', { method: 'POST', json: {} });
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
  });
  it('malformed JSON, a wrong content type and an oversized body answer the envelope', async () => {
    expect((await h.call('/quote', { method: 'POST', body: '{"type":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await h.call('/quote', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })).body.error.code).toBe('unsupported_media_type');
    expect((await h.call('/order/market', { method: 'POST', json: { pad: 'x'.repeat(17 * 1024) } })).body.error.code).toBe('payload_too_large');
  });
});
