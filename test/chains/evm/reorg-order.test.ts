// A reorg on a real anvil base node removes the block of a Family A order's deposit while the order waits for its
// confirmations (ROUTER_EVM_CONFIRMATIONS_BASE=4): the deposit feed finds the replaced blocks, the hybrid facade books
// the deposit back and the order hears `deposit.vanished`, so it awaits a deposit again with books that match the
// chain; a new real deposit then completes it, and the money audit is clean. The same signed deposit mined again
// after the reorg is booked anew and funds the order again.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import type { OrderContext } from '../../../machines/order.machine.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { ANVIL_ACCOUNTS, rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import type { RunningService } from '../../support/service.js';
import { useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USER = ANVIL_ACCOUNTS[2]!;
const USDC = tokenAddress('base', 'USDC');
const USDT = tokenAddress('base', 'USDT');
const REQUIRED = 4;

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s), { ROUTER_EVM_CONFIRMATIONS_BASE: String(REQUIRED) });


const mine = (blocks: number) => rpcCall(node.url, 'anvil_mine', [`0x${blocks.toString(16)}`]);

describe('a reorg removing a Family A deposit on a real base node', () => {
  it('funded → the deposit block is replaced → awaiting_deposit, booked back; a new deposit delivers; the audit is clean', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const user = createWalletClient({ account: privateKeyToAccount(USER.privateKey as Hex), transport: http(node.url) });
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const usdc = parseChainAsset('base.usdc', 'from').id;
    expect(svc.service.chains.requiredConfirmations('base')).toBe(REQUIRED);

    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
    expect(o.status).toBe(201);
    const id = o.body.id as string;
    const deposit = o.body.deposit_address as Address;
    const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');

    const pay = async () => {
      const mint = await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, amountIn] });
      await pub.waitForTransactionReceipt({ hash: mint });
      const hash = await user.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [deposit, amountIn] });
      const receipt = await pub.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      return receipt;
    };

    // The deposit is mined and gets a second block on top: seen (funded), 2 of the 4 confirmations execution needs.
    const first = await pay();
    await mine(1);
    const funded = await untilOrderStatus(svc, id, ['funded', 'executing', 'delivered'], 10_000);
    expect(funded.status).toBe('funded');
    expect(funded.refund_address?.toLowerCase()).toBe(USER.address.toLowerCase());
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(amountIn);

    // Both blocks replaced by empty ones: the deposit's transaction is no longer on the chain.
    await rpcCall(node.url, 'anvil_reorg', [2, []]);
    await expect(pub.getTransactionReceipt({ hash: first.transactionHash })).rejects.toThrow();
    expect(await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [deposit] })).toBe(0n);

    const back = await untilOrderStatus(svc, id, ['awaiting_deposit'], 10_000);
    expect(back.status).toBe('awaiting_deposit');
    // The refund address came from the vanished deposit's sender: none is known any more.
    expect(back.refund_address).toBeNull();
    const stored = await svc.service.store.load('order', id);
    expect((stored!.snapshot as { context: OrderContext }).context.deposits).toEqual([]);
    // The books match the chain: the deposit address holds nothing, and no transfer into it is listed.
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(0n);
    expect(await svc.service.chains.transfers({ chain: 'base', address: deposit })).toEqual([]);
    expect(await svc.service.chains.transfers({ txId: first.transactionHash })).toEqual([]);
    // Asked again (as a feed that failed to tell would): the same deposit, booked back once.
    const again = await svc.service.chains.vanished!('base', Number(first.blockNumber));
    expect(again.map((d) => [d.txId, d.to, d.amount])).toEqual([[first.transactionHash, deposit.toLowerCase(), amountIn]]);
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(0n);

    // A new real deposit, confirmed by blocks on top, is executed and delivered.
    const second = await pay();
    await mine(REQUIRED - 1);
    const done = await untilOrderStatus(svc, id, ['delivered', 'stalled', 'frozen', 'refunded', 'expired'], 30_000);
    expect(done.status).toBe('delivered');
    expect(done.refund_address?.toLowerCase()).toBe(USER.address.toLowerCase());
    const after = (await svc.service.store.load('order', id))!.snapshot as { context: OrderContext };
    expect(after.context.deposits.map((d) => d.txId)).toEqual([second.transactionHash]);
    expect(after.context.refunds).toEqual([]);
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(0n);
    const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
    expect(await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] })).toBe(amountOut);

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);

  it('the same signed deposit mined again after the reorg: booked anew, the order funded again by it and delivered', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const account = privateKeyToAccount(USER.privateKey as Hex);
    const user = createWalletClient({ account, transport: http(node.url) });
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const usdc = parseChainAsset('base.usdc', 'from').id;
    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '10', return_full_route: true });
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
    expect(o.status).toBe(201);
    const id = o.body.id as string;
    const deposit = o.body.deposit_address as Address;
    const amountIn = parseAmount('10', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
    const mint = await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [account.address, amountIn] });
    await pub.waitForTransactionReceipt({ hash: mint });

    // Signed once; the same bytes are sent again after the reorg (the user's nonce is free again then).
    const request = await user.prepareTransactionRequest({
      chain: null, to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [deposit, amountIn] }),
    });
    const raw = await user.signTransaction({ ...request, chain: null });
    const hash = await pub.sendRawTransaction({ serializedTransaction: raw });
    await pub.waitForTransactionReceipt({ hash });
    await mine(1);
    expect((await untilOrderStatus(svc, id, ['funded'], 10_000)).status).toBe('funded');

    await rpcCall(node.url, 'anvil_reorg', [2, []]);
    expect((await untilOrderStatus(svc, id, ['awaiting_deposit'], 10_000)).status).toBe('awaiting_deposit');
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(0n);

    expect(await pub.sendRawTransaction({ serializedTransaction: raw })).toBe(hash);
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect((await untilOrderStatus(svc, id, ['funded'], 10_000)).status).toBe('funded');
    // Booked again under its second key: the address holds the amount once, listed once with the real hash.
    expect(await svc.service.chains.balanceOf('base', deposit, usdc)).toBe(amountIn);
    const listed = await svc.service.chains.transfers({ chain: 'base', address: deposit });
    expect(listed.map((t) => [t.key, t.txId, t.amount])).toEqual([[expect.stringMatching(/^deposit:base:0x[0-9a-f]{64}:\d+:1$/), hash, amountIn]]);

    await mine(REQUIRED - 1);
    const done = await untilOrderStatus(svc, id, ['delivered', 'stalled', 'frozen', 'refunded', 'expired'], 30_000);
    expect(done.status).toBe('delivered');
    const after = (await svc.service.store.load('order', id))!.snapshot as { context: OrderContext };
    expect(after.context.deposits.map((d) => d.txId)).toEqual([hash]);
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);
});
