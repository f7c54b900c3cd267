// A cluster on this host: nats-server from nats.conf, N worker processes and an edge, on free loopback ports, over
// one data dir (SQLite store and simulated ledger shared by the processes, or MongoDB when MONGODB_URL is given).
// `npm run cluster` runs one for people; test/cluster/ and bench/ run them for machines, killing and restarting
// processes at will.
import { childEnvironment } from '../config.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLogger } from '../log.js';
import { ensurePrivateDir } from '../store/private-files.js';
import { loadOrCreateSeed } from '../vaults/index.js';
import { isReadyMessage } from './ready.js';
import { NATS_USERS, startNatsServer, type NatsServer } from './nats-server.js';
import { freePort, onFreshPorts } from './ports.js';

export interface ClusterProcess {
  name: string;
  child: ChildProcess;
  /** Lines written so far (JSON log lines), newest last, at most 2000. */
  lines: string[];
  /** Its GET /metrics (`http://127.0.0.1:<port>/metrics`), or null when metrics are off. */
  metricsUrl: string | null;
  /** SIGKILL by default. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the same process again (same name, env and ports). */
  restart(): Promise<void>;
}

export interface LocalCluster {
  nats: NatsServer;
  workers: ClusterProcess[];
  edge: ClusterProcess;
  /** Family A on the edge. */
  url: string;
  /** Family B and Family C on the edge. */
  urlB: string;
  urlC: string;
  /** The edge's dev listener (simulated deposits). */
  devUrl: string;
  dataDir: string;
  /** Adds one more worker. */
  addWorker(): Promise<ClusterProcess>;
  stop(): Promise<void>;
}

export interface LocalClusterOptions {
  dataDir: string;
  workers: number;
  /** Extra environment for every process (latency scale, lease TTL, log level, ...). */
  env?: Record<string, string>;
  natsPort?: number;
  portA?: number;
  /** Family B on the edge; a free port when absent. */
  portB?: number;
  /** Family C on the edge; a free port when absent. */
  portC?: number;
  devPort?: number;
  /** ROUTER_METRICS_PORT of each process: absent = a free port each; a number = the edge on it and worker n on
   *  it + n (npm run cluster: 9464, 9465, ...); null = metrics off. */
  metricsPort?: number | null;
  /** Forward the processes' output to ours (npm run cluster). */
  inheritOutput?: boolean;
}

const MAIN = resolve('src/main.ts');

// A process of src/main.ts says it serves with a `ready` message on its IPC channel (src/cluster/ready.ts).
function launch(name: string, args: string[], env: Record<string, string>, inherit: boolean, metricsPort: number | null): Promise<ClusterProcess> {
  const proc: ClusterProcess = {
    name,
    child: null as unknown as ChildProcess,
    lines: [],
    metricsUrl: metricsPort === null ? null : `http://127.0.0.1:${metricsPort}/metrics`,
    async kill(signal = 'SIGKILL') {
      const c = proc.child;
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = once(c, 'exit');
      c.kill(signal);
      await exited;
    },
    async restart() {
      await proc.kill('SIGKILL');
      await start();
    },
  };
  const start = () =>
    new Promise<void>((resolveReady, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
        env: childEnvironment(env),
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      proc.child = child;
      let ready = false;
      child.on('message', (m) => {
        if (ready || !isReadyMessage(m)) return;
        ready = true;
        resolveReady();
      });
      let buf = '';
      const onData = (d: Buffer, stream: NodeJS.WriteStream) => {
        if (inherit) stream.write(d);
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          proc.lines.push(line);
          if (proc.lines.length > 2000) proc.lines.shift();
        }
      };
      child.stdout!.on('data', (d: Buffer) => onData(d, process.stdout));
      child.stderr!.on('data', (d: Buffer) => onData(d, process.stderr));
      child.once('exit', (code, signal) => {
        if (!ready) reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${proc.lines.slice(-20).join('\n')}`));
      });
    });
  return start().then(() => proc);
}

export async function startLocalCluster(opts: LocalClusterOptions): Promise<LocalCluster> {
  const dataDir = resolve(opts.dataDir);
  ensurePrivateDir(dataDir);
  // One seed for every worker (workers never generate one): made here once, as embedded mode would, and handed over.
  await loadOrCreateSeed({ configured: null, dataDir, logger: createLogger('silent'), allowGenerate: true });
  const seed = readFileSync(join(dataDir, 'vault-seed'), 'utf8').trim();
  // One refund-token key for every edge (edges never generate one), kept beside the seed as embedded mode keeps it.
  const gatewaySecret = localGatewaySecret(join(dataDir, 'gateway-secret'));
  const nats = await startNatsServer({ dir: join(dataDir, 'nats'), port: opts.natsPort });
  const inherit = opts.inheritOutput ?? false;
  const common = { ROUTER_DATA_DIR: dataDir, ROUTER_NATS_URL: nats.url, ROUTER_VAULT_SEED: seed, ...opts.env };
  let n = 0;
  const workers: ClusterProcess[] = [];
  // Every process of the host listens for its own metrics: one port each.
  const metricsPortOf = async (index: number): Promise<number | null> =>
    opts.metricsPort === null ? null : opts.metricsPort === undefined ? freePort() : opts.metricsPort + index;
  const metricsEnv = (port: number | null) => ({ ROUTER_METRICS_PORT: port === null ? 'off' : String(port) });
  const addWorker = async () => {
    const id = `worker-${++n}`;
    const w = await onFreshPorts(async () => {
      const metricsPort = await metricsPortOf(n);
      return launch(
        id,
        ['worker'],
        {
          // A worker listens only for its metrics: on loopback, as the edge's listeners here.
          ROUTER_HOST: '127.0.0.1',
          ...common, ...metricsEnv(metricsPort),
          ROUTER_WORKER_ID: id, ROUTER_NATS_USER: NATS_USERS.worker.user, ROUTER_NATS_PASSWORD: NATS_USERS.worker.pass,
        },
        inherit,
        metricsPort,
      );
    });
    workers.push(w);
    return w;
  };
  try {
    for (let i = 0; i < opts.workers; i++) await addWorker();
    const { edge, portA, portB, portC, devPort } = await onFreshPorts(async () => {
      const ports = {
        portA: opts.portA ?? (await freePort()),
        portB: opts.portB ?? (await freePort()),
        portC: opts.portC ?? (await freePort()),
        devPort: opts.devPort ?? (await freePort()),
      };
      const edgeMetricsPort = await metricsPortOf(0);
      const edge = await launch(
        'edge',
        ['edge'],
        {
          ...common,
          ...metricsEnv(edgeMetricsPort),
          ROUTER_PORT_A: String(ports.portA),
          ROUTER_PORT_B: String(ports.portB),
          ROUTER_PORT_C: String(ports.portC),
          ROUTER_GATEWAY_SECRET: gatewaySecret,
          ROUTER_HOST: '127.0.0.1',
          ROUTER_DEV_LISTENER: 'on',
          ROUTER_DEV_PORT: String(ports.devPort),
          ROUTER_NATS_USER: NATS_USERS.router.user,
          ROUTER_NATS_PASSWORD: NATS_USERS.router.pass,
        },
        inherit,
        edgeMetricsPort,
      );
      return { edge, ...ports };
    });
    return {
      nats,
      workers,
      edge,
      url: `http://127.0.0.1:${portA}`,
      urlB: `http://127.0.0.1:${portB}`,
      urlC: `http://127.0.0.1:${portC}`,
      devUrl: `http://127.0.0.1:${devPort}`,
      dataDir,
      addWorker,
      async stop() {
        await Promise.all([edge, ...workers].map((p) => p.kill('SIGTERM').catch(() => undefined)));
        await nats.stop();
      },
    };
  } catch (err) {
    await Promise.all(workers.map((w) => w.kill()));
    await nats.stop('SIGKILL');
    throw err;
  }
}

/** `<dataDir>/gateway-secret` (the format embedded mode writes: 32 random bytes as hex, mode 0600), created if absent. */
function localGatewaySecret(file: string): string {
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(file, 'utf8').trim();
}
