// Child process of the benchmarks: serves either a bare Koa JSON echo (the baseline) or the embedded service,
// on a free loopback port, and prints {"port": n} on stdout when ready.
import Koa from 'koa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createEmbeddedService } from '../src/service.js';

const kind = process.argv[2];
let app: Koa;
if (kind === 'echo') {
  app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    ctx.body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  });
} else if (kind === 'service') {
  // BENCH_DATA_ROOT puts the SQLite file elsewhere (the quote bench's tmpfs case: /dev/shm, where fsync is free).
  const dataDir = mkdtempSync(join(process.env.BENCH_DATA_ROOT ?? tmpdir(), 'router-bench-'));
  const config = loadConfig({ ...process.env, ROUTER_DATA_DIR: dataDir, ROUTER_LOG_LEVEL: 'silent' });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  app = service.appA;
} else {
  throw new Error('usage: serve.ts echo|service');
}
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 }) + '\n');
});
process.on('SIGTERM', () => process.exit(0));
