// Property: whatever arrives at Family B (any JSON value or raw bytes, on every endpoint), the answer is documented,
// valid against the served document (checked by the harness, which also asserts that every non-2xx is the
// `{error: {code, message, details}}` envelope), and never a 500; a 400 never changed anything (reads only: the quote
// must be read to know which chains the addresses are on).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { near } from '../../support/fuzz-bodies.js';
import { EVM, quoteBody, quoted, startB, type HarnessB } from './support.js';

let h: HarnessB;
let orderId: string;
beforeAll(async () => {
  h = await startB();
  const q = await quoted(h);
  const o = await h.order({ quoteId: q.quoteId, fromAddress: EVM, toAddress: EVM, refundMode: 'token' });
  orderId = o.body.orderId as string;
});
afterAll(() => h.close());


async function within(path: string, body: unknown, allowed: number[]): Promise<void> {
  h.bus.calls.length = 0;
  const r = await h.call(path, { method: 'POST', json: body });
  expect(allowed, `${path} ${JSON.stringify(body)} → ${r.status} ${r.text}`).toContain(r.status);
  if (r.status === 400) expect(h.bus.calls.filter((c) => !['quote.get', 'order.get'].includes(c.message.type))).toHaveLength(0);
}

describe('Every input answers within the contract, non-2xx always in the envelope', () => {
  it('POST /quote', async () => {
    await fc.assert(fc.asyncProperty(near(quoteBody({ amountFormat: 'readable', orderType: 'market', returnFullRoute: true, includeQuoteCandidates: false })), (b) => within('/quote', b, [200, 400])), { numRuns: 300 });
  });
  it('POST /order/market', async () => {
    const q = await quoted(h);
    const base = { quoteId: q.quoteId, fromAddress: EVM, toAddress: EVM, refundAuthorizer: EVM, refundMode: 'evmSignature', amountFormat: 'raw', integrator: 'fuzz', idempotencyKey: 'fuzz-key-00000000001' };
    await fc.assert(fc.asyncProperty(near(base), (b) => within('/order/market', b, [200, 201, 400, 404, 409])), { numRuns: 300 });
  });
  it('POST /order/{orderId}/cancel', async () => {
    const base = { refundToken: 'rgt_x', refundSignature: '0xab', refundSignatureDeadline: 1, amountFormat: 'raw' };
    await fc.assert(fc.asyncProperty(near(base), (b) => within(`/order/${orderId}/cancel`, b, [200, 400, 401, 409])), { numRuns: 200 });
  });
  it('raw bytes with any content type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), fc.constantFrom('application/json', 'text/plain', 'application/x+json; charset=latin1', ''), async (bytes, type) => {
        const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
        const r = await h.call('/order/market', { method: 'POST', body: bytes, headers });
        expect([400, 415]).toContain(r.status);
      }),
      { numRuns: 100 },
    );
  });
});
