// The entry point: `npm start` runs the embedded service (one process, SQLite under ROUTER_DATA_DIR, simulated
// venues). Only this file listens, handles signals and drains.
import type { Server } from 'node:http';
import { loadConfig, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './log.js';
import { createEmbeddedService } from './service.js';

async function main(): Promise<void> {
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
  const logger = createLogger(config.logLevel);
  const service = await createEmbeddedService(config, { logger });
  const server: Server = service.appA.listen(config.portA, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.portA;
  // The dev listener moves money and time on the simulated world: loopback only, whatever ROUTER_HOST says.
  let dev: Server | null = null;
  let devPort: number | null = null;
  if (service.devApp) {
    const d = service.devApp.listen(config.dev.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      d.once('listening', resolve);
      d.once('error', reject);
    });
    dev = d;
    const da = d.address();
    devPort = typeof da === 'object' && da ? da.port : config.dev.port;
  }
  logger.info({ family: 'A', host: config.host, port, devPort, dataDir: config.dataDir, mode: 'embedded' }, 'listening');

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
    server.close();
    server.closeIdleConnections();
    dev?.close();
    dev?.closeIdleConnections();
    await service.close();
    logger.info('stopped');
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('swap-router: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
