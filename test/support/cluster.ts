// Clusters for tests as `npm run cluster` runs them (nats-server from nats.conf, worker processes, an edge), or a lone
// nats-server: each on free loopback ports over a temp data dir of its own, which stop() removes with the processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startLocalCluster, type LocalCluster } from '../../src/cluster/local-cluster.js';
import { NATS_USERS, startNatsServer, type NatsServer } from '../../src/cluster/nats-server.js';

/** What every process of a test cluster gets unless the test says otherwise: venues answer at once and never fail. */
const CLUSTER_ENV: Readonly<Record<string, string>> = {
  ROUTER_SIM_LATENCY_SCALE: '0',
  ROUTER_SIM_FAILURES: 'off',
  ROUTER_LOG_LEVEL: 'info',
};

export interface TestClusterOptions {
  /** Names the temp data dir (`router-<name>-…`), so a dir left behind says which test left it. */
  name: string;
  workers: number;
  /** Environment of every process (edge and workers), over the defaults above. */
  env?: Record<string, string>;
  /** null: no process serves /metrics. Absent: each process on a free port of its own (`metricsUrl`). */
  metricsPort?: null;
}

/** A temp dir for one test's servers; `remove` is safe to call whatever state they were left in. */
function tempDir(name: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `router-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The cluster and its data dir (`dataDir`: the store and simulated ledger its processes share). */
export async function startTestCluster(opts: TestClusterOptions): Promise<LocalCluster> {
  const temp = tempDir(opts.name);
  let cluster: LocalCluster;
  try {
    // startLocalCluster stops what it started when a process fails to get ready; the dir is ours to remove.
    cluster = await startLocalCluster({
      dataDir: temp.dir,
      workers: opts.workers,
      ...(opts.metricsPort === null ? { metricsPort: null } : {}),
      env: { ...CLUSTER_ENV, ...opts.env },
    });
  } catch (err) {
    temp.remove();
    throw err;
  }
  const stopProcesses = cluster.stop;
  return {
    ...cluster,
    async stop() {
      try {
        await stopProcesses();
      } finally {
        temp.remove();
      }
    },
  };
}

export interface TestNats {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  /** The server's own dir (its nats.conf and JetStream store), free for the test's files too. */
  dir: string;
  /** A connection as one of nats.conf's users. */
  connectAs(who: keyof typeof NATS_USERS): Promise<NatsConnection>;
  /** Stops the server and removes its dir. */
  stop(): Promise<void>;
}

/** nats-server alone, from nats.conf (its users and permissions), for tests that bring their own clients. */
export async function startTestNats(name: string): Promise<TestNats> {
  const temp = tempDir(name);
  let server: NatsServer;
  try {
    server = await startNatsServer({ dir: temp.dir });
  } catch (err) {
    temp.remove();
    throw err;
  }
  return {
    url: server.url,
    dir: temp.dir,
    connectAs: (who) => connect({ servers: server.url, ...NATS_USERS[who] }),
    async stop() {
      try {
        await server.stop();
      } finally {
        temp.remove();
      }
    },
  };
}
