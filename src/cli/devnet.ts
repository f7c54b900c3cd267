// `npm run devnet` (`src/main.ts devnet`): real local EVM chains for people to try the router on. anvil nodes for
// ethereum (chain id 1, port 8545) and base (8453, port 8546) with DevToken at the registry's token addresses, anvil's
// first dev account as the treasury (minted a float of every registry token: the payouts come from it) and its second
// as the gas account, then the embedded service (`src/main.ts`) wired to them, its output forwarded. The entry point
// stops everything on Ctrl-C, or when the service exits on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChainName } from '../assets/types.js';
import type { AnvilNode } from '../chains/evm/anvil.js';
import { DEVNET_BLOCK_TIME_S, DEVNET_CHAINS, DEVNET_FLOAT_UNITS, DEVNET_GAS, DEVNET_TREASURY, DEVNET_USER, devnetServiceEnv, startDevnetChain } from '../chains/evm/devnet.js';
import { childEnvironment, loadDevnetPorts, type Config } from '../config.js';

const MAIN = resolve('src/main.ts');
const HEALTH_WAIT_MS = 60_000;

export interface Devnet {
  /** Stops the service, then the nodes, and removes the data dir; once, however often it is called. */
  stop(): Promise<void>;
  /** Settles with the service's exit code (1 for a signal) when it exits while the devnet is not stopping. */
  ended: Promise<number>;
}

/** Starts the nodes and the service wired to them; on a failure, stops what it started and throws. */
export async function startDevnet(config: Config, tell: (text: string) => void): Promise<Devnet> {
  const ports = loadDevnetPorts(Object.fromEntries(DEVNET_CHAINS.map((c) => [c.chain, c.port])) as Record<ChainName, number>);
  // A fresh data dir: the nodes start empty every time, and a store from an earlier run would hold cursors, nonces
  // and deposit addresses of chains that no longer exist.
  const dataDir = mkdtempSync(join(tmpdir(), 'router-devnet-'));
  const nodes = new Map<ChainName, AnvilNode>();
  let service: ChildProcess | null = null;
  let stopping: Promise<void> | null = null;
  let endedWith: (code: number) => void = () => {};
  const ended = new Promise<number>((r) => (endedWith = r));

  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      const s = service;
      if (s && s.exitCode === null && s.signalCode === null) {
        const exited = once(s, 'exit');
        s.kill('SIGTERM');
        await exited;
      }
      for (const node of nodes.values()) await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
      tell('devnet: stopped (service, nodes and data dir)');
    })());

  try {
    for (const { chain } of DEVNET_CHAINS) {
      // A block every DEVNET_BLOCK_TIME_S besides one per transaction: a chain nobody sends on still confirms deposits
      // (ethereum's orders wait for three blocks).
      const node = await startDevnetChain(chain, { port: ports[chain], blockTimeSec: DEVNET_BLOCK_TIME_S, mixedMining: true });
      nodes.set(chain, node);
      tell(`devnet: ${chain} (chain id ${node.chainId}) at ${node.url}: tokens placed, treasury holds ${DEVNET_FLOAT_UNITS} of each`);
    }
    service = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      // The service gets this process's environment (its ROUTER_* settings) plus the devnet's nodes, keys and data dir.
      env: childEnvironment({ ...devnetServiceEnv(nodes), ROUTER_DATA_DIR: dataDir }),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    service.on('exit', (code, signal) => {
      if (stopping) return;
      tell(`devnet: the service exited (${code ?? signal}); stopping the nodes`);
      endedWith(code ?? 1);
    });
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    const urlA = `http://${host}:${config.portA}`;
    const child = service;
    await healthy(urlA, () => child.exitCode !== null || child.signalCode !== null);
    tell(
      [
        '',
        'devnet up:',
        ...[...nodes].map(([chain, n]) => `  ${chain.padEnd(9)} ${n.url}  (chain id ${n.chainId})`),
        `  Family A  ${urlA}`,
        `  Family B  http://${host}:${config.portB}`,
        `  Family C  http://${host}:${config.portC}`,
        ...(config.dev.enabled ? [`  dev       http://${host}:${config.dev.port}`] : []),
        `  treasury  ${DEVNET_TREASURY.address}   gas account ${DEVNET_GAS.address}   data ${dataDir}`,
        `Pay a deposit address: npm run router -- devnet send --chain base --asset usdc --to <address> --amount 25`,
        `  (sender ${DEVNET_USER.address}, anvil's third dev account, unless --from-key)   Ctrl-C stops everything.`,
        '',
      ].join('\n'),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop, ended };
}

/** Waits until `url`/health answers, failing after a minute or once the service has exited. */
async function healthy(url: string, exited: () => boolean): Promise<void> {
  const end = Date.now() + HEALTH_WAIT_MS;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (exited()) throw new Error('the service exited before it answered /health');
    if (Date.now() > end) throw new Error(`the service did not answer ${url}/health within ${HEALTH_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
