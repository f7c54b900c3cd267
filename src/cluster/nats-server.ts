// Starts a nats-server child process from nats.conf with the listen address and JetStream directory replaced, so
// tests, benchmarks and `npm run cluster` run the same server configuration as a deployment, on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnvironment } from '../config.js';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join, resolve } from 'node:path';
import { assertPortFree, onAskedOrFreePort } from './ports.js';

export interface NatsServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** SIGKILL (crash) or SIGTERM, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port and directory (JetStream state kept). */
  restart(): Promise<void>;
}

/** The users of nats.conf (local passwords; a deployment replaces them). */
export const NATS_USERS = {
  router: { user: 'router', pass: 'router-local' },
  worker: { user: 'worker', pass: 'worker-local' },
  admin: { user: 'admin', pass: 'admin-local' },
} as const;

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((res) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        res(true);
      });
      s.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts nats-server on `opts.port`, or on a free port chosen here; a chosen port that another process takes before
 * the server listens is replaced by a fresh one.
 */
export async function startNatsServer(opts: { dir: string; port?: number; confFile?: string; bin?: string }): Promise<NatsServer> {
  return onAskedOrFreePort(opts.port, (port) => startNatsServerOn(port, opts));
}

async function startNatsServerOn(port: number, opts: { dir: string; confFile?: string; bin?: string }): Promise<NatsServer> {
  const storeDir = resolve(opts.dir, 'jetstream');
  mkdirSync(storeDir, { recursive: true });
  const conf = readFileSync(opts.confFile ?? resolve('nats.conf'), 'utf8')
    .replace(/^listen:.*$/m, `listen: 127.0.0.1:${port}`)
    .replace(/store_dir:.*$/m, `store_dir: ${JSON.stringify(storeDir)}`);
  const confPath = join(opts.dir, 'nats.conf');
  writeFileSync(confPath, conf);
  const bin = opts.bin ?? 'nats-server';
  let child!: ChildProcess;
  const launch = async () => {
    await assertPortFree(port, 'nats-server');
    // One Go scheduler thread unless the environment says otherwise: this server shares the host's cores with the
    // router's processes, and at their request rates its idle threads spin and hand each message between threads
    // (futex, nanosleep) for more CPU than the message itself costs.
    child = spawn(bin, ['-c', confPath], { stdio: ['ignore', 'ignore', 'pipe'], env: { GOMAXPROCS: '1', ...childEnvironment({}) } });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    // The server's last words (a bind refused) can arrive after its exit: the message waits for its stderr to close.
    const closed = new Promise<void>((r) => child.once('close', () => r()));
    try {
      await waitForPort(port, child, 10_000);
    } catch (e) {
      child.kill('SIGKILL');
      await closed;
      throw new Error(`${(e as Error).message}\n${err}`);
    }
    server.child = child;
  };
  const server: NatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
    async restart() {
      await server.stop('SIGTERM');
      await launch();
    },
  };
  await launch();
  return server;
}
