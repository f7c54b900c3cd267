// A Family C order on a real EVM chain: the service in-process wired to an anvil base node, an EXACT_INPUT quote of
// base USDC → base USDT, and the order's first execution step run as-is by a wallet (to, calldata, value), exactly
// as a client runs it; the order is `settled` in GET /orders and the destination's on-chain balance rises by
// `executedBuyAmount`.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { ANVIL_ACCOUNTS, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { waitFor } from '../../support/poll.js';
import type { RunningService } from '../../support/service.js';
import { useServiceOnBase, tokenAddress } from './support.js';

const TREASURY = ANVIL_ACCOUNTS[0]!;
const USER = ANVIL_ACCOUNTS[2]!;
const MINTER = ANVIL_ACCOUNTS[3]!;
const USDC = tokenAddress('base', 'USDC');
const USDT = tokenAddress('base', 'USDT');
const USDC_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: USDC.toLowerCase(), decimals: 6 } };
const USDT_BASE = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: USDT.toLowerCase(), decimals: 6 } };

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

const getJson = async (url: string) => (await (await fetch(url)).json()) as Record<string, any>;

/** Polls GET /orders for the destination until the order is `settled` (or a terminal failure). */
async function settled(orderId: string, destination: string): Promise<Record<string, any>> {
  const listed = async () => (await getJson(`${svc.urlC}/orders?destination=${destination}&limit=100`)).items as Array<Record<string, any>>;
  const item = await waitFor(
    async () => (await listed()).find((i) => i.orderId === orderId),
    (i) => i?.status === 'settled' || i?.status === 'failed' || i?.status === 'refunded',
    (i) => `order ${orderId} not settled: ${JSON.stringify(i)}`,
    20_000,
    100,
  );
  return item!;
}

describe('Family C on a real base node: the client runs executionSteps[0] with a wallet', () => {
  it('EXACT_INPUT base USDC → base USDT: the step as-is funds the order, settled, the destination receives executedBuyAmount on chain', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const user = createWalletClient({ account: privateKeyToAccount(USER.privateKey as Hex), transport: http(node.url) });
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const amount = 40_000_000n;

    const q = await svc.post(`${svc.urlC}/quote`, { type: 'EXACT_INPUT', from: USDC_BASE, to: USDT_BASE, amount: String(amount), slippageBps: 50 });
    expect(q.status).toBe(200);
    const o = await svc.post(`${svc.urlC}/order/market`, { id: q.body.id, destinationAddress: destination, refundAddress: USER.address, senderAddress: USER.address });
    expect(o.status).toBe(201);
    const [step] = o.body.executionSteps as Array<Record<string, any>>;
    expect(step).toMatchObject({ action: 'evm_call', kind: 'transfer_erc20', chainId: 8453, value: '0' });

    // The wallet needs the USDC the step moves; DevToken's mint is open on dev chains.
    await mintDevToken(node.url, USDC, USER.address as Address, amount, { from: MINTER.address as Address });
    const before = await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });

    // The step exactly as the API gave it: the wallet checks the chain id it names.
    expect(await pub.getChainId()).toBe(step!.chainId);
    const hash = await user.sendTransaction({ chain: null, to: step!.to as Address, data: step!.calldata as Hex, value: BigInt(step!.value) });
    const funded = await pub.waitForTransactionReceipt({ hash });
    expect(funded.status).toBe('success');

    const item = await settled(o.body.orderId, destination);
    expect(item.status).toBe('settled');
    expect(item).toMatchObject({ quoteMode: 'exact_input', executedSellAmount: String(amount), depositTxHash: hash });
    expect(BigInt(item.executedBuyAmount)).toBeGreaterThanOrEqual(BigInt(q.body.to.minimum));

    const after = await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });
    expect(after - before).toBe(BigInt(item.executedBuyAmount));
    // The payout hash Family C shows is the real transaction that paid the destination.
    const payout = await pub.getTransactionReceipt({ hash: item.payoutTxHash as Hex });
    expect(payout.status).toBe('success');
    expect(payout.from.toLowerCase()).toBe(TREASURY.address.toLowerCase());

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 30_000);
});
