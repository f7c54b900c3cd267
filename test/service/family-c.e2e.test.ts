// Family C end to end through `npm start` (a child process, as a deployment runs it): a quote of each type, the order,
// a deposit made by following the returned execution step (its calldata decoded to find the recipient and amount),
// and the order `settled` in GET /orders with executed amounts equal to what the ledger moved; the same order read
// through Family A.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFunctionData, erc20Abi, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAsset, writeAmount } from '../../src/assets/index.js';
import { openSimChains } from '../../src/chains/index.js';
import { freePort } from '../../src/cluster/ports.js';
import { ManualClock } from '../../src/clock.js';
import { waitFor, waitUntil } from '../support/poll.js';

const SENDER = '0x000000000000000000000000000000000000dEaD';
const DEST = getAddress('0x9858effd232b4033e47d90003d41ec34ecaeda94');
const BASE_USDC = findAsset('base', 'USDC')!;
const BASE_ETH = findAsset('base', 'ETH')!;
const ARB_USDC = findAsset('arbitrum', 'USDC')!;
const USDC_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: BASE_USDC.address, decimals: 6 } };
const ETH_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'NATIVE', decimals: 18 } };
const USDC_ARB = { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: ARB_USDC.address, decimals: 6 } };

let dir: string;
let child: ChildProcess;
let urlA: string;
let urlC: string;
let dev: string;

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};
const getJson = async (url: string) => (await (await fetch(url)).json()) as Record<string, any>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'router-c-e2e-'));
  const [portA, portB, portC, portDev] = [await freePort(), await freePort(), await freePort(), await freePort()];
  urlA = `http://127.0.0.1:${portA}`;
  urlC = `http://127.0.0.1:${portC}`;
  dev = `http://127.0.0.1:${portDev}`;
  // `npm start` itself, in its own process group so that stopping it stops tsx and node under it too.
  child = spawn('npm', ['start', '--silent'], {
    env: {
      ...process.env, ROUTER_DATA_DIR: dir, ROUTER_PORT_A: String(portA), ROUTER_PORT_B: String(portB), ROUTER_PORT_C: String(portC),
      ROUTER_DEV_PORT: String(portDev), ROUTER_HOST: '127.0.0.1', ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off',
      ROUTER_DEPOSIT_POLL_MS: '50', ROUTER_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  await waitUntil(async () => {
    try {
      return (await fetch(`${urlC}/health`)).ok;
    } catch {
      return false; // not listening yet
    }
  }, 'npm start to serve Family C', 30_000, 100);
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    process.kill(-child.pid!, 'SIGTERM');
    await once(child, 'exit');
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Polls GET /orders (destination filter) until the order is `settled`. */
async function settled(orderId: string): Promise<Record<string, any>> {
  const listed = async () => (await getJson(`${urlC}/orders?destination=${DEST}&limit=100`)).items as Array<Record<string, any>>;
  const item = await waitFor(
    async () => (await listed()).find((i) => i.orderId === orderId),
    (i) => i?.status === 'settled',
    (i) => `order ${orderId} not settled: ${JSON.stringify(i)}`,
    20_000,
    100,
  );
  return item!;
}

/** What reached the destination on the ledger of the service's data dir. */
async function destinationBalance(): Promise<bigint> {
  const chains = openSimChains({ file: join(dir, 'router.sqlite'), clock: new ManualClock() });
  try {
    return await chains.balanceOf('arbitrum', DEST, ARB_USDC.id);
  } finally {
    await chains.close();
  }
}

describe('Family C end to end through npm start: quote, order, the client runs the step, settled', () => {
  it('EXACT_INPUT of an ERC-20: the transfer calldata names the deposit address and amount; settled with the ledger\'s amounts; the same order through Family A', async () => {
    const before = await destinationBalance();
    const q = await post(`${urlC}/quote`, { type: 'EXACT_INPUT', from: USDC_BASE, to: USDC_ARB, amount: '5000000', slippageBps: 50 });
    expect(q.status).toBe(200);
    expect(q.body.mode).toBe('exact_input');
    const swap = await post(`${urlC}/order/market`, { id: q.body.id, destinationAddress: DEST, refundAddress: SENDER, senderAddress: SENDER });
    expect(swap.status).toBe(201);
    const [step] = swap.body.executionSteps as Array<Record<string, any>>;
    expect(step).toMatchObject({ action: 'evm_call', kind: 'transfer_erc20', chainId: 8453, value: '0' });
    expect(step!.to.toLowerCase()).toBe(BASE_USDC.address);
    const call = decodeFunctionData({ abi: erc20Abi, data: step!.calldata });
    expect(call.functionName).toBe('transfer');
    const [recipient, amount] = call.args as readonly [string, bigint];
    expect(amount).toBe(5_000_000n);

    const d = await post(`${dev}/deposits`, { asset: 'base.usdc', from: SENDER, to: recipient, amount: writeAmount(amount, BASE_USDC, 'formatted') });
    expect(d.status).toBe(201);
    const item = await settled(swap.body.orderId);
    const moved = (await destinationBalance()) - before;
    expect(item).toMatchObject({ quoteMode: 'exact_input', executedSellAmount: '5000000', executedBuyAmount: String(moved), depositTxHash: d.body.tx_id });
    expect(BigInt(item.executedBuyAmount)).toBeGreaterThanOrEqual(BigInt(q.body.to.minimum));
    expect(item.payoutTxHash).toMatch(/^0x/);

    const a = await getJson(`${urlA}/order/${swap.body.orderId}`);
    expect(a).toMatchObject({ status: 'delivered', deposit_address: recipient });
    // Family C quotes in base units, so Family A writes the order's amounts raw.
    expect(a.amount_out).toBe(String(moved));
  }, 60_000);

  it('EXACT_OUTPUT of the native coin: the step sends from.expected as value, and exactly the asked amount arrives', async () => {
    const before = await destinationBalance();
    const q = await post(`${urlC}/quote`, { type: 'EXACT_OUTPUT', from: ETH_BASE, to: USDC_ARB, amount: '100000000', slippageBps: 100 });
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({ mode: 'exact_output', to: { expected: '100000000' } });
    expect(BigInt(q.body.from.maximum)).toBeGreaterThanOrEqual(BigInt(q.body.from.expected));
    const swap = await post(`${urlC}/order/market`, { id: q.body.id, destinationAddress: DEST, refundAddress: SENDER, senderAddress: SENDER });
    expect(swap.status).toBe(201);
    const [step] = swap.body.executionSteps as Array<Record<string, any>>;
    expect(step).toMatchObject({ action: 'evm_call', kind: 'transfer_native', chainId: 8453, calldata: '0x', value: q.body.from.expected });

    await post(`${dev}/deposits`, { asset: 'base.eth', from: SENDER, to: step!.to, amount: writeAmount(BigInt(step!.value), BASE_ETH, 'formatted') });
    const item = await settled(swap.body.orderId);
    expect((await destinationBalance()) - before).toBe(100_000_000n);
    expect(item).toMatchObject({ quoteMode: 'exact_output', executedBuyAmount: '100000000', quotedBuyAmount: '100000000', executedSellAmount: q.body.from.expected });
  }, 60_000);
});
