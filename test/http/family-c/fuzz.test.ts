// Property: whatever arrives at Family C (any JSON value or raw bytes on the POST endpoints, any query on GET
// /orders), the answer is documented, valid against the served document and, when not 2xx, the `{error: {code,
// message, details}}` envelope (both checked by the harness), and never a 5xx.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyJson, near } from '../../support/fuzz-bodies.js';
import { CUR, orderBody, quoteBody, quoted, startC, type HarnessC } from './support.js';

let h: HarnessC;
beforeAll(async () => {
  h = await startC();
});
afterAll(() => h.close());

const json = anyJson;

/** Currencies near the valid ones: a known currency with its chain or token (or a field of them) replaced. */
const currency = fc.oneof(
  fc.constantFrom(...Object.values(CUR)),
  fc.record({
    chain: fc.oneof(fc.record({ kind: fc.constantFrom('EVM', 'BITCOIN', 'HYPERCORE', 'evm', 'SOLANA') }), fc.record({ kind: fc.constant('EVM'), chainId: fc.oneof(fc.integer(), fc.constantFrom(1, 8453, 42161)) }), json),
    token: fc.oneof(
      fc.record({ kind: fc.constantFrom('NATIVE', 'TOKEN'), decimals: fc.oneof(fc.integer({ min: -1, max: 300 }), fc.constantFrom(6, 8, 18)) }),
      fc.record({ kind: fc.constant('TOKEN'), address: fc.oneof(fc.string(), fc.constant(CUR.arbUsdc.token.address)), decimals: fc.integer({ min: 0, max: 20 }) }),
      json,
    ),
  }),
);

async function within(path: string, body: unknown, allowed: number[]): Promise<void> {
  const r = await h.call(path, { method: 'POST', json: body });
  expect(allowed, `${path} ${JSON.stringify(body)} → ${r.status} ${r.text}`).toContain(r.status);
}

describe('Every input answers within the contract, non-2xx always in the envelope, never a 5xx', () => {
  it('POST /quote: bodies near a valid one', async () => {
    await fc.assert(fc.asyncProperty(near(quoteBody()), (b) => within('/quote', b, [200, 400, 422])), { numRuns: 250 });
  });
  it('POST /quote: any currencies, types, amounts and slippage', async () => {
    const body = fc.record({
      type: fc.constantFrom('EXACT_INPUT', 'EXACT_OUTPUT', 'exact_input'),
      from: currency,
      to: currency,
      amount: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 260n }).map(String), fc.string({ maxLength: 8 })),
      slippageBps: fc.oneof(fc.integer({ min: -10, max: 10_010 }), fc.double()),
    });
    await fc.assert(fc.asyncProperty(body, (b) => within('/quote', b, [200, 400, 422])), { numRuns: 250 });
  });
  it('POST /order/market: bodies near a valid one', async () => {
    const q = await quoted(h);
    const base = orderBody(q.id, { integratorName: 'fuzz', approvalMode: 'partial' });
    await fc.assert(fc.asyncProperty(near(base), (b) => within('/order/market', b, [200, 201, 400, 404, 409])), { numRuns: 250 });
  });
  it('GET /orders: any query', async () => {
    const names = fc.oneof(fc.constantFrom('sender', 'destination', 'refund', 'orderType', 'status', 'limit', 'cursor'), fc.string({ maxLength: 8 }));
    const values = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('market', 'limit', 'settled', '0', '101', '-1', CUR.arbUsdc.token.address, 'AAAA'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, values), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const r = await h.orders(query === '' ? '' : `?${query}`);
        expect([200, 400], `?${query} → ${r.status} ${r.text}`).toContain(r.status);
      }),
      { numRuns: 250 },
    );
  });
  it('raw bytes with any content type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), fc.constantFrom('application/json', 'text/plain', 'application/x+json; charset=latin1', ''), async (bytes, type) => {
        const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
        const r = await h.call('/quote', { method: 'POST', body: bytes, headers });
        expect([400, 415]).toContain(r.status);
      }),
      { numRuns: 100 },
    );
  });
});
