// `npm run cluster` (`src/main.ts cluster`): a local cluster for people to try: nats-server with nats.conf on
// 127.0.0.1:4222, ROUTER_CLUSTER_WORKERS workers (default 2) and an edge with Family A on ROUTER_PORT_A (8080), Family B
// on ROUTER_PORT_B (8081), Family C on ROUTER_PORT_C (8082) and the dev listener on ROUTER_DEV_PORT (8090), all over
// ROUTER_DATA_DIR (./data). Metrics: the edge's GET /metrics on ROUTER_METRICS_PORT (9464), worker n's on that port
// + n; 0 = free ports, off = none. The entry point stops it on Ctrl-C.
import type { Config } from '../config.js';
import { startLocalCluster, type LocalCluster } from './local-cluster.js';

/** Starts the local cluster `config` describes and tells the person at the terminal where everything is. */
export async function startConfiguredCluster(config: Config, tell: (text: string) => void): Promise<LocalCluster> {
  const port = Number(new URL(config.nats.servers[0] ?? 'nats://127.0.0.1:4222').port || 4222);
  const cluster = await startLocalCluster({
    dataDir: config.dataDir,
    workers: config.cluster.localWorkers,
    natsPort: port,
    portA: config.portA,
    portB: config.portB,
    portC: config.portC,
    devPort: config.dev.port,
    metricsPort: config.metrics.port === 0 ? undefined : config.metrics.port,
    inheritOutput: true,
  });
  tell(
    `\nLocal cluster up: NATS ${cluster.nats.url}, ${cluster.workers.length} workers, Family A ${cluster.url}, B ${cluster.urlB}, C ${cluster.urlC}, dev listener ${cluster.devUrl}.\n` +
      `Metrics: ${[cluster.edge, ...cluster.workers].map((p) => `${p.name} ${p.metricsUrl ?? 'off'}`).join(', ')}\n` +
      `Admin: ROUTER_NATS_URL=${cluster.nats.url} npm run router -- admin shards   (Ctrl-C stops the cluster)\n`,
  );
  return cluster;
}
