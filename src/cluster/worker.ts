// Composition root of a worker (cluster mode): connects to NATS as the `worker` user, holds shard leases, serves the
// subjects of its shards with the actor runtime, fires the timers of its shards, runs the deposit feed while it holds
// shard 0, and serves the admin subject. Builds and connects; src/main.ts starts it and handles signals.
import { hostname } from 'node:os';
import type Koa from 'koa';
import { createAdminService, createLeaseManager, createQuoteJanitor, createRuntime, withOrderPlacement, type LeaseManager, type Runtime } from '../../actors/index.js';
import { shardOf } from '../bus/shard.js';
import { createNatsBus } from '../bus/index.js';
import { ManualClock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { composeActorHost } from '../service.js';
import { missingSeed } from '../vaults/index.js';
import { ConfigError } from '../errors.js';
import { openConfiguredStore } from './open-store.js';
import type { ActorStore } from '../store/types.js';
import { connectNats } from './nats-connect.js';
import { createMetrics, createMetricsApp, instrumentBus, instrumentStore, observeOrdersOf, type Metrics } from '../metrics/index.js';

export interface Worker {
  id: string;
  runtime: Runtime;
  leases: LeaseManager;
  store: ActorStore;
  metrics: Metrics;
  /** GET /metrics, for src/main.ts to listen on ROUTER_METRICS_PORT; null when that is `off`. */
  metricsApp: Koa | null;
  /** Acquires leases and starts serving. */
  start(): Promise<void>;
  /** Gives its shards back, finishes in-flight work, flushes snapshots, disconnects. */
  close(): Promise<void>;
}

export async function createWorker(config: Config, opts: { logger: Logger; version: string }): Promise<Worker> {
  // Refused before the store and NATS are reached: a worker that cannot derive the cluster's addresses says so at once
  // instead of after waiting for a server.
  if (config.vaultSeed === null) throw missingSeed();
  // A real chain's treasury signs with nonces and an outbox kept per process: two workers sending from it would take
  // the same nonce, and the loser's send could never be mined. Until its sends have one owner in the cluster, real
  // chains run in embedded mode only.
  const realChains = Object.keys(config.evm.rpc);
  if (realChains.length > 0) {
    throw new ConfigError(`ROUTER_EVM_RPC_${realChains[0]!.toUpperCase()} is for embedded mode only: cluster workers would sign from one treasury with nonces each keeps apart.`);
  }
  const id = config.cluster.workerId ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}`;
  const logger = opts.logger.child({ worker: id });
  const clock = new ManualClock();
  const metrics = createMetrics({ role: 'worker' });
  const store = instrumentStore(await openConfiguredStore(config), metrics);
  observeOrdersOf(store, metrics);
  const nc = await connectNats(config, `worker ${id}`, logger);
  const bus = instrumentBus(
    createNatsBus(nc, { shards: config.shards, timeoutMs: config.requestTimeoutMs, retryMs: config.cluster.edgeRetryMs, logger }),
    metrics,
  );
  const { chains, deposits, kinds, closeVaults } = await composeActorHost(config, {
    store,
    clock,
    logger,
    tell: (orderId, command) => bus.request({ kind: 'order', id: orderId }, command),
    // Every worker must derive the same addresses: the seed comes from ROUTER_VAULT_SEED, never generated here.
    generateSeed: false,
    metrics,
  });
  const serving = new Map<number, () => Promise<void>>();
  // The deposit feed is one per cluster: it runs in the worker holding shard 0 (its cursors are in the store, so the
  // next holder carries on where it stopped; deposits are told at least once and orders deduplicate them).
  const FEED_SHARD = 0;
  // eslint-disable-next-line prefer-const
  let runtime: Runtime;
  const leases = createLeaseManager({
    nc,
    workerId: id,
    shards: config.shards,
    ttlMs: config.cluster.leaseTtlMs,
    logger,
    async onAcquire(shard) {
      serving.set(shard, await bus.serveShard(shard, handle));
      if (shard === FEED_SHARD) deposits.start(config.depositPollMs);
      metrics.shardMoves.inc({ direction: 'acquired' });
    },
    onRenewal: (ok) => metrics.leaseRenewals.inc({ outcome: ok ? 'ok' : 'failed' }),
    async onRelease(shard) {
      metrics.shardMoves.inc({ direction: 'released' });
      const stop = serving.get(shard);
      serving.delete(shard);
      await stop?.();
      if (shard === FEED_SHARD) await deposits.stop();
      await runtime.release(shard);
    },
  });
  runtime = createRuntime({
    store,
    clock,
    logger,
    kinds,
    shards: config.shards,
    epochOf: leases.epochOf,
    ownedShards: leases.ownedShards,
    idleMs: config.cluster.idleMs,
    onPassivate: (ref) => metrics.actorsPassivated.inc({ kind: ref.kind }),
  });
  // `quote.order` creates its order in this worker when it holds the order's shard, else through NATS.
  const handle = withOrderPlacement(runtime, { holds: (ref) => leases.epochOf(shardOf(ref.id, config.shards)) !== null, bus, limits: config.orders.maxDeposit });
  metrics.observeActorsInMemory(runtime.activeCount);
  metrics.observeShardsOwned(() => leases.ownedShards().length);
  // Each shard's expired quotes are swept by its owner only.
  const janitor = createQuoteJanitor({
    store, clock, logger, retentionMs: config.retention.quoteRetentionMs, idleMs: config.cluster.idleMs, everyMs: config.retention.sweepMs, shards: leases.ownedShards,
  });
  let admin: { stop(): Promise<void> } | null = null;
  return {
    id,
    runtime,
    leases,
    store,
    metrics,
    metricsApp: config.metrics.port === null ? null : createMetricsApp(metrics),
    async start() {
      await leases.start();
      runtime.start();
      janitor.start();
      admin = await createAdminService({
        nc, store, chains, directory: leases, workerId: id, version: opts.version, activeActors: runtime.activeCount, logger,
      });
      logger.info({ shards: leases.ownedShards().length }, 'worker started');
    },
    async close() {
      await janitor.stop();
      await admin?.stop();
      await leases.stop();
      await runtime.drain();
      await deposits.stop();
      await bus.close();
      await nc.drain().catch(() => undefined);
      await chains.close();
      await closeVaults();
      await store.close();
    },
  };
}
