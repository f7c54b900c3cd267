// Family B's end-to-end scenarios, run against each deployment (the embedded service, a local cluster): quote → order
// (token mode) → deposit through the dev listener → `completed`, read through B and through Family A; a cancel by a
// viem-signed EIP-712 CancelOrder before any deposit → `cancelled`, the same cancel again → 200, a signature for
// another deadline → 401; a cancel by token of an underfunded order → `refunded`. Calls retry a 503 or a refused
// connection for a while, as a careful client of a cluster does (a shard moving, an edge starting).
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { CANCEL_DOMAIN, CANCEL_TYPES } from '../../http/index.js';
import { pollUntil } from './poll.js';
import { call } from './retrying-fetch.js';

export const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
export const SENDER = '0x000000000000000000000000000000000000dEaD';
export const authorizer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/** Where the scenarios run: the three listeners and the deployment's clock (a signature's deadline is read by it). */
export interface FamilyBDeployment {
  /** Family A. */
  url: string;
  urlB: string;
  /** The dev listener (deposits). */
  devUrl: string;
  /** Milliseconds on the deployment's clock. */
  now(): number;
}

/** A client of one deployment: Family B and A calls, a deposit, and waits for a status. */
export function familyBClient(deployment: () => FamilyBDeployment, waitMs: number) {
  const postB = async (path: string, body: unknown) => call('POST', `${deployment().urlB}${path}`, body);
  const getB = async (id: string) => (await call('GET', `${deployment().urlB}/order/${id}`)).body as Record<string, any>;
  const getA = async (id: string) => (await call('GET', `${deployment().url}/order/${id}`)).body as Record<string, any>;
  const deposit = async (to: string, amount: string, asset = 'base.usdc') => call('POST', `${deployment().devUrl}/deposits`, { to, asset, amount, from: SENDER });
  /** Polls until `read` answers an order with one of `statuses` or `ms` passed; answers the last read. */
  const until = (read: (id: string) => Promise<Record<string, any>>, id: string, statuses: string[], ms = waitMs) =>
    pollUntil(() => read(id), (o) => statuses.includes(o?.status), ms);
  const untilB = (id: string, statuses: string[], ms?: number) => until(getB, id, statuses, ms);
  const untilA = (id: string, statuses: string[], ms?: number) => until(getA, id, statuses, ms);
  /** A base.usdc → arbitrum.usdc quote and its market order with `extra` (refund mode, authorizer, …). */
  const orderB = async (extra: Record<string, unknown>, amount = '2500') => {
    const q = await postB('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: amount });
    expect(q.status).toBe(200);
    const o = await postB('/order/market', { quoteId: q.body.quoteId, fromAddress: SENDER, toAddress: TO, ...extra });
    expect(o.status).toBe(201);
    return { quote: q.body as Record<string, any>, order: o.body as Record<string, any> };
  };
  /** A CancelOrder signature of the authorizer for `orderId`, valid until `deadline` (seconds). */
  const cancelSignature = (orderId: string, deadline: number) =>
    authorizer.signTypedData({
      domain: CANCEL_DOMAIN, types: CANCEL_TYPES, primaryType: 'CancelOrder', message: { orderId, gateway: 'swap-router', deadline: BigInt(deadline) },
    });
  return { postB, getB, getA, deposit, untilB, untilA, orderB, cancelSignature };
}

/** Registers the scenarios; `where` names the deployment in the test names. */
export function familyBScenarios(where: string, deployment: () => FamilyBDeployment, opts: { waitMs: number; testMs?: number }): void {
  const { deposit, getA, getB, orderB, postB, untilA, untilB, cancelSignature } = familyBClient(deployment, opts.waitMs);

  describe(`Family B ${where}: quote → order (token mode) → deposit → completed, readable through A`, () => {
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
    }, opts.testMs);
  });

  describe(`Family B ${where}: cancel by a viem-signed EIP-712 CancelOrder before any deposit; the same cancel again answers the order`, () => {
    it('cancelled, then cancelled again; a signature for another deadline → 401 unauthorized in the envelope', async () => {
      const { order } = await orderB({ refundAuthorizer: authorizer.address });
      expect(order.status).toBe('quoted');
      const deadline = Math.floor(deployment().now() / 1000) + 300;
      const refundSignature = await cancelSignature(order.orderId, deadline);
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
    }, opts.testMs);
  });

  describe(`Family B ${where}: cancel by token of an underfunded order refunds what arrived`, () => {
    it('partial deposit, cancel by token → refund_pending, then refunded', async () => {
      const { order } = await orderB({ refundMode: 'token' });
      expect((await deposit(order.orderAddress, '1000')).status).toBe(201);
      // Wait until the core has seen the partial deposit (underfunded), then cancel.
      expect((await untilA(order.orderId, ['underfunded'])).status).toBe('underfunded');
      expect((await getB(order.orderId)).status).toBe('quoted');
      const r = await postB(`/order/${order.orderId}/cancel`, { refundToken: order.refundToken });
      expect(r.status).toBe(200);
      expect(['refund_pending', 'refunded']).toContain(r.body.status);
      const end = await untilB(order.orderId, ['refunded']);
      expect(end.status).toBe('refunded');
      expect((await getA(order.orderId)).refunds[0]).toMatchObject({ reason: 'cancelled', to_address: SENDER });
    }, opts.testMs);
  });
}
