// The gas desk on a real base node: an ERC-20 deposit address has no ETH, so the gas account tops it up for each
// send, and what that costs the router is set beside what the order's quote charged for it. The devnet's node runs
// at fees under the cost table's price and the router's sends offer no more than it, so the charge covers the spend;
// with the node's base fee pushed above the priced one, the order still completes, paying the node's fees, and the
// money audit names it as undercharged.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, numberToHex, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { renderAudit } from '../../../src/cli/audit.js';
import { auditJson } from '../../../src/orders/audit.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import { COST_TABLE } from '../../../src/routing/costing.js';
import type { RunningService } from '../../support/service.js';
import { DEV_ROLES, useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USDC = tokenAddress('base', 'USDC');
const PRICED = COST_TABLE.gasPriceWei.base!;

let node: AnvilNode;
let svc: RunningService;
let pub: PublicClient;
useServiceOnBase((s) => {
  ({ node, svc } = s);
  pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
});

/** Quotes and orders 25 base USDC → base USDT, pays the deposit address for real and waits for the order's end. */
async function depositOrder(): Promise<{ id: string; deposit: Address; status: string; gasBefore: bigint; fromBlock: bigint }> {
  const user = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.user.privateKey as Hex), transport: http(node.url) });
  const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
  expect(q.body).toMatchObject({ id: expect.any(String) });
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
  expect(o.status).toBe(201);
  const deposit = o.body.deposit_address as Address;
  const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
  const mint = await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, amountIn] });
  await pub.waitForTransactionReceipt({ hash: mint });
  // Read once nothing of the router's is moving: every later change of the gas account is this order's.
  const gasBefore = await pub.getBalance({ address: DEV_ROLES.gas.address as Address });
  const fromBlock = (await pub.getBlockNumber()) + 1n;
  const pay = await user.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [deposit, amountIn] });
  expect((await pub.waitForTransactionReceipt({ hash: pay })).status).toBe('success');
  const done = await untilOrderStatus(svc, o.body.id, ['delivered', 'stalled', 'frozen', 'failed', 'refunded'], 20_000);
  return { id: o.body.id, deposit, status: done.status, gasBefore, fromBlock };
}

describe('the gas desk on a real chain: what an ERC-20 order is charged for gas covers what the gas account spends', () => {
  it('at the priced fees: the gas account spends exactly the gas recorded for the order, the charge covers it, the audit is clean', async () => {
    const latest = await pub.getBlock({ blockTag: 'latest' });
    expect(latest.baseFeePerGas!).toBeLessThanOrEqual(PRICED);

    const { id, deposit, status, gasBefore, fromBlock } = await depositOrder();
    expect(status).toBe('delivered');
    const gasAfter = await pub.getBalance({ address: DEV_ROLES.gas.address as Address });
    const dust = await pub.getBalance({ address: deposit });

    // Every transaction of the gas account and the deposit address was mined at no more than the priced gas price.
    const payers = new Set([DEV_ROLES.gas.address.toLowerCase(), deposit.toLowerCase()]);
    let theirs = 0;
    for (let n = fromBlock, top = await pub.getBlockNumber(); n <= top; n++) {
      for (const tx of (await pub.getBlock({ blockNumber: n, includeTransactions: true })).transactions) {
        if (!payers.has(tx.from.toLowerCase())) continue;
        theirs++;
        expect((await pub.getTransactionReceipt({ hash: tx.hash })).effectiveGasPrice).toBeLessThanOrEqual(PRICED);
      }
    }
    // Two top-ups and two sweeps (the step's cost and its venue input).
    expect(theirs).toBe(4);

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
    const row = report.gas.find((g) => g.order === id)!;
    expect(row).toMatchObject({ chain: 'base', asset: parseChainAsset('base.usdc', 'from').id });
    // What left the gas account on chain is the gas recorded for the order plus the dust still on the deposit
    // address (the gas account's money: top-ups the sweeps did not burn).
    expect(gasBefore - gasAfter).toBe(row.spentWei + dust);
    expect(row.toppedUp).toBeGreaterThan(0n);
    expect(row.spentWei).toBeGreaterThan(0n);
    // The charge (the first step's cost in USDC, converted back at the quote's prices) covers the spend.
    expect(row.charged).toBeGreaterThan(0n);
    expect(row.chargedWei).not.toBeNull();
    expect(row.spentWei).toBeLessThanOrEqual(row.chargedWei!);
    // The same in USDC: the spend's value at the quote's prices is below the charge.
    expect(row.spent!).toBeLessThanOrEqual(row.charged);
    expect(renderAudit(auditJson(report))).toContain('gas of deposit addresses on real chains');
    console.log(
      `gas desk at the priced fees: charged ${row.charged} USDC base units = ${row.chargedWei} wei, spent ${row.spentWei} wei = ${row.spent} USDC base units ` +
        `(${((Number(row.spentWei) / Number(row.chargedWei)) * 100).toFixed(1)} % of the charge), topped up ${row.toppedUp} wei, dust ${dust} wei`,
    );
  }, 40_000);

  it('with the base fee above the priced gas price: the order completes at the node\'s fees and the audit names it as undercharged', async () => {
    // A fee spike: the next block's base fee at 100 × the priced price, then that block mined (empty), so every send
    // after it sees a base fee far above the price (it decays by at most 12.5 % a block).
    await rpcCall(node.url, 'anvil_setNextBlockBaseFeePerGas', [numberToHex(PRICED * 100n)]);
    await rpcCall(node.url, 'evm_mine', []);
    expect((await pub.getBlock({ blockTag: 'latest' })).baseFeePerGas).toBe(PRICED * 100n);

    const { id, deposit, status, gasBefore } = await depositOrder();
    expect(status).toBe('delivered');
    const gasAfter = await pub.getBalance({ address: DEV_ROLES.gas.address as Address });
    const dust = await pub.getBalance({ address: deposit });

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 0, delayMs: 0 } });
    const row = report.gas.find((g) => g.order === id)!;
    // The real cost is recorded, whatever the quote priced: the same identity with the chain as at the priced fees.
    expect(gasBefore - gasAfter).toBe(row.spentWei + dust);
    expect(row.spentWei).toBeGreaterThan(row.chargedWei!);
    expect(report.findings).toEqual([
      {
        kind: 'gas_undercharged', order: id, chain: 'base', asset: row.asset, address: row.address,
        spentWei: row.spentWei, chargedWei: row.chargedWei, charged: row.charged,
      },
    ]);
    expect(report.clean).toBe(false);
    // Only the gas: the money of both orders and the router's accounts still reconcile.
    expect(report.differing).toBe(0);
    expect(report.accounts.every((a) => a.difference === 0n)).toBe(true);
    expect(renderAudit(auditJson(report))).toMatch(/gas_undercharged +the sends from 0x[0-9a-fA-F]{40} cost \d+ wei of gas on base/);
    console.log(`gas desk at a base fee of 100 × the priced one: charged ${row.chargedWei} wei, spent ${row.spentWei} wei`);
  }, 40_000);
});
