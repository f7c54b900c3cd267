// The embedded service built in-process (no child process) on a temp data dir, listening on a free loopback port.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createEmbeddedService, type EmbeddedService } from '../../src/service.js';

export interface RunningService {
  url: string;
  /** Family B (the gateway). */
  urlB: string;
  /** Family C (typed currencies). */
  urlC: string;
  /** The dev listener (deposits, clock). */
  devUrl: string;
  service: EmbeddedService;
  dataDir: string;
  post(path: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** The tests' embedded config on `dir`: instant venues without failures, silent, no shedding on lag; `env` wins. */
export function testServiceConfig(dir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    ROUTER_DATA_DIR: dir,
    ROUTER_SIM_LATENCY_SCALE: '0',
    ROUTER_SIM_FAILURES: 'off',
    ROUTER_LOG_LEVEL: 'silent',
    // No shedding on event loop lag or long turns: other test files load the same cores (see vitest.config.ts).
    ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0',
    ROUTER_SHED_TURN_BUDGET_MS: '0',
    ...env,
  });
}

/** `logTo`: where the service's log lines go (its level is ROUTER_LOG_LEVEL, `silent` unless set); stdout otherwise. */
export async function startService(env: Record<string, string> = {}, dataDir?: string, logTo?: NodeJS.WritableStream): Promise<RunningService> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'router-svc-'));
  const config = testServiceConfig(dir, env);
  const service = await createEmbeddedService(config, { logger: createLogger(config.logLevel, logTo) });
  await service.start();
  const server: Server = service.appA.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const serverB: Server = service.appB.listen(0, '127.0.0.1');
  await new Promise((r) => serverB.once('listening', r));
  const addrB = serverB.address();
  const urlB = `http://127.0.0.1:${typeof addrB === 'object' && addrB ? addrB.port : 0}`;
  const serverC: Server = service.appC.listen(0, '127.0.0.1');
  await new Promise((r) => serverC.once('listening', r));
  const addrC = serverC.address();
  const urlC = `http://127.0.0.1:${typeof addrC === 'object' && addrC ? addrC.port : 0}`;
  const dev: Server = service.devApp!.listen(0, '127.0.0.1');
  await new Promise((r) => dev.once('listening', r));
  const devAddr = dev.address();
  const devUrl = `http://127.0.0.1:${typeof devAddr === 'object' && devAddr ? devAddr.port : 0}`;
  return {
    url,
    urlB,
    urlC,
    devUrl,
    service,
    dataDir: dir,
    async post(path, body) {
      const res = await fetch((path.startsWith('http') ? '' : url) + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async stop() {
      await new Promise((r) => server.close(r));
      await new Promise((r) => serverB.close(r));
      await new Promise((r) => serverC.close(r));
      await new Promise((r) => dev.close(r));
      await service.close();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
