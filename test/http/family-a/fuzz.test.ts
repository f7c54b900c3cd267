// Property: whatever JSON arrives at POST /quote, the edge answers 200, 400 or 422 (never 500), the body is
// valid against the served document (checked by the harness), and a 400 never reached the bus (nothing stored).
// The same for POST /order: 201, 400, 409 or 410, and a 400 never binds a quote or creates an order.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuoteRefused } from '../../../src/errors.js';
import { VENUE_IDS } from '../../../src/venues/types.js';
import { ADDR, OrderWorld } from './order-world.js';
import { cannedQuote, requestOf, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Some amounts are refused, so 422 bodies are fuzzed too.
  h.bus.answer = (ref, message) => {
    const request = requestOf(message);
    if (request.amountIn % 7n === 0n) {
      throw new QuoteRefused('No venue could quote the pair and amount.', { audit: null });
    }
    return cannedQuote(ref.id, request);
  };
});
afterAll(async () => h.close());

async function answersWithinContract(body: unknown): Promise<void> {
  h.bus.calls.length = 0;
  const res = await h.post(body);
  expect([200, 400, 422], `${JSON.stringify(body)} → ${res.status} ${res.text}`).toContain(res.status);
  expect(h.bus.calls).toHaveLength(res.status === 400 ? 0 : 1);
}

/** Asset names of distinct assets, in the spellings the spec allows. */
const ASSETS = ['base.usdc', 'arbitrum.USDC', 'ethereum.eth', 'bitcoin.btc', 'hyperliquid.hype', 'ink.usdt0', 'BASE.cbBTC', 'evm:42161.0x82af49447d8a07e3bd95bd0d56f35241523fbab1'];
const validPair = fc.tuple(fc.nat(ASSETS.length - 1), fc.nat(ASSETS.length - 2)).map(([i, j]) => {
  const from = ASSETS[i]!;
  const rest = ASSETS.filter((_, k) => k !== i);
  return { from, to: rest[j]! };
});
/** A body every rule accepts (amounts have at most 6 decimals, the fewest of any asset). */
const validBodies = fc
  .record({
    pair: validPair,
    format: fc.constantFrom('raw', 'formatted', undefined),
    rawAmount: fc.bigInt(1n, 10n ** 30n),
    units: fc.nat(1_000_000),
    cents: fc.option(fc.stringMatching(/^[0-9]{1,6}$/)),
    return_full_route: fc.boolean(),
    quote_mode: fc.constantFrom('fast', 'optimal', undefined),
    include_candidates: fc.constantFrom(true, false, undefined),
    lists: fc.oneof(
      fc.constant({}),
      fc.record({ venue_allowlist: fc.uniqueArray(fc.constantFrom(...VENUE_IDS), { maxLength: 4 }) }),
      fc.record({ venue_blocklist: fc.uniqueArray(fc.constantFrom(...VENUE_IDS), { maxLength: 4 }), venue_allowlist: fc.constant([]) }),
    ),
  })
  .filter((b) => b.format === 'raw' || b.units > 0 || (b.cents !== null && /[1-9]/.test(b.cents)))
  .map((b) => {
    const body: Record<string, unknown> = {
      ...b.pair,
      from_amount: b.format === 'raw' ? String(b.rawAmount) : `${b.units}${b.cents === null ? '' : `.${b.cents}`}`,
      return_full_route: b.return_full_route,
      format: b.format,
      quote_mode: b.quote_mode,
      include_candidates: b.include_candidates,
      ...b.lists,
    };
    for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
    return body;
  });

const FIELDS = ['from', 'to', 'from_amount', 'return_full_route', 'format', 'quote_mode', 'include_candidates', 'venue_allowlist', 'venue_blocklist'];
/** Values that are wrong in interesting ways for some field, and anything at all. */
const wrongish = fc.oneof(
  fc.constantFrom(
    'base.usdc', 'base.nosuch', 'mars.usdc', 'evm:999999.usdc', '', '.', 'base.', 'base.usdc.usdc', '0', '-1', '1e3', '0x10', ' 1', '1.',
    '.5', '1.0000001', '1000', 'raw', 'RAW', 'fast', 'slow', true, false, null, [], ['relay'], ['relay', 'relay'], ['uniswap'], {},
  ),
  fc.stringMatching(/^[0-9]{1,30}(\.[0-9]{1,20})?$/),
  fc.jsonValue(),
);
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), field: fc.constantFrom(...FIELDS), value: wrongish }),
  fc.record({ kind: fc.constant('remove' as const), field: fc.constantFrom(...FIELDS) }),
  fc.record({ kind: fc.constant('add' as const), field: fc.string({ minLength: 1 }), value: fc.jsonValue() }),
);
const mutated = fc.tuple(validBodies, fc.array(mutation, { maxLength: 3 })).map(([valid, mutations]) => {
  const body: Record<string, unknown> = { ...valid };
  for (const m of mutations) {
    if (m.kind === 'remove') delete body[m.field];
    else body[m.field] = m.value;
  }
  return body;
});

describe('POST /quote under arbitrary input: "never 500; 400 is refused before anything is stored"', () => {
  it('any JSON value', async () => {
    await fc.assert(fc.asyncProperty(fc.jsonValue(), answersWithinContract), { numRuns: 150 });
  });
  it('any body every rule accepts is quoted (200) or refused by the core (422), never a 400', async () => {
    await fc.assert(
      fc.asyncProperty(validBodies, async (body) => {
        await answersWithinContract(body);
        expect(h.bus.calls, JSON.stringify(body)).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });
  it('any object', async () => {
    await fc.assert(fc.asyncProperty(fc.object(), answersWithinContract), { numRuns: 150 });
  });
  it('a valid body with fields replaced, retyped, removed or added', async () => {
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(mutated, async (body) => {
        await answersWithinContract(body);
        if (h.bus.calls.length === 1) ok++;
      }),
      { numRuns: 600 },
    );
    // The generator must reach the bus often enough for the 200/422 bodies to be exercised.
    expect(ok).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// POST /order

describe('POST /order under arbitrary input: "never 500; a 400 binds no quote and creates no order"', () => {
  let ho: Harness;
  const world = new OrderWorld();
  // Quotes of every kind of chain pair, one already expired and one refused; the fresh ones stay fresh (the clock
  // does not move), so the first accepted body binds each and later bodies with other addresses get 409.
  const fresh = [
    world.addQuote(),
    world.addQuote({ to: 'bitcoin.btc' }),
    world.addQuote({ from: 'bitcoin.btc', to: 'base.usdc', from_amount: '0.5' }),
    world.addQuote({ from: 'hyperliquid.hype', to: 'ethereum.eth', from_amount: '12.5' }),
  ].map((q) => q.id);
  const expired = world.addQuote({}, { expiresAt: world.clock.now() - 1 }).id;
  const refused = world.addRefused();

  beforeAll(async () => {
    ho = await startHarness();
    ho.bus.answer = world.answer;
  });
  afterAll(async () => ho.close());

  async function orderWithinContract(body: unknown): Promise<number> {
    ho.bus.calls.length = 0;
    const res = await ho.postOrder(body);
    expect([201, 400, 409, 410], `${JSON.stringify(body)} → ${res.status} ${res.text}`).toContain(res.status);
    const commits = ho.bus.calls.filter((c) => c.message.type === 'quote.bind' || c.message.type === 'order.create');
    if (res.status === 400) expect(commits, JSON.stringify(body)).toEqual([]);
    if (res.status === 201) {
      expect(commits.map((c) => c.message.type)).toEqual(['quote.bind', 'order.create']);
      expect(world.orders.get(res.body.id)?.quoteId).toBe(res.body.quote_id);
    }
    // One quote, at most one order, and every binding has its order.
    for (const [quoteId, entry] of world.quotes) {
      expect(world.ordersOf(quoteId).length).toBeLessThanOrEqual(1);
      if (entry.binding) expect(world.orders.has(entry.binding.orderId)).toBe(true);
    }
    return res.status;
  }

  const spelled = (id: string) => fc.constantFrom(id, id.toUpperCase(), `urn:uuid:${id}`);
  const quoteIds = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fresh).chain(spelled) },
    { weight: 2, arbitrary: fc.constant(expired) },
    { weight: 1, arbitrary: fc.constant(refused) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.jsonValue()) },
  );
  const addresses = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...Object.values(ADDR), ADDR.evm.toLowerCase(), ADDR.evmOther.toLowerCase(), ADDR.btc.toUpperCase()) },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.stringMatching(/^0x[0-9a-fA-F]{38,42}$/) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
  const bodies = fc
    .record({
      quote_id: quoteIds,
      to_address: addresses,
      refund_address: fc.oneof(fc.constant(undefined), fc.constant(null), addresses),
      // Now and then a property not allowed, or a required one missing.
      extra: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1 }), fc.jsonValue()) }),
      drop: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('quote_id', 'to_address') }),
    })
    .map(({ extra, drop, ...fields }) => {
      const body: Record<string, unknown> = { ...fields };
      if (body.refund_address === undefined) delete body.refund_address;
      if (extra) body[extra[0]] = extra[1];
      if (drop) delete body[drop];
      return body;
    });

  it('any JSON value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        await orderWithinContract(body);
      }),
      { numRuns: 100 },
    );
  });
  it('bodies near the contract: known, expired, refused and unknown quotes; valid, misspelt and foreign addresses', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        seen.add(await orderWithinContract(body));
      }),
      { numRuns: 500 },
    );
    // The generator must reach every answer of the endpoint, or the property proves less than it says.
    expect([...seen].sort()).toEqual([201, 400, 409, 410]);
  });
});
