// Family C through a local cluster (nats-server, two workers, an edge), as `npm run cluster` runs it: a quote and
// an order over the bus, a deposit through the edge's dev listener, and the order `settled` in GET /orders, which the
// edge reads from the store's order index the workers write (no actor is loaded for a list).
import { decodeFunctionData, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster } from '../support/cluster.js';
import { pollUntil } from '../support/poll.js';
import { call } from '../support/retrying-fetch.js';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';

const DEST = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const USDC_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 } };
const USDC_ARB = { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 } };

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    name: 'cluster-c',
    workers: 2,
    env: { ROUTER_DEPOSIT_POLL_MS: '100', ROUTER_LEASE_TTL_MS: '2000' },
  });
}, 60_000);

afterAll(() => cluster?.stop());

describe('Family C through the cluster edge: quote → order → the client runs the step → settled in GET /orders', () => {
  it('the list shows the order settled, filtered by sender and by status, and Family A shows it delivered', async () => {
    const q = await call('POST', `${cluster.urlC}/quote`, { type: 'EXACT_INPUT', from: USDC_BASE, to: USDC_ARB, amount: '2500000', slippageBps: 100 });
    expect(q.status).toBe(200);
    const swap = await call('POST', `${cluster.urlC}/order/market`, { id: q.body.id, destinationAddress: DEST, refundAddress: SENDER, senderAddress: SENDER });
    expect(swap.status).toBe(201);
    const { args } = decodeFunctionData({ abi: erc20Abi, data: swap.body.executionSteps[0].calldata });
    const [recipient] = args as readonly [string, bigint];
    expect((await call('POST', `${cluster.devUrl}/deposits`, { to: recipient, asset: 'base.usdc', amount: '2.5', from: SENDER })).status).toBe(201);

    const listed = async () => (await call('GET', `${cluster.urlC}/orders?sender=${SENDER}&status=settled`)).body.items as Array<Record<string, any>>;
    const item = await pollUntil(async () => (await listed()).find((i) => i.orderId === swap.body.orderId), (i) => i !== undefined, 60_000, 200);
    expect(item).toMatchObject({ status: 'settled', senderAddress: SENDER, destinationAddress: DEST, executedSellAmount: '2500000' });
    const a = await call('GET', `${cluster.url}/order/${swap.body.orderId}`);
    expect(a.body).toMatchObject({ status: 'delivered', amount_out: item!.executedBuyAmount });
  }, 120_000);
});
