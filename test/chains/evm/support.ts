// Shared fixture of the EVM tests: a real anvil node answering a registry chain's id, with DevToken placed at
// every registry ERC-20 address of that chain.
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Address, Hex, TransactionReceipt } from 'viem';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CHAINS } from '../../../src/assets/chains.js';
import { findAsset } from '../../../src/assets/registry.js';
import type { ChainName } from '../../../src/assets/types.js';
import { ANVIL_ACCOUNTS, startAnvil, type AnvilNode, type StartAnvilOptions } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi, placeDevTokens } from '../../../src/chains/evm/dev-token.js';
import { openEvmChain, type EvmChain } from '../../../src/chains/evm/ledger.js';
import { DEVNET_GAS, DEVNET_TREASURY, devnetServiceEnv, startDevnetChain } from '../../../src/chains/evm/devnet.js';
import { readOrderRecords } from '../../../src/orders/audit-run.js';
import { pollUntil } from '../../support/poll.js';
import { startService, type RunningService } from '../../support/service.js';
import { memStore } from './ledger-support.js';

/** Starts anvil with the chain's registry chain id and places the chain's tokens; stop it in afterAll. */
export async function startDevChain(chain: ChainName, opts: Omit<StartAnvilOptions, 'chainId'> = {}): Promise<AnvilNode> {
  const chainId = CHAINS[chain].evmChainId;
  if (chainId === undefined) throw new Error(`startDevChain: ${chain} is not an EVM chain`);
  const node = await startAnvil({ ...opts, chainId });
  try {
    await placeDevTokens(node.url, chain);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/** The checksummed registry address of a token of the chain (throws for an unknown symbol or a native coin). */
export function tokenAddress(chain: ChainName, symbol: string): Address {
  const a = findAsset(chain, symbol);
  if (!a || a.native || a.address === null) throw new Error(`tokenAddress: no ERC-20 ${symbol} on ${chain} in the registry`);
  return getAddress(a.address);
}

/** The registry's USDC and USDT on base, DevTokens on the test nodes: the pair the base end-to-end tests order. */
export const BASE_USDC = tokenAddress('base', 'USDC');
export const BASE_USDT = tokenAddress('base', 'USDT');

/** anvil's dev accounts in the roles the EVM end-to-end tests give them (the devnet's treasury and gas account). */
export const DEV_ROLES = {
  treasury: DEVNET_TREASURY,
  gas: DEVNET_GAS,
  user: ANVIL_ACCOUNTS[2]!,
  minter: ANVIL_ACCOUNTS[3]!,
} as const;

/**
 * The embedded service in-process with base on a real anvil node set up as the devnet sets it up (tokens placed,
 * the treasury holding a float of every token, since venues are simulated and the payouts come from it); other
 * chains stay simulated. Stop both in afterAll with `stop()`.
 */
export async function startServiceOnBase(env: Record<string, string> = {}, logTo?: NodeJS.WritableStream): Promise<{ node: AnvilNode; svc: RunningService; stop(): Promise<void> }> {
  const node = await startDevnetChain('base');
  try {
    const svc = await startService({ ...devnetServiceEnv(new Map([['base', node]])), ROUTER_DEPOSIT_POLL_MS: '100', ...env }, undefined, logTo);
    return { node, svc, stop: async () => { await svc.stop(); await node.stop(); } };
  } catch (e) {
    await node.stop();
    throw e;
  }
}

/** A base devnet node for the tests of the enclosing file or describe block, and the EVM ledger over it (signing for
 *  nobody): started before them (the callback receives both), stopped after them. */
export function useLedgerOnBase(started: (s: { node: AnvilNode; chain: EvmChain }) => void): void {
  let node: AnvilNode | undefined;
  beforeAll(async () => {
    node = await startDevChain('base');
    started({ node, chain: openEvmChain({ chain: 'base', rpcUrl: node.url, store: memStore(), signers: () => null }) });
  });
  afterAll(async () => {
    await node?.stop();
  });
}

/** The deposits an order recorded (from its stored snapshot): the id it knows each by, and its amount. */
export async function depositsOf(svc: RunningService, id: string): Promise<{ txId: string; amount: bigint }[]> {
  const records = readOrderRecords((await svc.service.store.load('order', id))!.snapshot);
  if (typeof records === 'string') throw new Error(records);
  return records.deposits.map((d) => ({ txId: d.txId, amount: d.amount }));
}

/** Log lines of a test's service kept in memory; the last ones print only when a test fails. */
const FAILURE_LOG_LINES = 200;

/** The service on a base devnet node for the tests of the enclosing file or describe block: started before them (the
 *  callback receives it), stopped after them. Its warn and error lines are kept and printed under a failed test, so a
 *  failure on a loaded CI machine says what the service saw; `logs` answers them (JSON lines) since the current test
 *  began. */
export function useServiceOnBase(started: (s: { node: AnvilNode; svc: RunningService; logs: () => string[] }) => void, env: Record<string, string> = {}): void {
  let stop: (() => Promise<void>) | undefined;
  let lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk).trimEnd());
      if (lines.length > 2 * FAILURE_LOG_LINES) lines = lines.slice(-FAILURE_LOG_LINES);
      done();
    },
  });
  beforeAll(async () => {
    const s = await startServiceOnBase({ ROUTER_LOG_LEVEL: 'warn', ...env }, sink);
    stop = s.stop;
    started({ ...s, logs: () => lines });
  }, 60_000);
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') console.error(`The service's last warn and error lines:\n${lines.slice(-FAILURE_LOG_LINES).join('\n')}`);
    lines = [];
  });
  afterAll(async () => {
    await stop?.();
  });
}

/** Polls Family A's GET /order/{id} until its status is one of `statuses` or `ms` passed; answers the last read. */
/** A fresh address nobody holds a key of: a destination whose balance only the order under test changes. */
export const freshAddress = (): Address => getAddress(privateKeyToAccount(generatePrivateKey()).address);

/** A Family A quote of `fromAmount` and its order paying `toAddress`, through the service: the order's answer. */
export async function quoteAndOrder(svc: RunningService, pair: { from: string; to: string }, fromAmount: string, toAddress: Address): Promise<Record<string, any>> {
  const q = await svc.post('/quote', { ...pair, from_amount: fromAmount, return_full_route: true });
  if (q.status !== 200) throw new Error(`quote ${pair.from} → ${pair.to} answered ${q.status}: ${JSON.stringify(q.body)}`);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: toAddress });
  if (o.status !== 201) throw new Error(`order of quote ${q.body.id} answered ${o.status}: ${JSON.stringify(o.body)}`);
  return o.body as Record<string, any>;
}

export async function untilOrderStatus(svc: RunningService, id: string, statuses: string[], ms: number): Promise<Record<string, any>> {
  return pollUntil(async () => (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>, (o) => statuses.includes(o.status), ms);
}

/** A node's public client (polling every 50 ms) and a wallet client of one of its dev accounts. */
export function devClients(url: string, privateKey: string) {
  return {
    pub: createPublicClient({ transport: http(url), pollingInterval: 50 }),
    user: createWalletClient({ account: privateKeyToAccount(privateKey as Hex), transport: http(url) }),
  };
}

/** The user mints `amount` of a DevToken and sends it to `to` (a deposit address): the transfer's receipt. */
export async function mintAndPay({ pub, user }: ReturnType<typeof devClients>, token: Address, to: Address, amount: bigint): Promise<TransactionReceipt> {
  await pub.waitForTransactionReceipt({ hash: await user.writeContract({ chain: null, address: token, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, amount] }) });
  return pub.waitForTransactionReceipt({ hash: await user.writeContract({ chain: null, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) });
}
