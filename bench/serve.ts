// Child process of the benchmarks: serves a bare Koa JSON echo (the baseline), the embedded service, a bare node:http
// server that answers stored bytes after a wait (what the quote bench's client costs by itself), or the floor (the
// least a Koa service that stores its answer durably adds to that), on a free loopback port, and prints
// {"port": n} on stdout when ready.
import Koa from 'koa';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../src/checks.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createEmbeddedService } from '../src/service.js';
import { openWalDatabase } from '../src/store/sqlite-open.js';

/** A request's body parsed as JSON (an empty body as `{}`), as the echo and the floor read it. */
async function jsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const kind = process.argv[2];
let app: Koa | null = null;
let bare: http.Server | null = null;
if (kind === 'bare') {
  // PUT /bytes?key=k stores the body as the answer of `k`; POST /wait?key=k&ms=n reads the body, waits n ms and
  // answers the stored bytes, with the wait it actually took (a timer fires late by up to a few ms) in X-Waited-Ms.
  const answers = new Map<string, Buffer>();
  bare = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bare');
    const key = url.searchParams.get('key') ?? '';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'PUT' && url.pathname === '/bytes') {
        answers.set(key, Buffer.concat(chunks));
        res.writeHead(204).end();
        return;
      }
      const bytes = answers.get(key);
      if (req.method !== 'POST' || url.pathname !== '/wait' || !bytes) {
        res.writeHead(404).end();
        return;
      }
      const t0 = performance.now();
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length, 'x-waited-ms': String(performance.now() - t0) });
        res.end(bytes);
      }, Number(url.searchParams.get('ms') ?? 0));
    });
  });
} else if (kind === 'floor') {
  // The bare server's two calls through Koa, with what any service of this design does around its answer: the
  // request's JSON read, the answer less its candidates committed in the store's own mode (WAL, synchronous=FULL, on
  // the data dir's disk), and the answer's object stringified by Koa. No routing, actor, bus or rendering.
  const db = openWalDatabase(join(mkdtempSync(join(process.env.BENCH_DATA_ROOT ?? tmpdir(), 'router-floor-')), 'floor.sqlite'));
  db.exec('CREATE TABLE answers (id INTEGER PRIMARY KEY, request TEXT NOT NULL, answer TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO answers (request, answer) VALUES (?, ?)');
  const answers = new Map<string, Record<string, unknown>>();
  app = new Koa();
  app.use(async (ctx) => {
    const body = await jsonBody(ctx.req);
    const key = String(ctx.query.key ?? '');
    if (ctx.method === 'PUT' && ctx.path === '/bytes') {
      if (isObject(body)) answers.set(key, body);
      ctx.status = isObject(body) ? 204 : 400;
      return;
    }
    const answer = answers.get(key);
    if (ctx.method !== 'POST' || ctx.path !== '/wait' || !answer) return;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, Number(ctx.query.ms ?? 0)));
    ctx.set('x-waited-ms', String(performance.now() - t0));
    const { quote_candidates: _candidates, ...stored } = answer;
    db.transaction(() => insert.run(JSON.stringify(body), JSON.stringify(stored)))();
    ctx.body = answer;
  });
} else if (kind === 'echo') {
  app = new Koa();
  app.use(async (ctx) => {
    ctx.body = await jsonBody(ctx.req);
  });
} else if (kind === 'service') {
  // BENCH_DATA_ROOT puts the SQLite file elsewhere (the quote bench's tmpfs case: /dev/shm, where fsync is free).
  const dataDir = mkdtempSync(join(process.env.BENCH_DATA_ROOT ?? tmpdir(), 'router-bench-'));
  const config = loadConfig({ ...process.env, ROUTER_DATA_DIR: dataDir, ROUTER_LOG_LEVEL: 'silent' });
  const service = await createEmbeddedService(config, { logger: createLogger('silent') });
  await service.start();
  app = service.appA;
} else {
  throw new Error('usage: serve.ts echo|service|bare|floor');
}
const server = bare ?? http.createServer(app!.callback());
// A keep-alive connection outlives the bench's longest pause (a quote at latency scale 1 takes ~6 s, and the bare
// server's call as long): with Node's default of 5 s, a server would close a connection just as a client reuses it.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 }) + '\n');
});
process.on('SIGTERM', () => process.exit(0));
