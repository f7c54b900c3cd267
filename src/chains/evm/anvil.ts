// Starts a local anvil node as a child process on a loopback port, so tests and the devnet run real EVM chains
// (real JSON-RPC, real receipts and logs) without any network access. The binary comes from the npm platform
// package `@foundry-rs/anvil-linux-amd64` (an optional dependency: the wrapper `@foundry-rs/anvil` lists packages for
// every platform, and the registry reachable here holds only this one, so a lock with the wrapper cannot `npm ci`).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assertPortFree, onAskedOrFreePort } from '../../cluster/ports.js';
import type { Logger } from '../../log.js';

/** anvil's default dev mnemonic: the accounts below are funded with 10,000 ETH on every node started without `mnemonic`. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** The first funded accounts of ANVIL_MNEMONIC (m/44'/60'/0'/0/i), well known and only ever for local dev chains. */
export const ANVIL_ACCOUNTS = [
  { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' },
  { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' },
  { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' },
  { address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' },
  { address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' },
] as const satisfies readonly { address: `0x${string}`; privateKey: `0x${string}` }[];

/** The private keys of ANVIL_ACCOUNTS, in the same order. */
export const ANVIL_PRIVATE_KEYS = ANVIL_ACCOUNTS.map((a) => a.privateKey);

export const ANVIL_PACKAGE = '@foundry-rs/anvil-linux-amd64';

export interface AnvilNode {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  chainId: number;
  child: ChildProcess;
  /** SIGTERM, and wait for the exit (SIGKILL after 5 s if the process ignores it). */
  stop(): Promise<void>;
  /** SIGKILL without waiting: a crash. */
  kill(): void;
  /**
   * SIGSTOP: the node keeps its port but stops answering, as a hung or unreachable RPC endpoint does. Resolves once
   * every thread of the process is stopped (a thread busy on a CPU still runs for a moment after the signal).
   */
  pause(): Promise<void>;
  /** SIGCONT: the node answers again, with the requests queued while it was paused. */
  resume(): void;
}

export interface StartAnvilOptions {
  chainId: number;
  /** A free loopback port when absent. */
  port?: number;
  /** null or absent: automine (one block per transaction); a number: interval mining every that many seconds. */
  blockTimeSec?: number | null;
  /** With `blockTimeSec`: a block per transaction too (automine), so sends are mined at once and an idle chain still
   *  gains confirmations. */
  mixedMining?: boolean;
  /** The first block's base fee per gas (wei); anvil's 1 gwei when absent. Later blocks follow EIP-1559 from it. */
  baseFeePerGas?: bigint;
  /** ANVIL_MNEMONIC when absent. */
  mnemonic?: string;
  /** Path of an anvil binary; the one of ANVIL_PACKAGE when absent. */
  bin?: string;
  /** How long to wait for `eth_chainId` to answer (10 s when absent). */
  startTimeoutMs?: number;
  logger?: Logger;
}

/** The anvil binary of the npm platform package; fails naming the package when it is not installed. */
export function anvilBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`anvil: only ${ANVIL_PACKAGE} is wired (this is ${process.platform}-${process.arch}); pass opts.bin`);
  }
  let pkgJson: string;
  try {
    pkgJson = createRequire(import.meta.url).resolve(`${ANVIL_PACKAGE}/package.json`);
  } catch {
    throw new Error(`anvil: the package ${ANVIL_PACKAGE} is not installed (npm ci installs it as an optional dependency on linux x64)`);
  }
  const bin = join(dirname(pkgJson), 'bin', 'anvil');
  if (!existsSync(bin)) throw new Error(`anvil: ${ANVIL_PACKAGE} is installed but has no binary at ${bin}`);
  return bin;
}

/** One JSON-RPC call with a deadline; throws on timeout, transport errors and JSON-RPC errors. */
export async function rpcCall<T = unknown>(url: string, method: string, params: unknown[] = [], timeoutMs = 5_000): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
  return body.result as T;
}

/** Waits until every thread of `pid` is in the stopped state ('T' in /proc/<pid>/task/<tid>/stat; Linux only). */
async function waitStopped(pid: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  const taskDir = `/proc/${pid}/task`;
  if (!existsSync(taskDir)) {
    // No procfs: a short grace period stands in for the check.
    await new Promise((r) => setTimeout(r, 50));
    return;
  }
  for (;;) {
    const running = readdirSync(taskDir).some((tid) => {
      try {
        const stat = readFileSync(`${taskDir}/${tid}/stat`, 'utf8');
        // The state follows the command name, which sits in parentheses and may itself hold spaces or parentheses.
        const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        return state !== 'T' && state !== 't';
      } catch {
        return false; // the thread has exited
      }
    });
    if (!running) return;
    if (Date.now() > until) throw new Error(`anvil (pid ${pid}) did not stop within ${timeoutMs} ms of SIGSTOP`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitForChainId(url: string, chainId: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (exited(child)) throw new Error(`anvil exited with ${child.exitCode ?? child.signalCode} before answering`);
    try {
      const id = await rpcCall<string>(url, 'eth_chainId', [], 1_000);
      if (Number(id) !== chainId) throw new Error(`anvil at ${url} answers chain id ${Number(id)}, asked ${chainId}`);
      return;
    } catch (e) {
      // Another process on the port answering a different chain id is not a startup delay.
      if ((e as Error).message.includes('answers chain id')) throw e;
    }
    if (Date.now() > until) throw new Error(`anvil did not answer eth_chainId at ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts anvil on `opts.port`, or on a free port chosen here; a chosen port that another process takes before anvil
 * listens is replaced by a fresh one.
 */
export async function startAnvil(opts: StartAnvilOptions): Promise<AnvilNode> {
  return onAskedOrFreePort(opts.port, (port) => startAnvilOn(port, opts));
}

async function startAnvilOn(port: number, opts: StartAnvilOptions): Promise<AnvilNode> {
  await assertPortFree(port, 'anvil');
  const url = `http://127.0.0.1:${port}`;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(opts.chainId), '--mnemonic', opts.mnemonic ?? ANVIL_MNEMONIC, '--quiet'];
  if (opts.blockTimeSec != null) args.push('--block-time', String(opts.blockTimeSec));
  if (opts.blockTimeSec != null && opts.mixedMining) args.push('--mixed-mining');
  if (opts.baseFeePerGas !== undefined) args.push('--block-base-fee-per-gas', String(opts.baseFeePerGas));
  const bin = opts.bin ?? anvilBinary();
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  // A spawn failure (ENOENT, EACCES) arrives as an 'error' event; keep it for the startup error message.
  child.on('error', (e) => (stderr += `\n${e.message}`));
  try {
    await waitForChainId(url, opts.chainId, child, opts.startTimeoutMs ?? 10_000);
  } catch (e) {
    if (!exited(child)) child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${stderr}`.trimEnd());
  }
  opts.logger?.info({ url, chainId: opts.chainId, pid: child.pid }, 'anvil started');
  return {
    url,
    port,
    chainId: opts.chainId,
    child,
    async stop() {
      if (exited(child)) return;
      const done = once(child, 'exit');
      // A paused process queues SIGTERM until it runs again.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await done;
      clearTimeout(timer);
      opts.logger?.info({ url }, 'anvil stopped');
    },
    kill() {
      if (!exited(child)) child.kill('SIGKILL');
    },
    async pause() {
      if (exited(child)) return;
      child.kill('SIGSTOP');
      await waitStopped(child.pid!, 2_000);
    },
    resume() {
      if (!exited(child)) child.kill('SIGCONT');
    },
  };
}
