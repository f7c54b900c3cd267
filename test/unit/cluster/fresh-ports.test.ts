// A child process is launched again on fresh ports when another process took a chosen port before the child
// listened; any other failure is the caller's at once. The servers' own words for a taken port are recognised.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilBinary } from '../../../src/chains/evm/anvil.js';
import { startNatsServer } from '../../../src/cluster/nats-server.js';
import { isPortTaken, onFreshPorts } from '../../../src/cluster/ports.js';

const taken = () => new Error('edge exited (1) before it was ready:\nswap-router: failed to start: listen EADDRINUSE: address already in use 127.0.0.1:46771');

describe('onFreshPorts', () => {
  it('a port taken in the meantime: tried again, and the next launch is answered', async () => {
    let tries = 0;
    const answer = await onFreshPorts(async () => {
      if (++tries === 1) throw taken();
      return 'ready';
    });
    expect(answer).toBe('ready');
    expect(tries).toBe(2);
  });

  it('any other failure is thrown at once', async () => {
    let tries = 0;
    await expect(onFreshPorts(async () => {
      tries++;
      throw new Error('worker exited (1) before it was ready: bad config');
    })).rejects.toThrow(/bad config/);
    expect(tries).toBe(1);
  });

  it('ports taken three times in a row: the last failure is thrown', async () => {
    let tries = 0;
    await expect(onFreshPorts(async () => {
      tries++;
      throw taken();
    })).rejects.toThrow(/EADDRINUSE/);
    expect(tries).toBe(3);
  });
});

/** What a binary writes to stderr when it runs with `args` until it exits. */
async function stderrOf(bin: string, args: string[]): Promise<string> {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await new Promise((r) => child.once('close', r));
  clearTimeout(timer);
  return err;
}

describe('A taken port in the words of each server the tests start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'router-ports-'));
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => holder.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('nats-server refused its port: the failure is a taken port', async () => {
    const conf = join(dir, 'nats.conf');
    writeFileSync(conf, `listen: 127.0.0.1:${port}\n`);
    const said = await stderrOf('nats-server', ['-c', conf]);
    expect(said).not.toBe('');
    expect(isPortTaken(new Error(said))).toBe(true);
    await expect(startNatsServer({ dir, port })).rejects.toSatisfy(isPortTaken);
  });

  it('anvil refused its port: the failure is a taken port', async () => {
    const said = await stderrOf(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port)]);
    expect(said).not.toBe('');
    expect(isPortTaken(new Error(said))).toBe(true);
  });

  it('a failure of another kind is not a taken port', () => {
    expect(isPortTaken(new Error('nats-server exited with 1\nnats: error parsing config file'))).toBe(false);
    expect(isPortTaken('EADDRINUSE')).toBe(false);
  });
});
