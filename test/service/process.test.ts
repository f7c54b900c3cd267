// `npm start` as users run it: a child process in embedded mode that serves Family A, drains on SIGTERM, and
// refuses an invalid configuration with a message naming the variable; `npm run cluster` and `npm run devnet`, whose
// child processes the entry point stops on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { freePort } from '../../src/cluster/ports.js';
import { rpcCall } from '../../src/chains/evm/anvil.js';

function start(env: Record<string, string>, mode: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return { child, out: () => out, err: () => err };
}

describe('npm start runs the service in embedded mode (no other server needed)', () => {
  it('answers GET /health and POST /quote, logs JSON lines with a request id, and drains on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-proc-'));
    const port = await freePort();
    const p = start({ ROUTER_PORT_A: String(port), ROUTER_PORT_B: String(await freePort()), ROUTER_PORT_C: String(await freePort()), ROUTER_DEV_PORT: String(await freePort()), ROUTER_HOST: '127.0.0.1', ROUTER_DATA_DIR: dir, ROUTER_SIM_LATENCY_SCALE: '0' });
    try {
      await pollUntil(() => p.out().includes('"listening"'), (up) => up, 15_000);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await health.text()).toBe('ok');
      const q = await fetch(`http://127.0.0.1:${port}/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'proc-test-1' },
        body: JSON.stringify({ from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '100', return_full_route: true, quote_mode: 'fast' }),
      });
      expect([200, 422]).toContain(q.status);
      expect(q.headers.get('x-request-id')).toBe('proc-test-1');
      p.child.kill('SIGTERM');
      // 'close', not 'exit': 'exit' can come before the pipes hand over the last lines the process wrote.
      const [code] = await once(p.child, 'close');
      expect(code).toBe(0);
      const lines = p.out().trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.some((l) => l.req_id === 'proc-test-1')).toBe(true);
      expect(lines.at(-1).msg).toBe('stopped');
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a client slower than ROUTER_HTTP_READ_TIMEOUT_MS to send its request gets 408 and its connection closed, logged once at warn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-proc-'));
    const port = await freePort();
    const p = start({
      ROUTER_PORT_A: String(port), ROUTER_PORT_B: String(await freePort()), ROUTER_PORT_C: String(await freePort()), ROUTER_DEV_PORT: String(await freePort()),
      ROUTER_HOST: '127.0.0.1', ROUTER_DATA_DIR: dir, ROUTER_HTTP_READ_TIMEOUT_MS: '1000',
    });
    try {
      await pollUntil(() => p.out().includes('"listening"'), (up) => up, 15_000);
      const socket = createConnection(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      socket.write('POST /quote HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
      const t0 = performance.now();
      await once(socket, 'close');
      const closedMs = performance.now() - t0;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      // The deadline plus at most one check of the connections (every second).
      expect(closedMs).toBeLessThan(4_000);
      const lines = () => p.out().trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
      await pollUntil(async () => lines().filter((l) => l.msg.includes('too slowly')), (found) => found.length === 1, 5_000);
      expect(lines().filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an invalid setting stops the start with a message naming the variable', async () => {
    const p = start({ ROUTER_SIM_LATENCY_SCALE: 'fast' });
    const [code] = await once(p.child, 'close');
    expect(code).toBe(2);
    expect(p.err()).toMatch(/ROUTER_SIM_LATENCY_SCALE/);
  });

  it('a setting a cluster process requires, missing, stops the start the same way (an edge without ROUTER_GATEWAY_SECRET)', async () => {
    // Empty is unset; the NATS address is never reached, the secret is checked first.
    const p = start({ ROUTER_GATEWAY_SECRET: '', ROUTER_NATS_URL: 'nats://127.0.0.1:1' }, ['edge']);
    const [code] = await once(p.child, 'close');
    expect(code).toBe(2);
    expect(p.err()).toMatch(/invalid configuration: ROUTER_GATEWAY_SECRET is required/);
  });

  it('a worker without ROUTER_VAULT_SEED refuses at once, before it waits for an unreachable NATS', async () => {
    const p = start({ ROUTER_VAULT_SEED: '', ROUTER_NATS_URL: 'nats://127.0.0.1:1' }, ['worker']);
    const [code] = await once(p.child, 'close');
    expect(code).toBe(2);
    expect(p.err()).toMatch(/invalid configuration: ROUTER_VAULT_SEED is required/);
  });

  it('a worker given a real EVM chain refuses at once: the treasury\'s sends need one signing process', async () => {
    const key = `0x${'11'.repeat(32)}`;
    const seed = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const evm = { ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:1', ROUTER_EVM_TREASURY_KEY: key, ROUTER_EVM_GAS_KEY: `0x${'22'.repeat(32)}` };
    const p = start({ ...evm, ROUTER_VAULT_SEED: seed, ROUTER_NATS_URL: 'nats://127.0.0.1:1' }, ['worker']);
    const [code] = await once(p.child, 'close');
    expect(code).toBe(2);
    expect(p.err()).toMatch(/invalid configuration: ROUTER_EVM_RPC_BASE is for embedded mode only/);
    expect(p.err()).not.toContain('11'.repeat(32));
  });
});

/** True while something accepts connections on the loopback port. */
async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run cluster and npm run devnet run through the entry point, which stops their processes on SIGTERM', () => {
  it('cluster: nats-server, one worker and an edge answer; SIGTERM stops them all and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-cluster-'));
    const [nats, portA] = [await freePort(), await freePort()];
    const p = start({
      ROUTER_NATS_URL: `nats://127.0.0.1:${nats}`, ROUTER_CLUSTER_WORKERS: '1', ROUTER_PORT_A: String(portA), ROUTER_PORT_B: String(await freePort()),
      ROUTER_PORT_C: String(await freePort()), ROUTER_DEV_PORT: String(await freePort()), ROUTER_METRICS_PORT: 'off', ROUTER_DATA_DIR: dir,
      ROUTER_SIM_LATENCY_SCALE: '0',
    }, ['cluster']);
    try {
      await pollUntil(() => p.err().includes('Local cluster up'), (up) => up, 60_000);
      expect(p.err()).toContain(`NATS nats://127.0.0.1:${nats}, 1 workers, Family A http://127.0.0.1:${portA}`);
      expect((await fetch(`http://127.0.0.1:${portA}/health`)).status).toBe(200);
      p.child.kill('SIGTERM');
      const [code] = await once(p.child, 'close');
      expect(code).toBe(0);
      expect(await listening(nats)).toBe(false);
      expect(await listening(portA)).toBe(false);
    } finally {
      p.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('devnet: two anvil nodes (an idle one still makes blocks) and the service on them answer; SIGTERM stops them all, removes the data dir and exits 0', async () => {
    const [eth, base, portA] = [await freePort(), await freePort(), await freePort()];
    const p = start({
      ROUTER_DEVNET_PORT_ETHEREUM: String(eth), ROUTER_DEVNET_PORT_BASE: String(base), ROUTER_PORT_A: String(portA), ROUTER_PORT_B: String(await freePort()),
      ROUTER_PORT_C: String(await freePort()), ROUTER_DEV_PORT: String(await freePort()), ROUTER_HOST: '127.0.0.1', ROUTER_METRICS_PORT: 'off',
    }, ['devnet']);
    try {
      await pollUntil(() => p.err().includes('devnet up:'), (up) => up, 90_000);
      const dataDir = /data (\/\S+)/.exec(p.err())?.[1];
      expect(dataDir).toMatch(/router-devnet-/);
      expect((await fetch(`http://127.0.0.1:${portA}/health`)).status).toBe(200);
      expect(await listening(eth)).toBe(true);
      // Nobody sends on ethereum, yet its height grows: a deposit there gets its three confirmations.
      const height = async () => Number(await rpcCall<string>(`http://127.0.0.1:${eth}`, 'eth_blockNumber', []));
      const first = await height();
      expect(await pollUntil(height, (h) => h > first, 10_000)).toBeGreaterThan(first);
      p.child.kill('SIGTERM');
      const [code] = await once(p.child, 'close');
      expect(code).toBe(0);
      expect(p.err()).toContain('devnet: stopped (service, nodes and data dir)');
      expect([await listening(eth), await listening(base), await listening(portA)]).toEqual([false, false, false]);
      expect(existsSync(dataDir!)).toBe(false);
    } finally {
      p.child.kill('SIGKILL');
    }
  }, 120_000);
});
