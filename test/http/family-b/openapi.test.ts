// The served document of Family B is self-consistent: every example validates against the schema beside it, every
// operation documents its errors with the envelope, and the status enum is the status table's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleVerdicts } from '../../support/openapi-examples.js';
import { B_ORDER_STATUSES } from '../../../http/family-b/index.js';
import { startB, type HarnessB } from './support.js';

let h: HarnessB;
let doc: any;
beforeAll(async () => {
  h = await startB();
  doc = (await h.call('/openapi.json')).body;
});
afterAll(() => h.close());

describe('GET /openapi.json: every example validates against its schema', () => {
  it('examples of requests and answers', () => {
    const verdicts = exampleVerdicts(doc, 'urn:test:family-b');
    expect(verdicts.length).toBeGreaterThan(8);
    for (const { pointer, errors } of verdicts) expect(errors, pointer).toBeNull();
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

describe('Which quote response fields are required', () => {
  it('quoteId, orderType, from, to, expiry, estimatedOut, amountFormat; market_order adds expectedSwapTimeMs, market adds venues ("all required except fees")', () => {
    const variants = doc.components.schemas.Quote.oneOf as Array<{ properties: { orderType: { const: string } }; required: string[] }>;
    const required = Object.fromEntries(variants.map((v) => [v.properties.orderType.const, [...v.required].sort()]));
    const shared = ['quoteId', 'orderType', 'from', 'to', 'expiry', 'estimatedOut', 'amountFormat'];
    expect(required).toEqual({
      market_order: [...shared, 'expectedSwapTimeMs'].sort(),
      market: [...shared, 'venues'].sort(),
    });
  });
});

describe('Which order response fields are required', () => {
  it('the second shape: orderId, orderAddress, amountToSend, quoteId, from, to, status, expiry, expectedOut, maxSlippage; expectedSlippage, minOut, maxIn optional', () => {
    const variants = doc.components.schemas.Order.oneOf as Array<{ properties: { orderType: { const: string } }; required: string[] }>;
    const market = variants.find((v) => v.properties.orderType.const === 'market')!;
    expect(market.required).toEqual(expect.arrayContaining(['orderId', 'orderAddress', 'amountToSend', 'quoteId', 'from', 'to', 'status', 'expiry', 'expectedOut', 'maxSlippage']));
    for (const optional of ['expectedSlippage', 'minOut', 'maxIn']) expect(market.required).not.toContain(optional);
  });
});
