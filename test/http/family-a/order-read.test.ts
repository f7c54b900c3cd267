// GET /order/{id}, spec 2.5, 3.1, 4 and 7: 200 with the order's current status, written per its `format`;
// `amount_out` absent until delivered; 404 for no such order; 400 for an id that is not a uuid (our choice).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OrderStatus } from '../../../src/orders/types.js';
import { ADDR, OrderWorld } from './order-world.js';
import { BASE_USDC, BTC, decimalToBase, startHarness, type Harness } from './support.js';

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

/** An order for 1234.567891 base.USDC → bitcoin.btc (6 and 8 decimals), written per `format`. */
async function usdcToBtcOrder(format: 'raw' | 'formatted', refund: string | null = null): Promise<string> {
  const quote = world.addQuote(
    format === 'raw'
      ? { to: 'bitcoin.btc', format: 'raw', from_amount: '1234567891' }
      : { to: 'bitcoin.btc', from_amount: '1234.567891' },
  );
  const res = await h.postOrder({ quote_id: quote.id, to_address: ADDR.btc, refund_address: refund });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('GET /order/{id}: "200 Order with current `status`"', () => {
  it('answers the order exactly as POST /order answered it while nothing happened', async () => {
    const quote = world.addQuote();
    const created = await h.postOrder({ quote_id: quote.id, to_address: ADDR.evm, refund_address: ADDR.evmOther });
    h.bus.calls.length = 0;
    const res = await h.getOrder(created.body.id, { 'X-Request-Id': 'rid-get-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(h.bus.calls).toHaveLength(1);
    expect(h.bus.calls[0]!.ref).toEqual({ kind: 'order', id: created.body.id });
    expect(h.bus.calls[0]!.message).toEqual({ type: 'order.get' });
    expect(h.bus.calls[0]!.opts?.requestId).toBe('rid-get-1');
  });

  it('follows the order awaiting_deposit → funded → executing → delivered; a null `refund_address` becomes the sender', async () => {
    const id = await usdcToBtcOrder('raw');
    const seen = async () => (await h.getOrder(id)).body;
    expect(await seen()).toMatchObject({ status: 'awaiting_deposit', refund_address: null });
    world.update(id, { status: 'funded', refundAddress: ADDR.evmOther });
    expect(await seen()).toMatchObject({ status: 'funded', refund_address: ADDR.evmOther });
    world.update(id, { status: 'executing' });
    const executing = await seen();
    expect(executing.status).toBe('executing');
    expect('amount_out' in executing).toBe(false);
    world.update(id, { status: 'delivered', amountOut: 1_234_567n });
    expect(await seen()).toMatchObject({ status: 'delivered', amount_out: '1234567' });
  });

  it('writes every status of 3.1', async () => {
    const id = await usdcToBtcOrder('formatted');
    const statuses: OrderStatus[] = ['awaiting_deposit', 'funded', 'underfunded', 'expired', 'executing', 'delivered', 'stalled', 'frozen'];
    for (const status of statuses) {
      world.update(id, { status, amountOut: status === 'delivered' ? 99_000n : null });
      const res = await h.getOrder(id);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
  });

  it('any spelling of the id (upper case, urn:uuid:) names the same order', async () => {
    const id = await usdcToBtcOrder('formatted');
    expect((await h.getOrder(id.toUpperCase())).body.id).toBe(id);
    expect((await h.getOrder(`urn:uuid:${id}`)).body.id).toBe(id);
  });
});

describe('Order (2.5): "`amount_out` … absent until delivered"', () => {
  it('is absent (not null) before delivery and a string once delivered', async () => {
    const id = await usdcToBtcOrder('formatted');
    const before = await h.getOrder(id);
    expect(Object.keys(before.body)).not.toContain('amount_out');
    expect(before.text).not.toContain('amount_out');
    world.update(id, { status: 'delivered', amountOut: 1_234_567n });
    const after = await h.getOrder(id);
    expect(after.body.amount_out).toBe('0.01234567');
  });
  it('every other field is always present, `refund_address` included', async () => {
    const id = await usdcToBtcOrder('formatted');
    expect(Object.keys((await h.getOrder(id)).body)).toEqual([
      'id', 'quote_id', 'vault_id', 'format', 'from', 'to', 'from_amount', 'deposit_address', 'to_address', 'refund_address',
      'venue_allowlist', 'venue_blocklist', 'status', 'deposit_deadline', 'created_at',
    ]);
  });
});

describe('Order: `refunds` (an addition to the spec) is absent until the first refund, each written per `format`', () => {
  const refund = (amount: bigint, txId: string | null) =>
    ({ reason: 'late_deposit' as const, asset: BASE_USDC, amount, cost: 2_000n, to: ADDR.evmOther, txId, at: Date.parse('2026-11-23T10:00:00Z') });
  it('absent before, then `{amount, reason, to_address, tx_id}` in the source asset; `tx_id` null when nothing was sent', async () => {
    const id = await usdcToBtcOrder('formatted');
    expect(Object.keys((await h.getOrder(id)).body)).not.toContain('refunds');
    world.update(id, { status: 'delivered', amountOut: 1_234_567n, refunds: [refund(2_995_905n, '0xabc'), refund(0n, null)] });
    const after = await h.getOrder(id);
    expect(after.body.refunds).toEqual([
      { amount: '2.995905', reason: 'late_deposit', to_address: ADDR.evmOther, tx_id: '0xabc' },
      { amount: '0', reason: 'late_deposit', to_address: ADDR.evmOther, tx_id: null },
    ]);
  });
  it('raw: base units', async () => {
    const id = await usdcToBtcOrder('raw');
    world.update(id, { refunds: [refund(2_995_905n, '0xabc')] });
    expect((await h.getOrder(id)).body.refunds[0].amount).toBe('2995905');
  });
});

describe('Order (2.5): amounts and assets written per `format`, "inherited from the quote"', () => {
  it('raw: canonical names and base units; formatted: <chain>.<symbol> and asset units, the same values', async () => {
    const rawId = await usdcToBtcOrder('raw');
    const fmtId = await usdcToBtcOrder('formatted');
    for (const id of [rawId, fmtId]) world.update(id, { status: 'delivered', amountOut: 1_234_567n });
    const r = (await h.getOrder(rawId)).body;
    const f = (await h.getOrder(fmtId)).body;
    expect(r).toMatchObject({ format: 'raw', from: BASE_USDC, to: BTC, from_amount: '1234567891', amount_out: '1234567' });
    expect(f).toMatchObject({ format: 'formatted', from_amount: '1234.567891', amount_out: '0.01234567' });
    expect(f.from.toLowerCase()).toBe('base.usdc');
    expect(f.to.toLowerCase()).toBe('bitcoin.btc');
    expect(decimalToBase(f.from_amount, 6)).toBe(BigInt(r.from_amount));
    expect(decimalToBase(f.amount_out, 8)).toBe(BigInt(r.amount_out));
  });
  it('instants are ISO-8601 UTC; the deposit deadline is seven days after creation', async () => {
    const id = await usdcToBtcOrder('raw');
    const o = (await h.getOrder(id)).body;
    const stored = world.orders.get(id)!;
    expect(o.created_at).toBe(new Date(stored.createdAt).toISOString());
    expect(o.deposit_deadline).toBe(new Date(stored.depositDeadline).toISOString());
    expect(o.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(o.deposit_deadline) - Date.parse(o.created_at)).toBe(7 * 24 * 3600 * 1000);
  });
  it('the deposit address is on the `from` chain', async () => {
    const btcSource = world.addQuote({ from: 'bitcoin.btc', to: 'base.usdc', from_amount: '0.25' });
    const res = await h.postOrder({ quote_id: btcSource.id, to_address: ADDR.evm });
    expect(res.body.deposit_address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
    const evmSource = await usdcToBtcOrder('raw');
    expect((await h.getOrder(evmSource)).body.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});

describe('GET /order/{id}: "`404` no such order"', () => {
  it('a uuid that names no order', async () => {
    const id = '0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
    const res = await h.getOrder(id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Order ${id} does not exist.` });
  });
  it('a quote id is not an order id', async () => {
    const quote = world.addQuote();
    expect((await h.getOrder(quote.id)).status).toBe(404);
  });
});

describe('GET /order/{id}: "Path parameter `id`: string, uuid" (not a uuid → 400, our choice)', () => {
  const malformed = [
    'abc', '42', 'order-1', '0b7e4f1a2c3d4e5f8a9b0c1d2e3f4a5b', '0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5bx', 'zb7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b',
    '%E0%A4%A', '%00', encodeURIComponent('0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b '),
  ];
  for (const id of malformed) {
    it(`"${id}" is a 400 that never reaches an actor`, async () => {
      const res = await h.getOrder(id);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: '`id` must be a uuid.' });
      expect(h.bus.calls).toHaveLength(0);
    });
  }
  it('more than one segment is no resource (404); no id at all is GET /order (405, POST only)', async () => {
    expect((await h.call('/order/0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b/status')).status).toBe(404);
    const bare = await h.call('/order/');
    expect(bare.status).toBe(405);
    expect(bare.headers.get('allow')).toBe('POST');
    expect(h.bus.calls).toHaveLength(0);
  });
  it('another method on an order is a 405 that allows GET', async () => {
    const res = await h.call('/order/0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
  });
});

describe('Versioning (9): the OpenAPI document describes POST /order and GET /order/{id}', () => {
  it('lists their statuses and shapes', async () => {
    const doc = (await h.call('/openapi.json')).body;
    const post = doc.paths['/order'].post;
    const schemaOf = (op: { responses: Record<string, { content: Record<string, { schema: unknown }> }> }, status: string) =>
      op.responses[status]!.content['application/json']!.schema;
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OrderRequest' });
    expect(schemaOf(post, '201')).toEqual({ $ref: '#/components/schemas/Order' });
    for (const s of ['400', '409', '410']) expect(schemaOf(post, s)).toEqual({ $ref: '#/components/schemas/Error' });
    const get = doc.paths['/order/{id}'].get;
    expect(schemaOf(get, '200')).toEqual({ $ref: '#/components/schemas/Order' });
    for (const s of ['400', '404']) expect(schemaOf(get, s)).toEqual({ $ref: '#/components/schemas/Error' });
    expect(get.parameters.find((p: { in: string }) => p.in === 'path')).toMatchObject({ name: 'id', required: true, schema: { type: 'string', format: 'uuid' } });
    const order = doc.components.schemas.Order;
    expect(order.required).not.toContain('amount_out');
    expect(order.required).toContain('refund_address');
    expect(order.additionalProperties).toBe(false);
    const body = doc.components.schemas.OrderRequest;
    expect(body.required).toEqual(['quote_id', 'to_address']);
    expect(body.additionalProperties).toBe(false);
  });
});
