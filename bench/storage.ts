// Storage benchmark: the data dir's size under sustained quoting with `include_candidates` (the largest quotes), with
// a short retention, sampled every BENCH_SAMPLE_S seconds. Quotes stay valid ten minutes of service time; so that a
// run of minutes sees quotes expire and leave, the bench moves the embedded service's clock forward through the dev
// listener (BENCH_CLOCK_SPEED service seconds per wall second), exactly as the retention sweep reads it.
// Usage: npm run bench:storage   (BENCH_MINUTES=10 BENCH_SAMPLE_S=30 BENCH_CONNECTIONS=4 BENCH_CLOCK_SPEED=60
//        BENCH_RETENTION_MS=60000 by default; BENCH_MINUTES=1 BENCH_SAMPLE_S=10 for a short look)
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const SAMPLE_S = Number(process.env.BENCH_SAMPLE_S ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const CLOCK_SPEED = Number(process.env.BENCH_CLOCK_SPEED ?? 60);
const RETENTION_MS = Number(process.env.BENCH_RETENTION_MS ?? 60_000);

const QUOTE = { from: 'bitcoin.btc', to: 'arbitrum.usdc', from_amount: '0.5', return_full_route: true, include_candidates: true };

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'router-storage-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/storage.ts', 'serve'], {
    env: {
      ...process.env,
      ROUTER_DATA_DIR: dataDir,
      ROUTER_SIM_LATENCY_SCALE: '0',
      ROUTER_SIM_FAILURES: 'off',
      ROUTER_DEV_LISTENER: 'on',
      ROUTER_QUOTE_RETENTION_MS: String(RETENTION_MS),
      ROUTER_QUOTE_SWEEP_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, 'line')) as [string];
  const { port, devPort } = JSON.parse(line) as { port: number; devPort: number };

  let answered = 0;
  let failed = 0;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const instance = autocannon(
    {
      url: `http://127.0.0.1:${port}/quote`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUOTE),
      connections: CONNECTIONS,
      duration: MINUTES * 60,
    },
    () => finished(),
  );
  instance.on('response', (_client: unknown, status: number) => {
    if (status === 200) answered += 1;
    else failed += 1;
  });

  const started = Date.now();
  const clock = setInterval(() => {
    void fetch(`http://127.0.0.1:${devPort}/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: Math.round(CLOCK_SPEED * 1000) }),
    }).catch(() => undefined);
  }, 1000);
  const rows: Array<Record<string, number>> = [];
  const file = join(dataDir, 'router.sqlite');
  const size = (f: string) => (existsSync(f) ? statSync(f).size / 2 ** 20 : 0);
  const reader = new Database(file, { readonly: true, fileMustExist: true });
  const storedQuotes = reader.prepare<[], { n: number }>("SELECT count(*) AS n FROM actors WHERE kind = 'quote'");
  const sample = () => {
    const bytes = dirBytes(dataDir);
    rows.push({
      'wall s': Math.round((Date.now() - started) / 1000),
      'service min': +(((Date.now() - started) * CLOCK_SPEED) / 60_000).toFixed(1),
      'quotes answered': answered,
      'quotes stored': storedQuotes.get()!.n,
      'router.sqlite MiB': +size(file).toFixed(2),
      '-wal MiB': +size(`${file}-wal`).toFixed(2),
      'data dir MiB': +(bytes / 2 ** 20).toFixed(2),
    });
    console.log(JSON.stringify(rows.at(-1)));
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_S * 1000);
  await done;
  clearInterval(sampler);
  clearInterval(clock);
  sample();
  reader.close();
  child.kill('SIGTERM');
  await once(child, 'exit');
  rmSync(dataDir, { recursive: true, force: true });

  console.log(
    `\n${MINUTES} min of POST /quote (include_candidates, ${QUOTE.from}→${QUOTE.to}), ${CONNECTIONS} connections, ` +
      `service clock ×${CLOCK_SPEED}, ROUTER_QUOTE_RETENTION_MS=${RETENTION_MS}; ${answered} quotes answered, ${failed} not 200:`,
  );
  console.table(rows);
}

if (process.argv[2] === 'serve') {
  // The child: the embedded service on free loopback ports, its Family A and dev listener ports on stdout.
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/log.js');
  const { createEmbeddedService } = await import('../src/service.js');
  const config = loadConfig({ ...process.env, ROUTER_LOG_LEVEL: 'silent' });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  const port = async (app: typeof service.appA) => {
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  };
  const a = await port(service.appA);
  const dev = await port(service.devApp!);
  process.stdout.write(JSON.stringify({ port: a, devPort: dev }) + '\n');
  process.on('SIGTERM', () => {
    void service.close().then(() => process.exit(0));
  });
} else {
  await main();
}
