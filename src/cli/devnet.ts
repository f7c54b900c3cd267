// `npm run devnet`: real local EVM chains for people to try the router on. anvil nodes for ethereum (chain id 1,
// port 8545) and base (8453, port 8546) with DevToken at the registry's token addresses, anvil's first dev account
// as the treasury (minted a float of every registry token: the payouts come from it) and its second as the gas
// account, then the embedded service (`src/main.ts`) wired to them, its output forwarded. Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChainName } from '../assets/types.js';
import type { AnvilNode } from '../chains/evm/anvil.js';
import { DEVNET_CHAINS, DEVNET_FLOAT_UNITS, DEVNET_GAS, DEVNET_TREASURY, DEVNET_USER, devnetServiceEnv, startDevnetChain } from '../chains/evm/devnet.js';
import { childEnvironment, loadConfig, loadDevnetPorts } from '../config.js';

const MAIN = resolve('src/main.ts');

const config = loadConfig();
const ports = loadDevnetPorts(Object.fromEntries(DEVNET_CHAINS.map((c) => [c.chain, c.port])) as Record<ChainName, number>);
// A fresh data dir: the nodes start empty every time, and a store from an earlier run would hold cursors, nonces
// and deposit addresses of chains that no longer exist.
const dataDir = mkdtempSync(join(tmpdir(), 'router-devnet-'));
const nodes = new Map<ChainName, AnvilNode>();
let service: ChildProcess | null = null;
let stopping = false;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    const s = service;
    if (s && s.exitCode === null && s.signalCode === null) {
      const exited = once(s, 'exit');
      s.kill('SIGTERM');
      await exited;
    }
    for (const node of nodes.values()) await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
    console.error('devnet: stopped (service, nodes and data dir)');
  }
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  for (const { chain } of DEVNET_CHAINS) {
    const node = await startDevnetChain(chain, { port: ports[chain] });
    nodes.set(chain, node);
    console.error(`devnet: ${chain} (chain id ${node.chainId}) at ${node.url}: tokens placed, treasury holds ${DEVNET_FLOAT_UNITS} of each`);
  }
} catch (e) {
  console.error(`devnet: ${(e as Error).message}`);
  await stop(1);
}

service = spawn(process.execPath, ['--import', 'tsx', MAIN], {
  // The service gets this process's environment (its ROUTER_* settings) plus the devnet's nodes, keys and data dir.
  env: childEnvironment({ ...devnetServiceEnv(nodes), ROUTER_DATA_DIR: dataDir }),
  stdio: ['ignore', 'inherit', 'inherit'],
});
service.on('exit', (code, signal) => {
  if (stopping) return;
  console.error(`devnet: the service exited (${code ?? signal}); stopping the nodes`);
  void stop(code ?? 1);
});

const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
const urlA = `http://${host}:${config.portA}`;
const end = Date.now() + 60_000;
for (;;) {
  try {
    if ((await fetch(`${urlA}/health`)).ok) break;
  } catch {
    /* not listening yet */
  }
  if (Date.now() > end) {
    console.error(`devnet: the service did not answer ${urlA}/health within 60 s`);
    await stop(1);
  }
  await new Promise((r) => setTimeout(r, 200));
}

console.error(
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
