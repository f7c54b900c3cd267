// POST /order, spec 4 and 7: one quote binds one order; the same quote with the same addresses returns the order
// already created; other addresses 409; unknown quote 400; expired quote 410; `to_address` checked for the
// destination chain and `refund_address` for the source chain. Every answer is checked against the served document.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUOTE_VALIDITY_MS } from '../../../src/quotes/types.js';
import { Unavailable } from '../../../src/errors.js';
import type { OrderView } from '../../../src/orders/types.js';
import { ADDR, DEPOSIT_WINDOW_MS, OrderWorld } from './order-world.js';
import { ARB_USDC, BASE_USDC, BTC, startHarness, validBody, type Answered, type Harness } from './support.js';

let h: Harness;
let world: OrderWorld;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  world = new OrderWorld();
  h.bus.answer = world.answer;
  h.bus.calls.length = 0;
});

const types = () => h.bus.calls.map((c) => c.message.type);
const commits = () => types().filter((t) => t === 'quote.bind' || t === 'order.create');

/** A refusal: 400, one sentence, and nothing was bound or created. */
async function expectRefused(body: unknown, message: string | RegExp): Promise<Answered> {
  const res = await h.postOrder(body);
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatch(/^[^\n]+[.]$/);
  if (typeof message === 'string') expect(res.body.error).toBe(message);
  else expect(res.body.error).toMatch(message);
  expect(commits()).toEqual([]);
  expect(world.orders.size).toBe(0);
  return res;
}

describe('POST /order: "Binds a quote to a fresh deposit address"', () => {
  it('answers 201 with the Order (2.5) in status awaiting_deposit, and its Location', async () => {
    const quote = world.addQuote({ venue_allowlist: ['relay', 'across'] });
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evmOther });
    expect(res.status).toBe(201);
    const o = res.body;
    expect(o.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('location')).toBe(`/order/${o.id}`);
    expect(o.quote_id).toBe(quote.id);
    expect(o.status).toBe('awaiting_deposit');
    expect(o.format).toBe('formatted');
    expect(o.from.toLowerCase()).toBe('base.usdc');
    expect(o.to.toLowerCase()).toBe('arbitrum.usdc');
    expect(o.from_amount).toBe('1000');
    expect(o.to_address).toBe(ADDR.evm);
    expect(o.refund_address).toBe(ADDR.evmOther);
    expect(o.venue_allowlist).toEqual(['relay', 'across']);
    expect(o.venue_blocklist).toEqual([]);
    const stored = world.orders.get(o.id)!;
    expect(o.vault_id).toBe(stored.vaultId);
    expect(o.deposit_address).toBe(stored.depositAddress);
    expect(Date.parse(o.deposit_deadline) - Date.parse(o.created_at)).toBe(DEPOSIT_WINDOW_MS);
    expect('amount_out' in o).toBe(false);
  });

  it('`venue_blocklist` is inherited from the quote (and `venue_allowlist` is then empty)', async () => {
    const quote = world.addQuote({ venue_blocklist: ['mayan', 'okx'] });
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(res.status).toBe(201);
    expect(res.body.venue_blocklist).toEqual(['mayan', 'okx']);
    expect(res.body.venue_allowlist).toEqual([]);
    const read = await h.getOrder(res.body.id);
    expect([read.body.venue_allowlist, read.body.venue_blocklist]).toEqual([[], ['mayan', 'okx']]);
  });

  it('sends quote.get, then quote.order with a fresh order id and normalised addresses (its host: quote.get, quote.bind, then order.create from the quote its actor holds), each with the request id', async () => {
    const quote = world.addQuote();
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm.toLowerCase() }, { 'X-Request-Id': 'rid-order-1' });
    expect(res.status).toBe(201);
    expect(types()).toEqual(['quote.get', 'quote.order', 'quote.get', 'quote.bind', 'order.create']);
    const [get, place, hostGet, bind, create] = h.bus.calls;
    expect(get!.ref).toEqual({ kind: 'quote', id: quote.id });
    expect(place!.ref).toEqual({ kind: 'quote', id: quote.id });
    expect(place!.message).toEqual({ type: 'quote.order', orderId: h.ids.at(-1), toAddress: ADDR.evm, refundAddress: null });
    expect(hostGet).toEqual(get);
    expect(bind!.ref).toEqual({ kind: 'quote', id: quote.id });
    expect(bind!.message).toEqual({ type: 'quote.bind', orderId: h.ids.at(-1), toAddress: ADDR.evm, refundAddress: null });
    expect(create!.ref).toEqual({ kind: 'order', id: h.ids.at(-1) });
    expect(create!.message).toEqual({ type: 'order.create', quote, toAddress: ADDR.evm, refundAddress: null });
    for (const c of h.bus.calls) expect(c.opts?.requestId).toBe('rid-order-1');
    expect(res.body.id).toBe(h.ids.at(-1));
    expect(h.logs.some((l) => l.req_id === 'rid-order-1' && l.msg === 'order created' && l.order_id === res.body.id)).toBe(true);
  });

  it('turns a quote from POST /quote into an order', async () => {
    const q = await h.post(validBody({ to: 'bitcoin.btc', format: 'raw', from_amount: '2500000' }));
    expect(q.status).toBe(200);
    const res = await h.postOrder({ quote_id: q.body.id, to_address: ADDR.btc });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ quote_id: q.body.id, format: 'raw', from: BASE_USDC, to: BTC, from_amount: '2500000', to_address: ADDR.btc });
  });

  it('leaves `refund_address` null when none was given ("the refund goes to the original sender")', async () => {
    const quote = world.addQuote();
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(res.body.refund_address).toBeNull();
    expect(Object.keys(res.body)).toContain('refund_address');
  });
});

describe('Rule 1: "Repeating the call with the same quote_id and the same addresses returns the order already created"', () => {
  it('a repeat answers 201 with the same order, and no second order exists', async () => {
    const quote = world.addQuote();
    const body = { quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evmOther };
    const first = await h.postOrder(body);
    const again = await h.postOrder(body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(`/order/${first.body.id}`);
    expect(world.ordersOf(quote.id)).toHaveLength(1);
    expect(h.logs.some((l) => l.msg === 'order returned again' && l.order_id === first.body.id)).toBe(true);
  });

  it('compares addresses once normalised: other spellings of the same addresses are the same request', async () => {
    const evmQuote = world.addQuote();
    const first = await h.postOrder({ quote_id: evmQuote.id, to_address: ADDR.evm, refund_address: ADDR.evmOther });
    const lower = await h.postOrder({ quote_id: evmQuote.id, to_address: ADDR.evm.toLowerCase(), refund_address: ADDR.evmOther.toUpperCase().replace('0X', '0x') });
    expect(lower.status).toBe(201);
    expect(lower.body.id).toBe(first.body.id);

    const btcQuote = world.addQuote({ from: 'bitcoin.btc', to: 'base.usdc', from_amount: '0.5' });
    const a = await h.postOrder({ quote_id: btcQuote.id, to_address: ADDR.evm, refund_address: ADDR.btc });
    const b = await h.postOrder({ quote_id: btcQuote.id, to_address: ADDR.evm, refund_address: ADDR.btc.toUpperCase() });
    expect(a.body.refund_address).toBe(ADDR.btc);
    expect(b.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
  });

  it('an absent `refund_address` and a null one are the same request', async () => {
    const quote = world.addQuote();
    const first = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    const again = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm, refund_address: null });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  it('any spelling of the quote id (upper case, urn:uuid:) names the same quote', async () => {
    const quote = world.addQuote();
    const first = await h.postOrder({ quote_id: quote.id.toUpperCase(), to_address: ADDR.evm });
    expect(first.status).toBe(201);
    expect(first.body.quote_id).toBe(quote.id);
    const again = await h.postOrder({ quote_id: `urn:uuid:${quote.id}`, to_address: ADDR.evm });
    expect(again.body.id).toBe(first.body.id);
    expect(h.bus.calls.every((c) => c.ref.kind !== 'quote' || c.ref.id === quote.id)).toBe(true);
  });

  it('answers the order as it is now, after it moved on', async () => {
    const quote = world.addQuote();
    const first = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    world.update(first.body.id, { status: 'funded', refundAddress: ADDR.evmOther });
    const again = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'funded', refund_address: ADDR.evmOther });
  });

  it('still answers the order after the quote has expired: a bound quote keeps its order', async () => {
    const quote = world.addQuote();
    const first = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    world.clock.advance(QUOTE_VALIDITY_MS * 3);
    const again = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  it('a repeat completes a creation cut short between binding and creating', async () => {
    const quote = world.addQuote();
    world.failNextCreate = new Unavailable('the order shard is moving');
    const cut = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(cut.status).toBe(503);
    expect(cut.headers.get('retry-after')).toBe('1');
    expect(world.orders.size).toBe(0);
    const boundTo = world.quotes.get(quote.id)!.binding!.orderId;
    const again = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(boundTo);
    expect(world.ordersOf(quote.id).map((o) => o.id)).toEqual([boundTo]);
  });

  it('50 concurrent calls for one quote make exactly one order, and every one answers it', async () => {
    world.jitterMs = 5;
    const quote = world.addQuote();
    const body = { quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evmOther };
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.postOrder(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(world.ordersOf(quote.id)).toHaveLength(1);
    expect(world.orders.has([...ids][0]!)).toBe(true);
    // Every call proposed its own id and raced for the binding: only the first proposal became the order.
    const proposed = h.bus.calls.flatMap((c) => (c.message.type === 'quote.bind' ? [c.message.orderId] : []));
    expect(new Set(proposed).size).toBe(50);
    expect(proposed).toContain([...ids][0]);
  });

  it('50 concurrent calls with two address sets: one set wins every call (201, one order), the other gets 409', async () => {
    world.jitterMs = 5;
    const quote = world.addQuote();
    const bodies = Array.from({ length: 50 }, (_, i) => ({ quote_id: quote.id, to_address: i % 2 === 0 ? ADDR.evm : ADDR.evmOther }));
    const answers = await Promise.all(bodies.map((b) => h.postOrder(b)));
    const winner = world.quotes.get(quote.id)!.binding!.toAddress;
    answers.forEach((a, i) => {
      if (bodies[i]!.to_address === winner) expect(a.status).toBe(201);
      else expect(a.status).toBe(409);
    });
    expect(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id)).size).toBe(1);
    expect(world.ordersOf(quote.id)).toHaveLength(1);
  });
});

describe('Rule 2: "Changing the addresses for a quote already used is rejected (409)"', () => {
  let quoteId: string;
  let original: OrderView;
  beforeEach(async () => {
    quoteId = world.addQuote().id;
    const first = await h.postOrder({ quote_id: quoteId, to_address: ADDR.evm, refund_address: ADDR.evmOther });
    original = world.orders.get(first.body.id)!;
    h.bus.calls.length = 0;
  });
  const expect409 = async (body: Record<string, unknown>) => {
    h.bus.calls.length = 0;
    const res = await h.postOrder({ quote_id: quoteId, ...body });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(`Quote ${quoteId} is already bound to another order with other addresses.`);
    expect(types()).toEqual(['quote.get', 'quote.order', 'quote.get', 'quote.bind']);
    expect(world.ordersOf(quoteId)).toEqual([original]);
  };
  it('another `to_address`', async () => {
    await expect409({ to_address: ADDR.evmOther, refund_address: ADDR.evmOther });
  });
  it('another `refund_address`', async () => {
    await expect409({ to_address: ADDR.evm, refund_address: ADDR.evm });
  });
  it('no `refund_address` where one was given', async () => {
    await expect409({ to_address: ADDR.evm });
    await expect409({ to_address: ADDR.evm, refund_address: null });
  });
});

describe('"400 unknown quote"', () => {
  it('a quote id that was never issued', async () => {
    const unknown = '3f1c2a9e-8d4b-4c3e-9a7f-0123456789ab';
    await expectRefused({ quote_id: unknown, to_address: ADDR.evm }, `\`quote_id\` ${unknown} is not a known quote.`);
    expect(types()).toEqual(['quote.get']);
  });
  it('a quote whose pricing was refused (422) was never issued', async () => {
    const refused = world.addRefused();
    await expectRefused({ quote_id: refused, to_address: ADDR.evm }, /^`quote_id` .* is not a known quote\.$/);
  });
  it('a quote made through the typed-currency API (it carries `slippageBps`), whose bounds this family cannot honour', async () => {
    const quote = world.addQuote();
    quote.request.slippageBps = 100;
    await expectRefused(
      { quote_id: quote.id, to_address: ADDR.evm },
      `\`quote_id\` ${quote.id} is a quote made through the typed-currency API (with \`slippageBps\`), not POST /quote of this one; quote here first.`,
    );
  });
});

describe('A refund that could not be paid is refused at creation (400), before the quote is bound', () => {
  it('a quote whose amount does not exceed what one refund costs on the source chain', async () => {
    const quote = world.addQuote({ from_amount: '0.002' }, { refundCost: 2_000n }); // 0.002 USDC = 2 000 base units
    await expectRefused(
      { quote_id: quote.id, to_address: ADDR.evm },
      `\`quote_id\` ${quote.id} is for 2000 base units, which would not cover the 2000 a refund costs on the source chain; quote a larger amount.`,
    );
    expect(types()).toEqual(['quote.get']);
  });
  it('one base unit above the refund cost is accepted', async () => {
    const quote = world.addQuote({ from_amount: '0.002001' }, { refundCost: 2_000n });
    expect((await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm })).status).toBe(201);
  });
  it('a refund address that is not valid for the source chain is refused before binding', async () => {
    const quote = world.addQuote();
    await expectRefused({ quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.btc }, /^`refund_address` is not a valid address on base: /);
  });
});

describe('"400 `to_address` not valid for the destination chain"', () => {
  it('a Bitcoin address for an EVM destination', async () => {
    const quote = world.addQuote(); // base.USDC → arbitrum.USDC
    await expectRefused(
      { quote_id: quote.id, to_address: ADDR.btc },
      '`to_address` is not a valid address on arbitrum: expected 0x followed by 40 hexadecimal digits.',
    );
  });
  it('an EVM address whose mixed case breaks its EIP-55 checksum', async () => {
    const quote = world.addQuote();
    await expectRefused({ quote_id: quote.id, to_address: ADDR.evmBadChecksum }, /^`to_address` is not a valid address on arbitrum: .*EIP-55 checksum\.$/);
  });
  it('an EVM address for a Bitcoin destination, and a testnet Bitcoin address', async () => {
    const quote = world.addQuote({ to: 'bitcoin.btc' });
    await expectRefused({ quote_id: quote.id, to_address: ADDR.evm }, /^`to_address` is not a valid address on bitcoin: /);
    await expectRefused({ quote_id: quote.id, to_address: ADDR.btcTestnet }, /^`to_address` is not a valid address on bitcoin: it is a testnet/);
  });
  it('the zero address, and an empty one', async () => {
    const quote = world.addQuote();
    await expectRefused({ quote_id: quote.id, to_address: ADDR.evmZero }, /^`to_address` is not a valid address on arbitrum: it is the zero address/);
    await expectRefused({ quote_id: quote.id, to_address: '' }, '`to_address` is not a valid address on arbitrum: it is empty.');
  });
  it('an address valid on the source chain only does not pass for the destination', async () => {
    const quote = world.addQuote({ from: 'bitcoin.btc', to: 'base.usdc', from_amount: '0.1' });
    await expectRefused({ quote_id: quote.id, to_address: ADDR.btcLegacy }, /^`to_address` is not a valid address on base: /);
    const ok = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.btcLegacy });
    expect(ok.status).toBe(201);
  });
});

describe('`refund_address`: "address on the `from` chain" (400 otherwise)', () => {
  it('an EVM refund address for a Bitcoin source', async () => {
    const quote = world.addQuote({ from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.1' });
    await expectRefused(
      { quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evm },
      /^`refund_address` is not a valid address on bitcoin: /,
    );
  });
  it('a Bitcoin refund address for an EVM source', async () => {
    const quote = world.addQuote({ to: 'bitcoin.btc' });
    await expectRefused(
      { quote_id: quote.id, to_address: ADDR.btc, refund_address: ADDR.btc },
      '`refund_address` is not a valid address on base: expected 0x followed by 40 hexadecimal digits.',
    );
  });
  it('a refund address with a bad checksum', async () => {
    const quote = world.addQuote();
    await expectRefused({ quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evmBadChecksum }, /^`refund_address` is not a valid address on base: /);
  });
  it('is stored in its normalised spelling', async () => {
    const quote = world.addQuote({ from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.1' });
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm.toLowerCase(), refund_address: ADDR.btc.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body.to_address).toBe(ADDR.evm);
    expect(res.body.refund_address).toBe(ADDR.btc);
    expect(world.orders.get(res.body.id)!.refundAddress).toBe(ADDR.btc);
  });
});

describe('"410 the quote has expired"', () => {
  it('ten minutes after quoting, the quote binds no order', async () => {
    const quote = world.addQuote();
    world.clock.set(quote.expiresAt + 1);
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(res.status).toBe(410);
    expect(res.body.error).toBe(`Quote ${quote.id} expired at ${new Date(quote.expiresAt).toISOString()}.`);
    expect(types()).toEqual(['quote.get', 'quote.order', 'quote.get', 'quote.bind']);
    expect(world.orders.size).toBe(0);
    // Repeats stay 410: an expired quote never binds later.
    world.clock.set(quote.expiresAt - 1);
    expect((await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm })).status).toBe(410);
  });
  it('an expired quote with a bad address is a 400: addresses are checked before the binding', async () => {
    const quote = world.addQuote({}, { expiresAt: world.clock.now() - 1 });
    await expectRefused({ quote_id: quote.id, to_address: ADDR.btc }, /^`to_address` /);
  });
});

describe('POST /order body: "no additional properties"', () => {
  const quoteId = '3f1c2a9e-8d4b-4c3e-9a7f-0123456789ab';
  const refusedBeforeTheBus = async (body: unknown, message: string) => {
    await expectRefused(body, message);
    expect(h.bus.calls).toHaveLength(0);
  };
  it('names the missing field', async () => {
    await refusedBeforeTheBus({ to_address: ADDR.evm }, '`quote_id` is required.');
    await refusedBeforeTheBus({ quote_id: quoteId }, '`to_address` is required.');
  });
  it('names the property not allowed', async () => {
    await refusedBeforeTheBus({ quote_id: quoteId, to_address: ADDR.evm, idempotency_key: 'x' }, 'Property `idempotency_key` is not allowed.');
  });
  it('`quote_id` must be a uuid', async () => {
    await refusedBeforeTheBus({ quote_id: 'quote-1', to_address: ADDR.evm }, '`quote_id` must be a uuid.');
    await refusedBeforeTheBus({ quote_id: `${quoteId}0`, to_address: ADDR.evm }, '`quote_id` must be a uuid.');
    await refusedBeforeTheBus({ quote_id: 42, to_address: ADDR.evm }, '`quote_id` must be a string.');
  });
  it('addresses must be strings; `refund_address` may be null', async () => {
    await refusedBeforeTheBus({ quote_id: quoteId, to_address: null }, '`to_address` must be a string.');
    await refusedBeforeTheBus({ quote_id: quoteId, to_address: ADDR.evm, refund_address: 7 }, '`refund_address` must be a string or null.');
  });
  it('the body must be a JSON object', async () => {
    await refusedBeforeTheBus([{ quote_id: quoteId, to_address: ADDR.evm }], 'The request body must be a JSON object.');
    await refusedBeforeTheBus(null, 'The request body must be a JSON object.');
    const res = await h.call('/order', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"quote_id":' });
    expect(res.status).toBe(400);
    expect(h.bus.calls).toHaveLength(0);
  });
});

describe('POST /order: other statuses are the error envelope (7)', () => {
  it('GET /order is a 405 that allows POST', async () => {
    const res = await h.call('/order');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
  it('a failure of the core is a 500 that reveals nothing', async () => {
    h.bus.answer = () => {
      throw new Error('store exploded at /var/lib/secret');
    };
    const res = await h.postOrder({ quote_id: '3f1c2a9e-8d4b-4c3e-9a7f-0123456789ab', to_address: ADDR.evm }, { 'X-Request-Id': 'rid-500' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Something failed on our side (request id rid-500).' });
    expect(h.logs.some((l) => l.req_id === 'rid-500' && l.level === 50)).toBe(true);
  });
});

describe('Order (2.5) on POST /order: "`format` inherited from the quote"', () => {
  it('a raw quote makes a raw order: canonical names, base units', async () => {
    const quote = world.addQuote({ format: 'raw', from_amount: '1234567' });
    const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm });
    expect(res.body).toMatchObject({ format: 'raw', from: BASE_USDC, to: ARB_USDC, from_amount: '1234567' });
  });
});
