// On a real base node: a refund is a real transaction (an underfunded order cancelled by the operator pays the
// deposit back to its sender, whose on-chain balance rises by the refund), and `router admin audit --data-dir`, run
// as its own process with the service's ROUTER_EVM_* settings, reads the node beside the books: clean after the
// orders, and an out-of-band transfer from the treasury is named and fails it.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devnetServiceEnv } from '../../../src/chains/evm/devnet.js';
import { devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import type { AuditReportJson } from '../../../src/orders/audit.js';
import { pollUntil } from '../../support/poll.js';
import { runRouterCli } from '../../support/router-cli.js';
import type { RunningService } from '../../support/service.js';
import { DEV_ROLES, useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USDC = tokenAddress('base', 'USDC');
const BASE_USDC = parseChainAsset('base.usdc', 'from');

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

const usdcOf = (who: Address) =>
  createPublicClient({ transport: http(node.url) }).readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

describe('a refund on a real node', () => {
  it('an underfunded order cancelled after its deposit refunds the sender with a real transfer: its balance rises by the refund', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    // A fresh sender, so its balance moves by this order only; ETH for its own two transactions from anvil.
    const sender = privateKeyToAccount(generatePrivateKey());
    await createWalletClient({ account: privateKeyToAccount(DEV_ROLES.user.privateKey as Hex), transport: http(node.url) })
      .sendTransaction({ chain: null, to: sender.address, value: 10n ** 17n })
      .then((hash) => pub.waitForTransactionReceipt({ hash }));
    const wallet = createWalletClient({ account: sender, transport: http(node.url) });

    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: getAddress(privateKeyToAccount(generatePrivateKey()).address) });
    expect(o.status).toBe(201);
    const deposit = o.body.deposit_address as Address;

    // 10 of the 25 quoted: underfunded, so nothing executes.
    const ten = parseAmount('10', BASE_USDC, 'formatted', 'amount');
    await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [sender.address, ten] }) });
    await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [deposit, ten] }) });
    expect(await usdcOf(sender.address)).toBe(0n);
    const underfunded = await untilOrderStatus(svc, o.body.id, ['underfunded'], 15_000);
    expect(underfunded.status).toBe('underfunded');

    // The operator cancels: the deposit goes back to its sender (the order has no refund address of its own).
    const cancel = await svc.post(`${svc.devUrl}/orders/${o.body.id}/unwind`, {});
    expect(cancel.status).toBe(200);
    // Family A shows a cancelled order as `expired`, with its refund listed once paid.
    await untilOrderStatus(svc, o.body.id, ['expired'], 20_000);
    const read = async () => (await (await fetch(`${svc.url}/order/${o.body.id}`)).json()) as Record<string, any>;
    const done = await pollUntil(read, (d) => d.refunds !== undefined, 20_000, 100);
    expect(done.status).toBe('expired');
    expect(done.refunds).toHaveLength(1);
    const [refund] = done.refunds as Array<{ amount: string; reason: string; to_address: string; tx_id: string }>;
    expect(refund!.reason).toBe('cancelled');
    expect(refund!.to_address.toLowerCase()).toBe(sender.address.toLowerCase());

    // The refund is a real transaction from the deposit address to the sender, of exactly the refunded amount.
    const receipt = await pub.getTransactionReceipt({ hash: refund!.tx_id as Hex });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(deposit.toLowerCase());
    const refunded = parseAmount(refund!.amount, BASE_USDC, 'formatted', 'amount');
    expect(refunded).toBeGreaterThan(0n);
    expect(refunded).toBeLessThanOrEqual(ten);
    expect(await usdcOf(sender.address)).toBe(refunded);
    // What the refund's cost kept went to the treasury; the deposit address holds no USDC.
    expect(await usdcOf(deposit)).toBe(0n);

    // The refund's two sends (its cost to the fee account, the rest to the sender) and their gas top-ups cost the
    // router no more than the refund's cost charged for them.
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    const gas = report.gas.find((g) => g.order === o.body.id)!;
    expect(gas.charged).toBe(ten - refunded);
    expect(gas.spentWei).toBeGreaterThan(0n);
    expect(gas.spentWei).toBeLessThanOrEqual(gas.chargedWei!);
    expect(report.findings).toEqual([]);
    console.log(`refund from a deposit address: charged ${gas.chargedWei} wei, spent ${gas.spentWei} wei`);
  }, 60_000);
});

describe('router admin audit --data-dir on real chains', () => {
  const env = () => devnetServiceEnv(new Map([['base', node]]));
  const audit = async (extra: Record<string, string> = env()) => {
    const r = await runRouterCli(['admin', 'audit', '--data-dir', svc.dataDir, '--json'], extra);
    return { code: r.code, stderr: r.stderr, report: r.stdout ? (JSON.parse(r.stdout) as AuditReportJson) : null };
  };

  it('reads the node with the service\'s ROUTER_EVM_* settings: clean, the treasury and gas account reconciled', async () => {
    const r = await audit();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.report!.clean).toBe(true);
    const roles = new Set(r.report!.accounts.map((a) => a.role));
    expect(roles).toEqual(new Set(['treasury', 'gas']));
    expect(r.report!.accounts.every((a) => a.chain === 'base' && a.difference === '0')).toBe(true);
    // Without them it audits the books alone: no account is read from a node.
    const booksOnly = await audit({});
    expect(booksOnly.report!.accounts).toEqual([]);
  }, 60_000);

  it('an out-of-band transfer from the treasury makes it exit 1, naming the treasury\'s USDC', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const treasury = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.treasury.privateKey as Hex), transport: http(node.url) });
    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    await pub.waitForTransactionReceipt({ hash: await treasury.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [stranger, 2_000_000n] }) });
    const r = await audit();
    expect(r.code).toBe(1);
    const usdc = r.report!.accounts.find((a) => a.role === 'treasury' && a.asset === BASE_USDC.id)!;
    expect(usdc.difference).toBe('-2000000');
    const text = await runRouterCli(['admin', 'audit', '--data-dir', svc.dataDir], env());
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/router accounts? differ/);
  }, 60_000);
});
