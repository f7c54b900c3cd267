// Family C GET /orders through the real embedded service: every field of a list item, the exact address filters
// (normalised), the coarse status filter, orderType, the page size (default, clamp, 400), unknown parameters, and
// cursors (a walk page by page sees every order once; a tampered cursor → 400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_STATUSES } from '../../../src/orders/summary.js';
import { BTC_ADDRESS, CUR, DEST, SENDER, orderBody, quoted, startC, untilListed, type HarnessC } from './support.js';

const OTHER = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

let h: HarnessC;
const ids: Record<string, string> = {};
let settledQuote: Record<string, any>;

async function create(name: string, quoteOver: Record<string, unknown>, body: (quoteId: string) => Record<string, unknown>) {
  const q = await quoted(h, quoteOver);
  const r = await h.order(body(q.id));
  expect(r.status, r.text).toBe(201);
  ids[name] = r.body.orderId as string;
  return q;
}

beforeAll(async () => {
  h = await startC();
  settledQuote = await create('settled', { amount: '2500000000' }, (id) => orderBody(id, { integratorName: 'list-test' }));
  await create('other', {}, (id) => orderBody(id, { destinationAddress: OTHER, senderAddress: OTHER, refundAddress: OTHER }));
  await create('btc', { from: CUR.btc, amount: '50000000' }, (id) => ({ id, destinationAddress: DEST, refundAddress: BTC_ADDRESS }));
  for (const n of ['p1', 'p2', 'p3']) await create(n, {}, (id) => orderBody(id));
  const a = (await (await fetch(`${h.svc.url}/order/${ids.settled}`)).json()) as Record<string, any>;
  await h.deposit(a.deposit_address, 'base.usdc', '2500');
  expect((await untilListed(h, ids.settled!, ['settled']))?.status).toBe('settled');
});
afterAll(() => h.close());

const listed = async (query: string): Promise<Array<Record<string, any>>> => {
  const r = await h.orders(query);
  expect(r.status, r.text).toBe(200);
  return r.body.items;
};
const idsOf = (items: Array<Record<string, any>>) => items.map((i) => i.orderId as string);
const refusedParam = async (query: string, path: string) => {
  const r = await h.orders(query);
  expect(r.status, query).toBe(400);
  expect(r.body.error.code).toBe('invalid_request');
  expect(r.body.error.details.issues[0].path).toBe(path);
};

describe('Order list item: every field of spec 2.7', () => {
  it('a settled order: route, currencies, quoted and executed amounts, transactions and instants', async () => {
    const item = (await listed(`?destination=${DEST}&status=settled`)).find((i) => i.orderId === ids.settled)!;
    expect(Object.keys(item)).toEqual([
      'orderId', 'routeType', 'orderType', 'provider', 'path', 'status', 'senderAddress', 'destinationAddress', 'refundAddress',
      'otcSwapId', 'swapperSwapId', 'cowOrderUid', 'sellCurrency', 'buyCurrency', 'quoteMode', 'quotedSellAmount', 'quotedBuyAmount',
      'quotedMinimumBuyAmount', 'quotedMaximumSellAmount', 'executedSellAmount', 'executedBuyAmount', 'executedFeeAmount',
      'depositTxHash', 'payoutTxHash', 'refundTxHash', 'rawRouterJson', 'rawExternalDEXOrderJson', 'rawOtcJson', 'rawSwapperJson',
      'externalDexStatus', 'teeOtcStatus', 'teeSwapperStatus', 'createdAt', 'updatedAt', 'lastSourceUpdateAt', 'terminalAt',
    ]);
    const steps = item.rawRouterJson.steps as Array<Record<string, any>>;
    expect(item).toMatchObject({
      routeType: steps.length === 1 ? 'direct' : 'multi_hop',
      orderType: 'market',
      provider: steps[0]!.venue,
      path: steps.map((s) => s.venue),
      status: 'settled',
      senderAddress: SENDER,
      destinationAddress: DEST,
      refundAddress: SENDER,
      sellCurrency: CUR.baseUsdc,
      buyCurrency: CUR.arbUsdc,
      quoteMode: 'exact_input',
      quotedSellAmount: '2500000000',
      quotedBuyAmount: settledQuote.to.expected,
      quotedMinimumBuyAmount: settledQuote.to.minimum,
      quotedMaximumSellAmount: null,
      executedSellAmount: '2500000000',
      refundTxHash: null,
      otcSwapId: null, swapperSwapId: null, cowOrderUid: null, rawExternalDEXOrderJson: null, rawOtcJson: null, rawSwapperJson: null,
      externalDexStatus: null, teeOtcStatus: null, teeSwapperStatus: null,
    });
    expect(BigInt(item.executedBuyAmount)).toBeGreaterThanOrEqual(BigInt(settledQuote.to.minimum));
    expect(BigInt(item.executedFeeAmount)).toBeGreaterThan(0n);
    expect(item.depositTxHash).toEqual(expect.any(String));
    expect(item.payoutTxHash).toEqual(expect.any(String));
    expect(item.rawRouterJson.amountIn).toBe('2500000000');
    for (const k of ['createdAt', 'updatedAt', 'lastSourceUpdateAt', 'terminalAt']) expect(Date.parse(item[k]), k).not.toBeNaN();
  });
  it('an order awaiting its deposit: executed amounts, transactions and terminalAt are null', async () => {
    const item = (await listed('?status=unfilled')).find((i) => i.orderId === ids.p1)!;
    expect(item).toMatchObject({ status: 'unfilled', executedSellAmount: null, executedBuyAmount: null, executedFeeAmount: null, depositTxHash: null, payoutTxHash: null, terminalAt: null, lastSourceUpdateAt: null });
  });
});

describe('Filters: sender, destination, refund (exact, normalised), status, orderType', () => {
  it('destination in lower case finds the checksummed destination', async () => {
    const items = await listed(`?destination=${DEST.toLowerCase()}`);
    expect(idsOf(items).sort()).toEqual([ids.settled, ids.btc, ids.p1, ids.p2, ids.p3].sort());
    expect(idsOf(await listed(`?destination=${OTHER}`))).toEqual([ids.other]);
  });
  it('sender and refund, combined with AND; a Bitcoin refund address in upper case is its lower-case bech32 form', async () => {
    expect(idsOf(await listed(`?sender=${OTHER.toUpperCase().replace('0X', '0x')}&refund=${OTHER}`))).toEqual([ids.other]);
    expect(idsOf(await listed(`?refund=${BTC_ADDRESS.toUpperCase()}`))).toEqual([ids.btc]);
    expect(await listed(`?sender=${SENDER}&destination=${OTHER}`)).toEqual([]);
  });
  it('status returns only orders of that status', async () => {
    const settled = await listed('?status=settled');
    expect(idsOf(settled)).toEqual([ids.settled]);
    const unfilled = await listed('?status=unfilled');
    expect(unfilled.every((i) => i.status === 'unfilled')).toBe(true);
    expect(idsOf(unfilled)).not.toContain(ids.settled);
    expect(await listed('?status=refunded')).toEqual([]);
  });
  it('orderType=limit answers an empty page; orderType=market lists market orders', async () => {
    const r = await h.orders('?orderType=limit');
    expect(r.body).toEqual({ items: [], nextCursor: null });
    expect((await listed('?orderType=market')).length).toBe(6);
  });
  it('an address of no chain, an unknown status or orderType → 400 naming the parameter', async () => {
    await refusedParam('?sender=0x123', 'sender');
    await refusedParam('?destination=', 'destination');
    await refusedParam('?refund=tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'refund');
    await refusedParam('?status=done', 'status');
    await refusedParam('?orderType=LIMIT', 'orderType');
    for (const s of LIST_STATUSES) expect((await h.orders(`?status=${s}`)).status).toBe(200);
  });
  it('an unknown or repeated parameter → 400', async () => {
    await refusedParam('?destinaton=x', 'destinaton');
    await refusedParam(`?status=settled&status=unfilled`, 'status');
  });
});

describe('limit: default 50, clamped between 1 and 100, not an integer → 400', () => {
  it('0 and -3 are 1; 1000 is 100', async () => {
    for (const limit of ['0', '-3', '1']) {
      const r = await h.orders(`?limit=${limit}`);
      expect(r.body.items).toHaveLength(1);
      expect(r.body.nextCursor).toEqual(expect.any(String));
    }
    const all = await h.orders('?limit=1000');
    expect(all.body.items).toHaveLength(6);
    expect(all.body.nextCursor).toBeNull();
    expect((await h.orders('')).body.items).toHaveLength(6);
  });
  it('1.5, abc, an empty value → 400 naming limit', async () => {
    for (const limit of ['1.5', 'abc', '', '1e2']) await refusedParam(`?limit=${limit}`, 'limit');
  });
});

describe('cursor: opaque base64url from a previous response', () => {
  it('a walk two at a time sees every order once, newest first, and ends with nextCursor null', async () => {
    const all = idsOf(await listed(''));
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const r = await h.orders(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      walked.push(...idsOf(r.body.items));
      cursor = r.body.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(walked).toEqual(all);
    const created = (await listed('')).map((i) => Date.parse(i.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
  });
  it('a cursor keeps the filters of the query it is used with', async () => {
    const first = await h.orders(`?destination=${DEST}&limit=1`);
    const next = await h.orders(`?destination=${DEST}&limit=100&cursor=${first.body.nextCursor}`);
    expect(idsOf([...first.body.items, ...next.body.items]).sort()).toEqual([ids.settled, ids.btc, ids.p1, ids.p2, ids.p3].sort());
  });
  it('a tampered, truncated or made-up cursor → 400 naming cursor', async () => {
    const c = (await h.orders('?limit=1')).body.nextCursor as string;
    const flipped = c.slice(0, 5) + (c[5] === 'A' ? 'B' : 'A') + c.slice(6);
    for (const bad of [flipped, c.slice(0, -4), 'AAAA', 'not*base64', 'x'.repeat(600)]) await refusedParam(`?cursor=${encodeURIComponent(bad)}`, 'cursor');
  });
});

// Last: it adds orders the counts above do not expect.
describe('How the families relate: GET /orders lists the orders of every family; A and B order each other\'s quotes', () => {
  it('an A quote ordered through B and a B quote ordered through A (201 each); both orders are listed here and read through A and B', async () => {
    const a = await h.svc.post(`${h.svc.url}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
    const b = await h.svc.post(`${h.svc.urlB}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '2500' });
    expect([a.status, b.status]).toEqual([200, 200]);
    const viaB = await h.svc.post(`${h.svc.urlB}/order/market`, { quoteId: a.body.id, fromAddress: OTHER, toAddress: DEST, refundMode: 'token' });
    const viaA = await h.svc.post(`${h.svc.url}/order`, { quote_id: b.body.quoteId, to_address: DEST, refund_address: OTHER });
    expect([viaB.status, viaA.status]).toEqual([201, 201]);
    const orderIds = [viaB.body.orderId as string, viaA.body.id as string];
    for (const id of orderIds) {
      expect((await fetch(`${h.svc.url}/order/${id}`)).status).toBe(200);
      expect((await fetch(`${h.svc.urlB}/order/${id}`)).status).toBe(200);
    }
    const items = await listed(`?refund=${OTHER}&limit=100`);
    expect(idsOf(items)).toEqual(expect.arrayContaining(orderIds));
  });
});
