// Family C POST /order/market through the real embedded service: the Swap (orderId, quote, executionSteps), steps
// that decode back to the order's deposit address and amount, the address rules, repeats (201, then 200; other
// terms → 409), unknown and foreign quotes (404; A and B refuse this family's quotes in turn), an expired quote (410), and orders that run to delivery.
import { randomUUID } from 'node:crypto';
import { decodeFunctionData, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppC } from '../../../http/index.js';
import { assetById } from '../../../src/assets/index.js';
import type { Quote } from '../../../src/quotes/types.js';
import { REFERENCE_USD_PRICES } from '../../../src/venues/index.js';
import { pollUntil } from '../../support/poll.js';
import { collectedLogs, FakeBus, serveChecked } from '../family-a/support.js';
import { SECRET } from '../family-b/support.js';
import { BWorld } from '../family-b/world.js';
import { BTC_ADDRESS, CUR, DEST, SENDER, orderBody, quoted, startC, type HarnessC } from './support.js';

let h: HarnessC;
beforeAll(async () => {
  h = await startC();
});
afterAll(() => h.close());

/** The order as Family A and B show it: the deposit address, status, and the raw amount delivered. */
async function coreOrder(id: string): Promise<{ deposit: string; status: string; amountOut?: string; fromAmount: string }> {
  const a = (await (await fetch(`${h.svc.url}/order/${id}`)).json()) as Record<string, any>;
  const b = (await (await fetch(`${h.svc.urlB}/order/${id}?amountFormat=raw`)).json()) as Record<string, any>;
  return { deposit: a.deposit_address, status: a.status, amountOut: b.amountOut, fromAmount: b.amountToSend };
}

const until = (id: string, status: string, ms = 10_000) => pollUntil(() => coreOrder(id), (o) => o.status === status, ms, 25);

const issuePath = (body: any) => body.error.details.issues[0].path as string;

describe('Swap: `orderId`, `quote` (the Quote shape), `executionSteps`', () => {
  it('201; the quote is the quote POST /quote answered; one ERC-20 transfer of from.expected to the deposit address', async () => {
    const q = await quoted(h);
    const r = await h.order(orderBody(q.id));
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body)).toEqual(['orderId', 'quote', 'executionSteps']);
    expect(r.body.orderId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.body.quote).toEqual(q);
    const { deposit } = await coreOrder(r.body.orderId);
    const [step, ...rest] = r.body.executionSteps;
    expect(rest).toEqual([]);
    expect(step).toMatchObject({ action: 'evm_call', kind: 'transfer_erc20', chainId: 8453, to: CUR.baseUsdc.token.address, value: '0', amount: q.from.expected });
    const call = decodeFunctionData({ abi: erc20Abi, data: step.calldata });
    expect(call.functionName).toBe('transfer');
    expect(call.args).toEqual([deposit, BigInt(q.from.expected)]);
  });
  it('native ETH: the deposit address receives `value` = from.expected, no calldata', async () => {
    const q = await quoted(h, { from: CUR.baseEth, amount: '1000000000000000000' });
    const r = await h.order(orderBody(q.id));
    expect(r.status).toBe(201);
    const { deposit } = await coreOrder(r.body.orderId);
    expect(r.body.executionSteps).toEqual([
      { id: `${r.body.orderId}:fund`, action: 'evm_call', kind: 'transfer_native', chainId: 8453, to: deposit, calldata: '0x', value: q.from.expected, amount: q.from.expected },
    ]);
  });
  it('Bitcoin: a BtcTransferStep to the deposit address; no senderAddress is needed', async () => {
    const q = await quoted(h, { from: CUR.btc, amount: '50000000' });
    const r = await h.order({ id: q.id, destinationAddress: DEST, refundAddress: BTC_ADDRESS });
    expect(r.status, r.text).toBe(201);
    const { deposit } = await coreOrder(r.body.orderId);
    expect(r.body.executionSteps).toEqual([{ id: `${r.body.orderId}:fund`, action: 'btc_transfer', kind: 'transfer_btc', to: deposit, amount: '50000000' }]);
  });
  it('Bitcoin: senderAddress, optional, may be the client\'s EVM account (as the field is described) or the paying bitcoin address', async () => {
    for (const senderAddress of [SENDER, BTC_ADDRESS]) {
      const q = await quoted(h, { from: CUR.btc, amount: '50000000' });
      const r = await h.order({ id: q.id, destinationAddress: DEST, refundAddress: BTC_ADDRESS, senderAddress });
      expect(r.status, r.text).toBe(201);
      const b = (await (await fetch(`${h.svc.urlB}/order/${r.body.orderId}`)).json()) as Record<string, any>;
      expect(b.fromAddress).toBe(senderAddress);
      expect(r.body.executionSteps[0]).toMatchObject({ action: 'btc_transfer', kind: 'transfer_btc' });
    }
    const q = await quoted(h, { from: CUR.btc, amount: '50000000' });
    const bad = await h.order({ id: q.id, destinationAddress: DEST, refundAddress: BTC_ADDRESS, senderAddress: '0x123' });
    expect(bad.status).toBe(400);
    expect(issuePath(bad.body)).toBe('senderAddress');
  });
  it('HyperCore: an Eip712SignStep (spotSend of the token to the deposit address)', async () => {
    const q = await quoted(h, { from: CUR.hype, amount: '10000000000' });
    const r = await h.order({ id: q.id, destinationAddress: DEST, refundAddress: SENDER });
    expect(r.status, r.text).toBe(201);
    const { deposit } = await coreOrder(r.body.orderId);
    const [step] = r.body.executionSteps;
    expect(step).toMatchObject({ action: 'eip712_sign', kind: 'hypercore_send', amount: '10000000000', message: { destination: deposit.toLowerCase(), amount: '100' } });
  });
});

describe('Addresses: destination for the `to` chain, refund and sender for the `from` chain; senderAddress required for EVM sources', () => {
  it('senderAddress missing for an EVM source → 400 naming it', async () => {
    const q = await quoted(h);
    const r = await h.order({ id: q.id, destinationAddress: DEST, refundAddress: SENDER });
    expect(r.status).toBe(400);
    expect(issuePath(r.body)).toBe('senderAddress');
  });
  it('a Bitcoin destination for an EVM output, a Bitcoin refund for an EVM source, a bad sender → 400 naming each', async () => {
    const q = await quoted(h);
    for (const [field, value] of [['destinationAddress', BTC_ADDRESS], ['refundAddress', BTC_ADDRESS], ['senderAddress', '0x123']] as const) {
      const r = await h.order(orderBody(q.id, { [field]: value }));
      expect(r.status).toBe(400);
      expect(issuePath(r.body)).toBe(field);
    }
    // Nothing was bound: the quote still makes an order.
    expect((await h.order(orderBody(q.id))).status).toBe(201);
  });
  it('id, destinationAddress and refundAddress are required; unknown properties, a bad approvalMode and a non-uuid id → 400', async () => {
    const q = await quoted(h);
    const { refundAddress: _r, ...noRefund } = orderBody(q.id);
    expect(issuePath((await h.order(noRefund)).body)).toBe('refundAddress');
    const { destinationAddress: _d, ...noDestination } = orderBody(q.id);
    expect(issuePath((await h.order(noDestination)).body)).toBe('destinationAddress');
    const { id: _i, ...noId } = orderBody(q.id);
    expect(issuePath((await h.order(noId)).body)).toBe('id');
    expect(issuePath((await h.order(orderBody(q.id, { amount: '1' }))).body)).toBe('amount');
    expect(issuePath((await h.order(orderBody(q.id, { approvalMode: 'none' }))).body)).toBe('approvalMode');
    expect(issuePath((await h.order(orderBody('not-a-uuid'))).body)).toBe('id');
  });
});

describe('Repeats: the same body again answers the same order (200); other addresses or terms → 409 conflict', () => {
  it('201, then 200 with the same Swap; lower-case addresses are the same addresses', async () => {
    const q = await quoted(h);
    const body = orderBody(q.id, { integratorName: 'wallet-x', approvalMode: 'partial' });
    const first = await h.order(body);
    const again = await h.order({ ...body, destinationAddress: DEST.toLowerCase(), id: q.id.toUpperCase() });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.orderId).toBe(first.body.orderId);
    expect(again.body.executionSteps).toEqual(first.body.executionSteps);
  });
  it('another destination, integrator, sender or approvalMode → 409', async () => {
    const q = await quoted(h);
    const body = orderBody(q.id);
    expect((await h.order(body)).status).toBe(201);
    for (const over of [{ destinationAddress: SENDER }, { integratorName: 'other' }, { senderAddress: DEST }, { approvalMode: 'partial' }]) {
      const r = await h.order({ ...body, ...over });
      expect(r.status, JSON.stringify(over)).toBe(409);
      expect(r.body.error.code).toBe('conflict');
    }
  });
});

describe('The quote: unknown or made through another family → 404 not_found', () => {
  it('an unknown id', async () => {
    const r = await h.order(orderBody('7d444840-9dc0-11d1-b245-5ffdce74fad2'));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
  it('a Family B quote, which records no slippageBps: the message says so', async () => {
    const b = await h.svc.post(`${h.svc.urlB}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '1000' });
    const r = await h.order(orderBody(b.body.quoteId));
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/another API/);
  });
});

describe('A refund that could not be paid is refused at creation: 400 invalid_request, before the quote is bound', () => {
  it('a quote whose amount does not exceed what one refund costs on the source chain; one base unit above is accepted', async () => {
    // The real router prices no amount that small, so the quote comes from a fake bus, as in Family B's tests.
    const world = new BWorld();
    const bus = new FakeBus();
    // The quote actor stores the market's USD prices of the route's assets with a quote; Family C's fees read them.
    bus.answer = async (ref, message) => {
      const answer = await world.answer(ref, message);
      if (message.type === 'quote.request') {
        const quote = answer as Quote;
        const ids = [quote.route.from, quote.route.to, ...quote.route.steps.flatMap((st) => [st.from, st.to])];
        quote.usdPrices = Object.fromEntries(ids.map((a) => [a, REFERENCE_USD_PRICES[assetById(a).priceKey]!]));
      }
      return answer;
    };
    const { logs, logger } = collectedLogs();
    const app = createAppC({ bus, logger, newId: randomUUID, secret: SECRET, orders: { listOrders: async () => [] }, clock: world.clock });
    const served = await serveChecked(app);
    try {
      const q = await served.call('/quote', { method: 'POST', json: { type: 'EXACT_INPUT', from: CUR.baseUsdc, to: CUR.arbUsdc, amount: '2000', slippageBps: 50 } });
      expect(q.status, JSON.stringify(logs.filter((l) => l.level >= 50))).toBe(200);
      // A quote another edge issued (this one asks its actor), whose refund would cost all it sells.
      const issued = world.quotes.get(q.body.id)!.quote;
      const quote = { ...issued, id: randomUUID(), refundCost: issued.route.amountIn };
      world.quotes.set(quote.id, { quote, binding: null });
      const callsBefore = bus.calls.length;
      const r = await served.call('/order/market', { method: 'POST', json: orderBody(quote.id) });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', message: `\`id\` ${quote.id} is for an amount that would not cover what a refund costs on the source chain; quote a larger amount.` });
      expect(bus.calls.slice(callsBefore).map((c) => c.message.type)).toEqual(['quote.get']);
      expect(world.quotes.get(quote.id)!.binding).toBeNull();

      quote.refundCost = issued.route.amountIn - 1n;
      const ok = await served.call('/order/market', { method: 'POST', json: orderBody(quote.id) });
      expect(ok.status, ok.text).toBe(201);
    } finally {
      await served.close();
    }
  });
});

describe('A quote made here is ordered here: Families A and B refuse it as not a known quote, and it stays unbound', () => {
  it('an exact-output quote through A → 400, through B → 404 not_found; then through C → 201', async () => {
    const q = await quoted(h, { type: 'EXACT_OUTPUT', amount: '2000000000', slippageBps: 100 });
    const message = `is a quote made through the typed-currency API (with \`slippageBps\`), not POST /quote of this one; quote here first.`;
    const a = await h.svc.post(`${h.svc.url}/order`, { quote_id: q.id, to_address: DEST });
    expect(a.status).toBe(400);
    expect(a.body.error).toBe(`\`quote_id\` ${q.id} ${message}`);
    const b = await h.svc.post(`${h.svc.urlB}/order/market`, { quoteId: q.id, fromAddress: SENDER, toAddress: DEST, refundMode: 'token' });
    expect(b.status).toBe(404);
    expect(b.body.error).toMatchObject({ code: 'not_found', message: `\`quoteId\` ${q.id} ${message}` });
    const c = await h.order(orderBody(q.id));
    expect(c.status, c.text).toBe(201);
    expect(c.body.quote).toEqual(q);
  });
});

describe('Orders run: exact input delivers at least to.minimum', () => {
  it('deposit from.expected → delivered, at least the minimum', async () => {
    const q = await quoted(h, { amount: '2500000000' });
    const r = await h.order(orderBody(q.id));
    const { deposit } = await coreOrder(r.body.orderId);
    await h.deposit(deposit, 'base.usdc', '2500');
    const done = await until(r.body.orderId, 'delivered');
    expect(done.status).toBe('delivered');
    expect(BigInt(done.amountOut!)).toBeGreaterThanOrEqual(BigInt(q.to.minimum));
  });
});

describe('Exact output: the order accepts deposits up to from.maximum and delivers exactly the amount', () => {
  it('deposit from.expected → delivered exactly to.expected', async () => {
    const q = await quoted(h, { type: 'EXACT_OUTPUT', amount: '2000000000', slippageBps: 100 });
    const r = await h.order(orderBody(q.id));
    expect(r.status, r.text).toBe(201);
    expect(r.body.executionSteps[0].amount).toBe(q.from.expected);
    const { deposit } = await coreOrder(r.body.orderId);
    await h.deposit(deposit, 'base.usdc', (Number(q.from.expected) / 1e6).toString());
    const done = await until(r.body.orderId, 'delivered');
    expect(done.amountOut).toBe('2000000000');
  });
});

// Last: it moves the service's clock past every quote's validity.
describe('An expired quote → 410 quote_expired', () => {
  it('eleven minutes after quoting', async () => {
    const q = await quoted(h);
    expect((await h.svc.post(`${h.svc.devUrl}/clock/advance`, { ms: 11 * 60_000 })).status).toBe(200);
    const r = await h.order(orderBody(q.id));
    expect(r.status).toBe(410);
    expect(r.body.error.code).toBe('quote_expired');
  });
});
