// Faults on a real chain: the service as a child process (SIGKILLed and started again on the same data dir) wired to
// an anvil base node set up as `npm run devnet` sets it up. A JSON-RPC proxy in front of the node lets a test act at
// an exact point of a send: it sees every `eth_sendRawTransaction` and may hold it (the node never receives it) or
// pause the node before passing it on. Every order must be delivered with each of its transactions on chain once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  parseEventLogs,
  parseTransaction,
  type Address,
  type Hex,
  type Log,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_ACCOUNTS, rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { DEVNET_GAS, DEVNET_TREASURY, devnetServiceEnv, startDevnetChain } from '../../../src/chains/evm/devnet.js';
import { freePort } from '../../../src/cluster/ports.js';
import { waitFor } from '../../support/poll.js';
import { tokenAddress } from './support.js';

const USER = ANVIL_ACCOUNTS[2]!;
const MINTER = ANVIL_ACCOUNTS[3]!;
const USDC = tokenAddress('base', 'USDC');
const USDT = tokenAddress('base', 'USDT');
const AMOUNT_IN = 25_000_000n;

// ------------------------------------------------------------------ a JSON-RPC proxy with a hand on the sends

interface RawSend {
  raw: Hex;
  hash: Hex;
  to: string;
  data: string;
}

/** Decides what happens to a raw transaction on its way to the node: 'hold' keeps it from the node for good. */
type OnSend = (tx: RawSend) => Promise<'hold' | 'forward'> | 'hold' | 'forward';

async function rpcProxy(target: string) {
  let onSend: OnSend | null = null;
  const held: RawSend[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        let parsed: { method?: string; params?: unknown[] } | unknown[] = {};
        try {
          parsed = JSON.parse(body) as typeof parsed;
        } catch {
          /* forwarded as it came */
        }
        if (!Array.isArray(parsed) && parsed.method === 'eth_sendRawTransaction' && onSend) {
          const raw = parsed.params![0] as Hex;
          const tx = parseTransaction(raw);
          const send: RawSend = { raw, hash: keccak256(raw), to: (tx.to ?? '').toLowerCase(), data: (tx.data ?? '0x').toLowerCase() };
          // A held send gets no answer at all: to the service it is a broadcast that never completes.
          if ((await onSend(send)) === 'hold') {
            held.push(send);
            return;
          }
        }
        try {
          const r = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        } catch {
          res.destroy();
        }
      })();
    });
  });
  const port = await freePort();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    set onSend(f: OnSend | null) {
      onSend = f;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

// ------------------------------------------------------------------ the service as a child process

async function serviceProcess(dir: string, env: Record<string, string>) {
  const [portA, portB, portC, portDev] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${portA}`;
  let child: ChildProcess | null = null;
  // The last lines the service wrote, shown when an order does not complete.
  let tail = '';
  const start = async () => {
    const c = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env, ...env, ROUTER_DATA_DIR: dir, ROUTER_PORT_A: String(portA), ROUTER_PORT_B: String(portB), ROUTER_PORT_C: String(portC),
        ROUTER_DEV_PORT: String(portDev), ROUTER_HOST: '127.0.0.1', ROUTER_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    c.stderr!.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-6000)));
    child = c;
    const end = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {
        /* not listening yet */
      }
      if (c.exitCode !== null || Date.now() > end) throw new Error(`service did not start:\n${tail}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const c = child!;
    const exited = c.exitCode === null && c.signalCode === null ? once(c, 'exit') : null;
    c.kill('SIGKILL');
    await exited;
    child = null;
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, 'exit');
    c.kill('SIGTERM');
    const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
    child = null;
  };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const get = async (id: string) => (await (await fetch(`${base}/order/${id}`)).json()) as Record<string, any>;
  return { start, kill, stop, post, get, tail: () => tail };
}

// ------------------------------------------------------------------ fixture

let dir: string;
let node: AnvilNode;
let proxy: Awaited<ReturnType<typeof rpcProxy>>;
let svc: Awaited<ReturnType<typeof serviceProcess>>;
let pub: ReturnType<typeof createPublicClient>;
const user = () => createWalletClient({ account: privateKeyToAccount(USER.privateKey as Hex), transport: http(node.url) });
const timings: string[] = [];
let baseline: OnChain | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'router-evm-faults-'));
  // The devnet's setup: tokens placed, anvil's first account the treasury with a float of every token, its second
  // the gas account; only the port is a free one.
  node = await startDevnetChain('base');
  proxy = await rpcProxy(node.url);
  pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
  await mintDevToken(node.url, USDC, USER.address as Address, 100n * AMOUNT_IN, { from: MINTER.address as Address });
  svc = await serviceProcess(dir, {
    ...devnetServiceEnv(new Map([['base', { url: proxy.url }]])),
    // Venue failures would add retries (and their backoff) that have nothing to do with the chain's faults, and
    // simulated venue latency makes each quote take seconds; the chain's own timings are what is measured.
    ROUTER_SIM_FAILURES: 'off',
    ROUTER_SIM_LATENCY_SCALE: '0',
    ROUTER_DEPOSIT_POLL_MS: '200',
  });
  await svc.start();
}, 60_000);

afterAll(async () => {
  node?.resume();
  await svc?.stop();
  await proxy?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (timings.length > 0) console.log(`deposit block → payout receipt (service as a process on the devnet's setup, deposit poll 200 ms, venue latency 0):\n  ${timings.join('\n  ')}`);
});

// ------------------------------------------------------------------ an order and what the chain holds of it

interface Order {
  id: string;
  deposit: Address;
  destination: Address;
  /** Transactions the treasury and the gas account had signed before the order. */
  signedBefore: { treasury: number; gas: number };
}

/** Transactions an account has signed, mined or not. */
const signedBy = (address: string) => pub.getTransactionCount({ address: address as Address, blockTag: 'pending' });

async function placeOrder(): Promise<Order> {
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: false });
  expect(q.status).toBe(200);
  const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
  expect(o.status).toBe(201);
  const signedBefore = { treasury: await signedBy(DEVNET_TREASURY.address), gas: await signedBy(DEVNET_GAS.address) };
  return { id: o.body.id, deposit: getAddress(o.body.deposit_address), destination, signedBefore };
}

/** The user pays the deposit address; answers the deposit's block and when its receipt arrived. */
async function pay(o: Order): Promise<{ block: bigint; at: number }> {
  const hash = await user().writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [o.deposit, AMOUNT_IN] });
  const r = await pub.waitForTransactionReceipt({ hash });
  expect(r.status).toBe('success');
  return { block: r.blockNumber, at: Date.now() };
}

/** Polls the node for the payout's Transfer log to the destination; answers it with the moment it was seen. */
async function payoutSeen(o: Order, ms: number): Promise<{ log: Log; at: number }> {
  const logs = await waitFor(
    () => pub.getLogs({ address: USDT, event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer')!, args: { to: o.destination }, fromBlock: 0n }),
    (l) => l.length > 0,
    () => `no payout to ${o.destination} within ${ms} ms:\n${svc.tail()}`,
    ms,
  );
  return { log: logs[0]!, at: Date.now() };
}

async function delivered(o: Order, ms = 20_000): Promise<Record<string, any>> {
  const read = async (): Promise<Record<string, any> | null> => {
    try {
      return await svc.get(o.id);
    } catch {
      return null; // the service is restarting
    }
  };
  const got = await waitFor(read, (g) => g?.status === 'delivered', (g) => `order ${o.id} not delivered: ${JSON.stringify(g)}\n${svc.tail()}`, ms, 100);
  return got!;
}

interface OnChain {
  /** USDT Transfer logs to the destination (the payout). */
  payouts: Array<{ from: string; value: bigint; tx: Hex }>;
  /** USDC Transfer logs from the deposit address (the sweeps), one per key. */
  sweeps: Array<{ to: string; value: bigint }>;
  /** Transactions from the gas account to the deposit address (gas top-ups). */
  topUps: number;
  /** Transactions the deposit address signed. */
  signedByDeposit: number;
  /** Transactions the treasury and the gas account signed during the order (one order runs at a time here). */
  signedByTreasury: number;
  signedByGas: number;
}

async function onChain(o: Order): Promise<OnChain> {
  const head = await pub.getBlockNumber();
  const logs = await pub.getLogs({ event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer')!, fromBlock: 0n, toBlock: head });
  const parsed = parseEventLogs({ abi: erc20Abi, logs, eventName: 'Transfer' });
  const payouts = parsed
    .filter((l) => l.address.toLowerCase() === USDT.toLowerCase() && l.args.to.toLowerCase() === o.destination.toLowerCase())
    .map((l) => ({ from: l.args.from.toLowerCase(), value: l.args.value, tx: l.transactionHash }));
  const sweeps = parsed
    .filter((l) => l.address.toLowerCase() === USDC.toLowerCase() && l.args.from.toLowerCase() === o.deposit.toLowerCase())
    .map((l) => ({ to: l.args.to.toLowerCase(), value: l.args.value }));
  let topUps = 0;
  let signedByDeposit = 0;
  for (let n = 0n; n <= head; n++) {
    const block = await pub.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() === DEVNET_GAS.address.toLowerCase() && tx.to?.toLowerCase() === o.deposit.toLowerCase()) topUps++;
      if (tx.from.toLowerCase() === o.deposit.toLowerCase()) signedByDeposit++;
    }
  }
  return {
    payouts,
    sweeps,
    topUps,
    signedByDeposit,
    signedByTreasury: (await signedBy(DEVNET_TREASURY.address)) - o.signedBefore.treasury,
    signedByGas: (await signedBy(DEVNET_GAS.address)) - o.signedBefore.gas,
  };
}

/** One payout from the treasury of exactly amount_out; the deposit swept whole, as many sends and top-ups as a clean order. */
async function exactlyOnce(o: Order, done: Record<string, any>): Promise<OnChain> {
  const c = await onChain(o);
  const amountOut = BigInt(Math.round(Number(done.amount_out) * 1e6));
  expect(c.payouts).toEqual([{ from: DEVNET_TREASURY.address.toLowerCase(), value: amountOut, tx: expect.any(String) }]);
  expect(c.sweeps.reduce((s, t) => s + t.value, 0n)).toBe(AMOUNT_IN);
  expect(c.sweeps.every((t) => t.to === DEVNET_TREASURY.address.toLowerCase())).toBe(true);
  expect(await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [o.deposit] })).toBe(0n);
  if (baseline) {
    expect(c.sweeps.length).toBe(baseline.sweeps.length);
    expect(c.topUps).toBe(baseline.topUps);
    expect(c.signedByDeposit).toBe(baseline.signedByDeposit);
    // Nothing signed again after a restart: the router's accounts signed as many transactions as in a clean order.
    expect(c.signedByTreasury).toBe(baseline.signedByTreasury);
    expect(c.signedByGas).toBe(baseline.signedByGas);
  }
  return c;
}

function timed(label: string, dep: { block: bigint; at: number }, payout: { log: Log; at: number }): void {
  timings.push(`${label}: deposit block ${dep.block} → payout block ${payout.log.blockNumber}, ${payout.at - dep.at} ms`);
}

// ------------------------------------------------------------------ the faults

describe('faults on a real base node: the service killed mid-send and the node stopped mid-order', () => {
  it('a clean order (the reference): delivered, one payout, the deposit swept', async () => {
    const o = await placeOrder();
    const dep = await pay(o);
    const payout = await payoutSeen(o, 20_000);
    timed('clean', dep, payout);
    const done = await delivered(o);
    baseline = await exactlyOnce(o, done);
    expect(baseline.payouts).toHaveLength(1);
    expect(baseline.sweeps.length).toBeGreaterThan(0);
    // The treasury signs the payout only (the sweeps come to it); the gas account signs the top-ups only.
    expect(baseline.signedByTreasury).toBe(1);
    expect(baseline.signedByGas).toBe(baseline.topUps);
    timings.push(
      `a clean order on chain: ${baseline.topUps} gas top-ups, ${baseline.sweeps.length} sweeps from the deposit address, 1 payout`,
    );
  }, 30_000);

  it('SIGKILL between signing and broadcast: the stored payout is broadcast after the restart, the same bytes, once', async () => {
    const o = await placeOrder();
    let caught!: () => void;
    const signed = new Promise<void>((r) => (caught = r));
    const dest = o.destination.toLowerCase().slice(2);
    // The payout (a USDT transfer to the destination) is signed and stored; the node never receives it, and stops
    // answering at that moment.
    proxy.onSend = async (tx) => {
      if (tx.to !== USDT.toLowerCase() || !tx.data.includes(dest)) return 'forward';
      await node.pause();
      caught();
      return 'hold';
    };
    const dep = await pay(o);
    await signed;
    await svc.kill();
    proxy.onSend = null;
    node.resume();
    const [held] = proxy.held.splice(0);
    expect(held).toBeDefined();
    expect(await rpcCall(node.url, 'eth_getTransactionByHash', [held!.hash])).toBeNull();

    await svc.start();
    const payout = await payoutSeen(o, 20_000);
    timed('SIGKILL between signing and broadcast (restart included)', dep, payout);
    const done = await delivered(o);
    const c = await exactlyOnce(o, done);
    // Signed once: the payout on chain is the transaction signed before the kill.
    expect(c.payouts[0]!.tx).toBe(held!.hash);
  }, 40_000);

  it('SIGKILL between broadcast and receipt: the restarted service finds the mined transaction and signs nothing new', async () => {
    const o = await placeOrder();
    const dep = await pay(o);
    let broadcast: Hex = '0x';
    await rpcCall(node.url, 'evm_setAutomine', [false]);
    try {
      // The service's first send of the order (the deposit address's gas top-up) reaches the mempool and stays there.
      const pending = await waitFor(
        async () => {
          const pool = await rpcCall<{ pending: Record<string, Record<string, { hash: Hex; from: string; nonce: string }>> }>(node.url, 'txpool_content');
          return Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
        },
        (p) => p.length > 0,
        () => `no transaction of the service reached the mempool:\n${svc.tail()}`,
        15_000,
      );
      expect(pending).toHaveLength(1);
      expect(pending[0]!.from.toLowerCase()).toBe(DEVNET_GAS.address.toLowerCase());
      await svc.kill();
      await rpcCall(node.url, 'evm_mine');
      broadcast = pending[0]!.hash;
    } finally {
      await rpcCall(node.url, 'evm_setAutomine', [true]);
    }
    expect((await pub.getTransactionReceipt({ hash: broadcast })).status).toBe('success');
    await svc.start();
    const payout = await payoutSeen(o, 20_000);
    timed('SIGKILL between broadcast and receipt (restart included)', dep, payout);
    const done = await delivered(o);
    // One top-up, as in the clean order: the restart answered the mined one instead of signing another.
    await exactlyOnce(o, done);
  }, 40_000);

  it('the node stopped for 10 s mid-order: the order waits and completes once it answers again', async () => {
    const o = await placeOrder();
    let paused!: () => void;
    const stopped = new Promise<void>((r) => (paused = r));
    // At the order's first send the node stops answering; the send reaches it only when it runs again.
    proxy.onSend = async (): Promise<'forward'> => {
      proxy.onSend = null;
      await node.pause();
      paused();
      return 'forward';
    };
    const dep = await pay(o);
    await stopped;
    await new Promise((r) => setTimeout(r, 10_000));
    expect((await svc.get(o.id)).status).not.toBe('delivered');
    node.resume();
    const payout = await payoutSeen(o, 30_000);
    timed('node paused 10 s at the first send', dep, payout);
    const done = await delivered(o);
    await exactlyOnce(o, done);
  }, 50_000);
});
