// The cluster as an operator runs it: nats-server from nats.conf, worker processes, an edge, all on loopback. The
// same Family A API works through it; SIGKILL of a worker under a stream of orders, a restart of nats-server and a
// shard moving during execution lose nothing and run no step twice; the ledger balances.
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster } from '../support/cluster.js';
import { call } from '../support/retrying-fetch.js';
import { LEASE_BUCKET } from '../../actors/index.js';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import { shardOf } from '../../src/bus/index.js';
import { openSimChains } from '../../src/chains/index.js';
import { ManualClock } from '../../src/clock.js';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { NATS_USERS } from '../../src/cluster/nats-server.js';

const TO_BTC = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const SHARDS = 32;

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    name: 'cluster',
    workers: 3,
    env: {
      ROUTER_DEPOSIT_POLL_MS: '100',
      ROUTER_LEASE_TTL_MS: '2000',
      ROUTER_EDGE_RETRY_MS: '8000',
      // A request caught in a NATS restart gets no answer; the client retries the 503 sooner than the default 45 s.
      ROUTER_REQUEST_TIMEOUT_MS: '10000',
      ROUTER_SHARDS: String(SHARDS),
    },
  });
}, 60_000);

afterAll(() => cluster?.stop());

async function twoStepOrder(): Promise<Record<string, any>> {
  // robinhood USDG → bitcoin BTC has no direct venue: two steps, then delivery on bitcoin.
  const q = await call('POST', `${cluster.url}/quote`, { from: 'robinhood.usdg', to: 'bitcoin.btc', from_amount: '5000', return_full_route: true });
  expect(q.status).toBe(200);
  expect(q.body.route).toHaveLength(2);
  const o = await call('POST', `${cluster.url}/order`, { quote_id: q.body.id, to_address: TO_BTC });
  expect(o.status).toBe(201);
  const d = await call('POST', `${cluster.devUrl}/deposits`, { to: o.body.deposit_address, asset: 'robinhood.usdg', amount: '5000', from: SENDER });
  expect(d.status).toBe(201);
  return o.body;
}

async function untilDelivered(orders: Array<Record<string, any>>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (const o of orders) {
    for (;;) {
      const got = await call('GET', `${cluster.url}/order/${o.id}`);
      if (got.body?.status === 'delivered') {
        o.amount_out = got.body.amount_out;
        break;
      }
      expect(['awaiting_deposit', 'funded', 'executing', undefined]).toContain(got.body?.status);
      if (Date.now() > end) throw new Error(`order ${o.id} stuck in ${got.body?.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Every order delivered once, every step's input and output moved once, nothing left behind, totals balance. */
async function checkLedger(orders: Array<Record<string, any>>): Promise<void> {
  const chains = openSimChains({ file: join(cluster.dataDir, 'router.sqlite'), clock: new ManualClock(), pollMs: 0 });
  try {
    const btc = parseChainAsset('bitcoin.btc', 'to');
    const usdg = parseChainAsset('robinhood.usdg', 'from');
    for (const o of orders) {
      const out = parseAmount(o.amount_out, btc, 'formatted', 'amount_out');
      expect((await chains.transfers({ key: `${o.id}:deliver` })).map((t) => t.amount)).toEqual([out]);
      expect(await chains.balanceOf('robinhood', o.deposit_address, usdg.id)).toBe(0n);
      for (const key of [`${o.id}:0:in`, `${o.id}:0:out`, `${o.id}:1:in`, `${o.id}:1:out`]) {
        expect(await chains.transfers({ key })).toHaveLength(1);
      }
      for (const chain of ['ethereum', 'bitcoin'] as const) {
        expect((await chains.balances({ chain, address: `order:${o.id}` })).filter((b) => b.amount !== 0n)).toEqual([]);
      }
    }
  } finally {
    await chains.close();
  }
}

describe('Cluster: the same HTTP API works through the edge, NATS and the workers', () => {
  it('quote → order → deposit → delivered; unknown order 404; every shard has an owner', async () => {
    const [o] = [await twoStepOrder()];
    await untilDelivered([o!]);
    await checkLedger([o!]);
    expect((await call('GET', `${cluster.url}/order/7b0e4f5e-8a59-4c4e-9a39-1f0d2b1d9e11`)).status).toBe(404);
    const nc = await connect({ servers: cluster.nats.url, ...NATS_USERS.admin });
    try {
      const kv = await new Kvm(nc).open(LEASE_BUCKET);
      const owners = await Promise.all(Array.from({ length: SHARDS }, async (_, n) => (await kv.get(`shard.${n}`))?.json<{ owner: string }>().owner));
      expect(owners.every((o) => cluster.workers.some((w) => w.name === o))).toBe(true);
    } finally {
      await nc.close();
    }
  }, 60_000);
});

describe('Cluster faults: kill -9 a worker under load; the orders it held carry on elsewhere, none lost, none twice', () => {
  it('a stream of 12 two-step orders with a worker SIGKILLed in the middle: all delivered once, ledger balances', async () => {
    const orders: Array<Record<string, any>> = [];
    const victim = cluster.workers[1]!;
    for (let i = 0; i < 12; i++) {
      orders.push(await twoStepOrder());
      if (i === 4) await victim.kill('SIGKILL');
    }
    await untilDelivered(orders, 90_000);
    await checkLedger(orders);
    await victim.restart();
  }, 180_000);
});

describe('Cluster faults: restart nats-server; the service recovers by itself', () => {
  it('after nats-server stops and starts again, quotes and orders work without restarting any process', async () => {
    await cluster.nats.restart();
    const o = await twoStepOrder();
    await untilDelivered([o]);
    await checkLedger([o]);
  }, 120_000);
});

describe('Cluster faults: a shard move during execution does not run a step twice', () => {
  it('the owner of an executing order gives its shards up (SIGTERM); the next owner finishes it, each step once', async () => {
    const nc = await connect({ servers: cluster.nats.url, ...NATS_USERS.admin });
    const kv = await new Kvm(nc).open(LEASE_BUCKET);
    try {
      const o = await twoStepOrder();
      const entry = await kv.get(`shard.${shardOf(o.id, SHARDS)}`);
      const owner = entry!.json<{ owner: string }>().owner;
      const w = cluster.workers.find((p) => p.name === owner)!;
      await w.kill('SIGTERM');
      await untilDelivered([o]);
      await checkLedger([o]);
      await w.restart();
    } finally {
      await nc.close();
    }
  }, 120_000);
});
