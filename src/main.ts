// The entry point. `npm start` (no argument, or `embedded`) runs the embedded service: one process, SQLite under
// ROUTER_DATA_DIR, simulated venues. `worker` and `edge` run the two halves of a cluster over NATS. `cluster`
// (`npm run cluster`) starts a local cluster of those, and `devnet` (`npm run devnet`) local EVM chains with the
// embedded service on them, both as child processes. Only this file listens, handles signals and drains.
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { startDevnet } from './cli/devnet.js';
import { oneOf } from './checks.js';
import { createEdge } from './cluster/edge.js';
import { startConfiguredCluster } from './cluster/local.js';
import { tellReady } from './cluster/ready.js';
import { createWorker } from './cluster/worker.js';
import { loadConfig, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger, type Logger } from './log.js';
import { createEmbeddedService, type EmbeddedService } from './service.js';

const VERSION = '0.2.47';
const MODES = ['embedded', 'worker', 'edge', 'cluster', 'devnet'] as const;
const isMode = oneOf(MODES);

/** A server for `app` whose clients have `readTimeoutMs` to send a whole request (Node answers 408 past it), checked
 *  every second rather than Node's default thirty. */
async function listen(app: Koa, port: number, host: string, readTimeoutMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer({ requestTimeout: readTimeoutMs, headersTimeout: readTimeoutMs, connectionsCheckingInterval: 1_000 }, app.callback());
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const addr = server.address();
  return { server, port: typeof addr === 'object' && addr ? addr.port : port };
}

/** Runs `close` on SIGTERM/SIGINT after closing the servers; exits 0, or 1 when draining takes too long. */
function onSignals(logger: Logger, servers: Server[], close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.error('drain took too long; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    for (const s of servers) {
      s.close();
      s.closeIdleConnections();
    }
    await close();
    logger.info('stopped');
    // The log destination is asynchronous: exit once the last lines are written, or they can be lost.
    logger.flush(() => process.exit(0));
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** `cluster` and `devnet`: child processes for people to try the router on, stopped (exit 0) on SIGTERM/SIGINT, or
 *  with the service's exit code when the devnet's service exits on its own. */
async function superviseChildren(mode: 'cluster' | 'devnet', config: Config): Promise<void> {
  const tell = (text: string) => console.error(text);
  const started = mode === 'cluster' ? { stop: (await startConfiguredCluster(config, tell)).stop, ended: null } : await startDevnet(config, tell);
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await started.stop();
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  void started.ended?.then((code) => stop(code));
}

/** The embedded service, built and running (it takes messages before its ports listen). */
async function startedEmbedded(config: Config, logger: Logger): Promise<EmbeddedService> {
  const service = await createEmbeddedService(config, { logger });
  await service.start();
  return service;
}

async function main(): Promise<void> {
  const mode = process.argv[2] ?? 'embedded';
  if (!isMode(mode)) {
    console.error(`swap-router: unknown mode "${mode}"; use one of ${MODES.join(', ')}.`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`swap-router: invalid configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  if (mode === 'cluster' || mode === 'devnet') return superviseChildren(mode, config);
  const logger = createLogger(config.logLevel).child({ mode });

  if (mode === 'worker') {
    const worker = await createWorker(config, { logger, version: VERSION });
    const servers: Server[] = [];
    if (worker.metricsApp && config.metrics.port !== null) {
      const m = await listen(worker.metricsApp, config.metrics.port, config.host, config.httpReadTimeoutMs);
      servers.push(m.server);
      logger.info({ host: config.host, port: m.port }, 'metrics listening');
    }
    onSignals(logger, servers, () => worker.close());
    await worker.start();
    tellReady(mode);
    return;
  }

  const built = mode === 'edge' ? await createEdge(config, { logger, devListener: config.dev.requested }) : await startedEmbedded(config, logger);
  const a = await listen(built.appA, config.portA, config.host, config.httpReadTimeoutMs);
  const b = await listen(built.appB, config.portB, config.host, config.httpReadTimeoutMs);
  const c = await listen(built.appC, config.portC, config.host, config.httpReadTimeoutMs);
  const servers = [a.server, b.server, c.server];
  // The dev listener moves money and time on the simulated world: loopback only, whatever ROUTER_HOST says.
  let devPort: number | null = null;
  if (built.devApp) {
    const d = await listen(built.devApp, config.dev.port, '127.0.0.1', config.httpReadTimeoutMs);
    servers.push(d.server);
    devPort = d.port;
  }
  if ('metricsApp' in built && built.metricsApp && config.metrics.port !== null) {
    const m = await listen(built.metricsApp, config.metrics.port, config.host, config.httpReadTimeoutMs);
    servers.push(m.server);
    logger.info({ host: config.host, port: m.port }, 'metrics listening');
  }
  logger.info({ family: 'A', host: config.host, port: a.port, devPort, dataDir: config.dataDir }, 'listening');
  logger.info({ family: 'B', host: config.host, port: b.port }, 'listening');
  logger.info({ family: 'C', host: config.host, port: c.port }, 'listening');
  onSignals(logger, servers, () => built.close());
  tellReady(mode);
}

main().catch((err) => {
  // A setting found missing or invalid while the service is built (a cluster process's seed or secret) is the same
  // refusal as one loadConfig finds: exit code 2, naming the variable.
  if (err instanceof ConfigError) {
    console.error(`swap-router: invalid configuration: ${err.message}`);
    process.exit(2);
  }
  console.error('swap-router: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
