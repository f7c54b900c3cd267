// A reorg on a real anvil base node removes the blocks of a delivered Family A order's own sends (gas top-ups,
// sweeps, the payout) after they were booked; anvil does not put reorged transactions back in its pool. The router
// broadcasts the same signed transactions again: each is mined once more with its hash, the destination holds
// exactly amount_out, the books list the payout at its new block, and the money audit is clean. A reorg that takes
// the deposit too (deeper than the confirmations the order waited for): the sweeps revert when mined again, the
// payout is never sent again (its nonce is taken by a self-transfer), the audit names the difference, and the next
// order is paid out as usual.
import { describe, expect, it } from 'vitest';
import { erc20Abi, getAddress, parseEventLogs, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { UNRESTORED_SENDS_SPACE, type UnrestoredSend } from '../../../src/chains/evm/mined-sends.js';
import { pollUntil } from '../../support/poll.js';
import type { RunningService } from '../../support/service.js';
import { BASE_USDC as USDC, BASE_USDT as USDT, DEV_ROLES, devClients, mintAndPay, untilOrderStatus, useServiceOnBase } from './support.js';

const USER = DEV_ROLES.user;

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

describe('a reorg removing the router\'s own sends on a real base node', () => {
  it('a delivered order\'s top-ups, sweeps and payout are replaced by empty blocks: broadcast again, each mined once, the audit clean', async () => {
    const clients = devClients(node.url, USER.privateKey);
    const { pub } = clients;
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const usdtOf = (a: Address) => pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [a] });

    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
    expect(o.status).toBe(201);
    const id = o.body.id as string;
    const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
    const deposit = await mintAndPay(clients, USDC, o.body.deposit_address as Address, amountIn);

    const done = await untilOrderStatus(svc, id, ['delivered', 'stalled', 'frozen', 'refunded'], 20_000);
    expect(done.status).toBe('delivered');
    const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
    expect(await usdtOf(destination)).toBe(amountOut);
    const [payout] = await svc.service.chains.transfers({ key: `${id}:deliver` });
    expect(payout).toBeDefined();

    // The router's sends: every transaction mined after the deposit (automine: one block each).
    const top = Number(await pub.getBlockNumber());
    const sends: Hex[] = [];
    for (let n = Number(deposit.blockNumber) + 1; n <= top; n++) {
      sends.push(...((await pub.getBlock({ blockNumber: BigInt(n) })).transactions as Hex[]));
    }
    expect(sends).toContain(payout!.txId);
    expect(sends.length).toBeGreaterThanOrEqual(3);
    const treasuryNonce = await pub.getTransactionCount({ address: DEV_ROLES.treasury.address as Address });

    // Every block after the deposit replaced by an empty one: the sends are off the chain, the payout with them.
    await rpcCall(node.url, 'anvil_reorg', [top - Number(deposit.blockNumber), []]);
    await expect(pub.getTransactionReceipt({ hash: payout!.txId as Hex })).rejects.toThrow();
    expect(await usdtOf(destination)).toBe(0n);

    // Broadcast again by the router: each of its transactions mined once more, successful, under its own hash.
    expect(await pollUntil(() => usdtOf(destination), (b) => b === amountOut, 15_000, 100)).toBe(amountOut);
    const receipts = await Promise.all(sends.map((hash) => pub.getTransactionReceipt({ hash })));
    expect(receipts.map((r) => r.status)).toEqual(sends.map(() => 'success'));
    expect(Math.min(...receipts.map((r) => Number(r.blockNumber)))).toBeGreaterThan(Number(deposit.blockNumber));
    const paid = receipts.find((r) => r.transactionHash === payout!.txId)!;
    const toDestination = parseEventLogs({ abi: erc20Abi, logs: paid.logs, eventName: 'Transfer' }).filter((l) => getAddress(l.args.to) === destination);
    expect(toDestination.map((l) => l.args.value)).toEqual([amountOut]);
    // Nothing signed anew: the treasury's nonce is where it was.
    expect(await pub.getTransactionCount({ address: DEV_ROLES.treasury.address as Address })).toBe(treasuryNonce);

    // The books list the payout at the block it is mined in now; the order is still delivered with the same hash.
    const rebooked = await pollUntil(
      async () => (await svc.service.chains.transfers({ key: `${id}:deliver` }))[0],
      (t) => t?.block === Number(paid.blockNumber),
      5_000,
      100,
    );
    expect(rebooked).toMatchObject({ txId: payout!.txId, block: Number(paid.blockNumber) });
    expect((await untilOrderStatus(svc, id, ['delivered'], 1_000)).status).toBe('delivered');

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 3, delayMs: 300 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);

  it('a reorg taking the deposit too: the sweeps revert, the payout is held and its nonce filled, the audit names both; the next order is delivered', async () => {
    const clients = devClients(node.url, USER.privateKey);
    const { pub } = clients;
    const treasury = DEV_ROLES.treasury.address as Address;
    const usdtOf = (a: Address) => pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [a] });
    const order = async () => {
      const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
      const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
      const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
      expect(o.status).toBe(201);
      const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
      const deposit = await mintAndPay(clients, USDC, o.body.deposit_address as Address, amountIn);
      const done = await untilOrderStatus(svc, o.body.id as string, ['delivered', 'stalled', 'frozen', 'refunded'], 20_000);
      expect(done.status).toBe('delivered');
      const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
      return { id: o.body.id as string, destination, deposit, amountIn, amountOut };
    };

    const first = await order();
    const [payout] = await svc.service.chains.transfers({ key: `${first.id}:deliver` });
    const top = Number(await pub.getBlockNumber());
    const treasuryNonce = await pub.getTransactionCount({ address: treasury });
    const usdtBefore = await usdtOf(treasury);
    // The deposit's block and every one after it replaced by empty blocks.
    await rpcCall(node.url, 'anvil_reorg', [top - Number(first.deposit.blockNumber) + 1, []]);

    // Both sweeps mined again and reverted; then the payout is held: its nonce taken by a self-transfer.
    const unrestoredSends = async (): Promise<UnrestoredSend[]> => JSON.parse((await svc.service.store.getKey(UNRESTORED_SENDS_SPACE, 'base')) ?? '[]') as UnrestoredSend[];
    const unrestored = await pollUntil(unrestoredSends, (u) => u.some((s) => s.reason === 'held' && s.key === `${first.id}:deliver`), 15_000, 100);
    // The first sweep (the step's cost) reverts; everything of the order after it is held.
    expect(unrestored).toEqual([
      { key: `${first.id}:0:cost`, reason: 'reverted' },
      { key: `${first.id}:0:in:gas`, reason: 'held' },
      { key: `${first.id}:0:in`, reason: 'held' },
      { key: `${first.id}:deliver`, reason: 'held' },
    ]);
    expect(await pollUntil(() => pub.getTransactionCount({ address: treasury }), (n) => n === treasuryNonce, 5_000, 100)).toBe(treasuryNonce);
    await expect(pub.getTransactionReceipt({ hash: payout!.txId as Hex })).rejects.toThrow();
    expect(await usdtOf(first.destination)).toBe(0n);
    expect(await usdtOf(treasury)).toBe(usdtBefore + first.amountOut);

    // The audit: the treasury holds the payout the books say left, and lacks the deposit the books say arrived.
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.clean).toBe(false);
    const row = (asset: string) => report.accounts.find((a) => a.role === 'treasury' && a.asset === parseChainAsset(asset, 'from').id)!;
    expect(row('base.usdt')).toMatchObject({ difference: first.amountOut, unrestored: [`${first.id}:deliver`] });
    expect(row('base.usdc').difference).toBe(-first.amountIn);
    expect(row('base.usdc').unrestored).toEqual([`${first.id}:0:cost`, `${first.id}:0:in`]);

    // The treasury is not stuck behind the held payout's nonce: the next order is paid out.
    const second = await order();
    expect(await usdtOf(second.destination)).toBe(second.amountOut);
  }, 90_000);
});
