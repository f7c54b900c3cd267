// Family B end to end through a local cluster (nats-server, two workers, an edge), as `npm run cluster` runs it:
// quote → order (token mode) → deposit via the edge's dev listener → `completed`, read through B and through A;
// a cancel by a viem-signed EIP-712 CancelOrder before any deposit → `cancelled`, the same cancel again → 200, a
// signature for another deadline → 401; a cancel by token of an underfunded order → `refunded`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster } from '../support/cluster.js';
import { call } from '../support/retrying-fetch.js';
import { privateKeyToAccount } from 'viem/accounts';
import { CANCEL_DOMAIN, CANCEL_TYPES } from '../../http/index.js';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const authorizer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    name: 'cluster-b',
    workers: 2,
    env: { ROUTER_DEPOSIT_POLL_MS: '100', ROUTER_LEASE_TTL_MS: '2000' },
  });
}, 60_000);

afterAll(() => cluster?.stop());

const postB = (path: string, body: unknown) => call('POST', `${cluster.urlB}${path}`, body);
const getB = async (id: string) => (await call('GET', `${cluster.urlB}/order/${id}`)).body as Record<string, any>;
const getA = async (id: string) => (await call('GET', `${cluster.url}/order/${id}`)).body as Record<string, any>;
const deposit = (to: string, amount: string) => call('POST', `${cluster.devUrl}/deposits`, { to, asset: 'base.usdc', amount, from: SENDER });

async function untilB(id: string, statuses: string[], ms = 60_000): Promise<Record<string, any>> {
  const end = Date.now() + ms;
  for (;;) {
    const o = await getB(id);
    if (statuses.includes(o?.status) || Date.now() > end) return o;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function untilA(id: string, status: string, ms = 60_000): Promise<Record<string, any>> {
  const end = Date.now() + ms;
  for (;;) {
    const o = await getA(id);
    if (o?.status === status || Date.now() > end) return o;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function orderB(extra: Record<string, unknown>, amount = '2500') {
  const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: amount });
  expect(q.status).toBe(200);
  const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, ...extra });
  expect(o.status).toBe(201);
  return { quote: q.body as Record<string, any>, order: o.body as Record<string, any> };
}

describe('Family B through the cluster edge: quote → order (token mode) → deposit → completed, readable through A', () => {
  it('delivers, and both families show the order', async () => {
    const { quote, order } = await orderB({ refundMode: 'token' });
    expect(order.status).toBe('quoted');
    expect(order.refundToken).toMatch(/^rgt_/);
    expect(order.amountToSend).toBe('2500');
    expect((await deposit(order.orderAddress, '2500')).status).toBe(201);
    const done = await untilB(order.orderId, ['completed']);
    expect(done.status).toBe('completed');
    expect(Number(done.amountOut)).toBeGreaterThanOrEqual(Number(quote.estimatedOut) * 0.99);
    const a = await getA(order.orderId);
    expect(a).toMatchObject({ id: order.orderId, status: 'delivered', deposit_address: order.orderAddress, amount_out: done.amountOut });
  }, 90_000);
});

describe('Family B through the cluster edge: cancel by a viem-signed EIP-712 CancelOrder before any deposit; the same cancel again answers the order', () => {
  it('cancelled, then cancelled again; a signature for another deadline → 401 unauthorized in the envelope', async () => {
    const { order } = await orderB({ refundAuthorizer: authorizer.address });
    expect(order.status).toBe('quoted');
    // The cluster's processes run on the real clock.
    const deadline = Math.floor(Date.now() / 1000) + 300;
    const refundSignature = await authorizer.signTypedData({
      domain: CANCEL_DOMAIN,
      types: CANCEL_TYPES,
      primaryType: 'CancelOrder',
      message: { orderId: order.orderId, gateway: 'swap-router', deadline: BigInt(deadline) },
    });
    const r = await postB(`/order/${order.orderId}/cancel`, { refundSignature, refundSignatureDeadline: deadline });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    expect((await getB(order.orderId)).status).toBe('cancelled');
    const again = await postB(`/order/${order.orderId}/cancel`, { refundSignature, refundSignatureDeadline: deadline });
    expect([again.status, again.body.status]).toEqual([200, 'cancelled']);
    const forged = await postB(`/order/${order.orderId}/cancel`, { refundSignature, refundSignatureDeadline: deadline + 1 });
    expect(forged.status).toBe(401);
    expect(Object.keys(forged.body)).toEqual(['error']);
    expect(forged.body.error).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
    expect((await getA(order.orderId)).status).toBe('expired');
  }, 90_000);
});

describe('Family B through the cluster edge: cancel by token of an underfunded order refunds what arrived', () => {
  it('partial deposit, cancel by token → refund_pending, then refunded', async () => {
    const { order } = await orderB({ refundMode: 'token' });
    expect((await deposit(order.orderAddress, '1000')).status).toBe(201);
    // Wait until the core has seen the partial deposit (underfunded), then cancel.
    expect((await untilA(order.orderId, 'underfunded')).status).toBe('underfunded');
    expect((await getB(order.orderId)).status).toBe('quoted');
    const r = await postB(`/order/${order.orderId}/cancel`, { refundToken: order.refundToken });
    expect(r.status).toBe(200);
    expect(['refund_pending', 'refunded']).toContain(r.body.status);
    const end = await untilB(order.orderId, ['refunded']);
    expect(end.status).toBe('refunded');
    expect((await getA(order.orderId)).refunds[0]).toMatchObject({ reason: 'cancelled', to_address: SENDER });
  }, 90_000);
});
