// Composition root of an edge (cluster mode): the Family A, B and C apps over the NATS bus, connected as the `router`
// user, which may reach shards and nothing else. Family C's order list reads the store's order index directly (read
// only; the workers write it), since a list is no actor's message. The dev listener here can make simulated deposits (the ledger file of the
// host is shared with the workers), except on chains wired to a real node; the clock moves only in embedded mode. Builds; src/main.ts listens.
import { join } from 'node:path';
import type Koa from 'koa';
import { createApp, createAppB, createAppC, createDevApp, createEdgeGuard, createIssuedQuotes, loadOrCreateGatewaySecret } from '../../http/index.js';
import { createNatsBus } from '../bus/index.js';
import { openSimChains, simulatedDepositOnRealChain } from '../chains/index.js';
import { ManualClock } from '../clock.js';
import type { Config } from '../config.js';
import { InvalidRequest } from '../errors.js';
import type { Logger } from '../log.js';
import { connectNats } from './nats-connect.js';
import { openConfiguredStore } from './open-store.js';
import { createMetrics, createMetricsApp, instrumentApp, instrumentBus, meteredGuard, type Metrics } from '../metrics/index.js';
import { timeOrderedId } from '../ids.js';

export interface Edge {
  appA: Koa;
  appB: Koa;
  appC: Koa;
  devApp: Koa | null;
  metrics: Metrics;
  /** GET /metrics, for src/main.ts to listen on ROUTER_METRICS_PORT; null when that is `off`. */
  metricsApp: Koa | null;
  close(): Promise<void>;
}

export async function createEdge(config: Config, opts: { logger: Logger; devListener: boolean }): Promise<Edge> {
  const { logger } = opts;
  // Every edge must derive the same refund tokens: ROUTER_GATEWAY_SECRET is required here (no per-host file).
  const secret = await loadOrCreateGatewaySecret({ configured: config.gateway.secret, dataDir: config.dataDir, allowGenerate: false });
  const nc = await connectNats(config, `edge ${process.pid}`, logger);
  const metrics = createMetrics({ role: 'edge' });
  const bus = instrumentBus(
    createNatsBus(nc, { shards: config.shards, timeoutMs: config.requestTimeoutMs, retryMs: config.cluster.edgeRetryMs, logger }),
    metrics,
  );
  // The edge sheds and limits for the cluster: what it refuses never reaches NATS or a worker.
  const guard = meteredGuard(metrics, (hooks) => createEdgeGuard(config.overload, hooks));
  // The quotes this process issued: an order made from one needs no round trip to read it back.
  const quotes = createIssuedQuotes();
  const appA = createApp({ bus, logger, newId: timeOrderedId, bodyLimitBytes: config.bodyLimitBytes, guard, quotes });
  const appB = createAppB({ bus, logger, newId: timeOrderedId, gatewayId: config.gateway.id, secret, maxSlippageBps: config.gateway.maxSlippageBps, guard, quotes });
  const store = await openConfiguredStore(config);
  const appC = createAppC({ bus, logger, newId: timeOrderedId, orders: store, secret, guard, quotes });
  instrumentApp(appA, 'A', metrics);
  instrumentApp(appB, 'B', metrics);
  instrumentApp(appC, 'C', metrics);
  const chains = opts.devListener ? openSimChains({ file: join(config.dataDir, 'router.sqlite'), clock: new ManualClock() }) : null;
  const devApp = chains
    ? createDevApp({
        logger,
        bodyLimitBytes: config.bodyLimitBytes,
        deposit: async ({ asset, from, to, amount }) => {
          // This ledger file is the workers' books; on a chain the workers read from a node it must not be credited.
          if (config.evm.rpc[asset.chain]) throw simulatedDepositOnRealChain(asset.chain);
          return chains.simulateDeposit({ chain: asset.chain, asset: asset.id, from, to, amount });
        },
        unwind: (id) => bus.request({ kind: 'order', id }, { type: 'order.unwind' }),
        haltVenue: async () => {
          throw new InvalidRequest('Venues can be halted only in embedded mode; each worker simulates its own market.', 'venue');
        },
        advanceClock: async () => {
          throw new InvalidRequest('The clock can be moved only in embedded mode; each worker keeps the system time.', 'ms');
        },
      })
    : null;
  return {
    appA,
    appB,
    appC,
    devApp,
    metrics,
    metricsApp: config.metrics.port === null ? null : createMetricsApp(metrics),
    async close() {
      await bus.close();
      await store.close();
      await nc.drain().catch(() => undefined);
      await chains?.close();
    },
  };
}
