// Family A orders paying native ETH on a real base node. The deposit address's ETH is the order's money: the gas of
// its sends (the step's cost, then its input; a refund) is topped up by the gas account above it, never paid out of
// it, so each later send still finds what the books say the address holds, even when the base fee rises between a
// top-up and its send (the send is refused before it is signed, and the next try tops up again). ETH a contract pays
// inside its transaction (a smart-contract wallet) is a deposit like a transaction's own value.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import type { EvmSendRequest } from '../../../src/chains/evm/sender.js';
import type { HybridChains } from '../../../src/chains/hybrid-chains.js';
import { COST_TABLE } from '../../../src/routing/costing.js';
import { pollUntil } from '../../support/poll.js';
import type { RunningService } from '../../support/service.js';
import { deployCode, payerCalldata, payerCode, payerRejectingCode } from './ledger-support.js';
import { DEV_ROLES, depositsOf, useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USDT = tokenAddress('base', 'USDT');
const BASE_ETH = parseChainAsset('base.eth', 'from');

let node: AnvilNode;
let svc: RunningService;
let logs: () => string[];
useServiceOnBase((s) => ({ node, svc, logs } = s));

/** A fresh sender holding 1 ETH, so its balance moves by its own order only. */
async function sender() {
  const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
  const account = privateKeyToAccount(generatePrivateKey());
  const funder = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.user.privateKey as Hex), transport: http(node.url) });
  await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ chain: null, to: account.address, value: parseEther('1') }) });
  return { pub, account, wallet: createWalletClient({ account, transport: http(node.url) }) };
}

async function orderEth(amount: string) {
  const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const q = await svc.post('/quote', { from: 'base.eth', to: 'base.usdt', from_amount: amount, return_full_route: true });
  expect(q.status).toBe(200);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
  expect(o.status).toBe(201);
  return { id: o.body.id as string, deposit: o.body.deposit_address as Address, destination };
}

describe('native ETH orders on a real base node', () => {
  it('base.eth → base.usdt reaches delivered: the destination receives amount_out, the audit is clean', async () => {
    const { pub, wallet } = await sender();
    const { id, deposit, destination } = await orderEth('0.01');
    const pay = await wallet.sendTransaction({ chain: null, to: deposit, value: parseEther('0.01') });
    expect((await pub.waitForTransactionReceipt({ hash: pay })).status).toBe('success');
    const done = await untilOrderStatus(svc, id, ['delivered', 'stalled', 'frozen', 'refunded'], 20_000);
    expect(done.status).toBe('delivered');
    const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
    expect(await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] })).toBe(amountOut);
    // All the order's ETH left the address; what stays is the gas account's dust, less than one top-up.
    expect(await svc.service.chains.balanceOf('base', deposit, BASE_ETH.id)).toBe(0n);
    expect(await pub.getBalance({ address: deposit })).toBeLessThan(parseEther('0.0001'));
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);

  it('a contract paying inside its transaction (a smart-contract wallet\'s batch): order A paid 0.004 + 0.006 and order B 0.01 in one transaction, three deposits, both delivered, the audit clean', async () => {
    const { pub, wallet } = await sender();
    const a = await orderEth('0.01');
    const b = await orderEth('0.01');
    const payer = await deployCode(node, payerCode(3));
    const pays = [
      { to: a.deposit, value: parseEther('0.004') },
      { to: a.deposit, value: parseEther('0.006') },
      { to: b.deposit, value: parseEther('0.01') },
    ];
    const hash = await wallet.sendTransaction({ chain: null, to: payer, value: parseEther('0.02'), data: payerCalldata(pays), gas: 300_000n });
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
    for (const o of [a, b]) expect((await untilOrderStatus(svc, o.id, ['delivered', 'stalled', 'frozen', 'refunded'], 30_000)).status).toBe('delivered');

    // The transaction's first payment to each address keeps the plain hash; the second to A is told apart by its place.
    expect(await depositsOf(svc, a.id)).toEqual([
      { txId: hash, amount: parseEther('0.004') },
      { txId: `${hash}:call1`, amount: parseEther('0.006') },
    ]);
    expect(await depositsOf(svc, b.id)).toEqual([{ txId: hash, amount: parseEther('0.01') }]);
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);

  it('an underfunded ETH order cancelled by the operator refunds its sender with a real transfer of the refunded amount', async () => {
    const { pub, account, wallet } = await sender();
    const { id, deposit } = await orderEth('0.01');
    const pay = await wallet.sendTransaction({ chain: null, to: deposit, value: parseEther('0.004') });
    expect((await pub.waitForTransactionReceipt({ hash: pay })).status).toBe('success');
    expect((await untilOrderStatus(svc, id, ['underfunded'], 15_000)).status).toBe('underfunded');
    const before = await pub.getBalance({ address: account.address });

    expect((await svc.post(`${svc.devUrl}/orders/${id}/unwind`, {})).status).toBe(200);
    await untilOrderStatus(svc, id, ['expired'], 20_000);
    const read = async () => (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>;
    const done = await pollUntil(read, (o) => o.refunds !== undefined, 20_000, 100);
    const [refund] = done.refunds as Array<{ amount: string; tx_id: string; to_address: string }>;
    expect(refund!.to_address.toLowerCase()).toBe(account.address.toLowerCase());
    const refunded = parseAmount(refund!.amount, BASE_ETH, 'formatted', 'amount');
    const receipt = await pub.getTransactionReceipt({ hash: refund!.tx_id as Hex });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(deposit.toLowerCase());
    expect(refunded).toBeGreaterThan(parseEther('0.0039'));
    expect(await pub.getBalance({ address: account.address })).toBe(before + refunded);
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);

  /** A contract wallet (its code `code`) paying `value` into an order's deposit address inside its transaction. */
  async function payFromContract(code: string, deposit: Address, value: bigint): Promise<Address> {
    const { pub, wallet } = await sender();
    const payer = await deployCode(node, code);
    const hash = await wallet.sendTransaction({ chain: null, to: payer, value, data: payerCalldata([{ to: deposit, value }]), gas: 200_000n });
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
    return payer;
  }

  it('a contract\'s payment without refund_address: cancelled underfunded, the refund goes back to the contract', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const { id, deposit } = await orderEth('0.01');
    const payer = await payFromContract(payerCode(1), deposit, parseEther('0.004'));
    expect((await untilOrderStatus(svc, id, ['underfunded'], 15_000)).status).toBe('underfunded');
    expect(await pub.getBalance({ address: payer })).toBe(0n);

    expect((await svc.post(`${svc.devUrl}/orders/${id}/unwind`, {})).status).toBe(200);
    const read = async () => (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>;
    const done = await pollUntil(read, (o) => (o.refunds?.length ?? 0) > 0, 20_000, 100);
    const [refund] = done.refunds as Array<{ amount: string; tx_id: string; to_address: string }>;
    expect(refund!.to_address.toLowerCase()).toBe(payer);
    const refunded = parseAmount(refund!.amount, BASE_ETH, 'formatted', 'amount');
    expect(refunded).toBeGreaterThan(parseEther('0.0039'));
    expect(await pub.getBalance({ address: payer })).toBe(refunded);
  }, 60_000);

  it('a contract that rejects ETH as the refund target: the refund is refused, kept with its reason, logged at warn and retried; the refund stays at the deposit address', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const { id, deposit } = await orderEth('0.01');
    const payer = await payFromContract(payerRejectingCode(1), deposit, parseEther('0.004'));
    expect((await untilOrderStatus(svc, id, ['underfunded'], 15_000)).status).toBe('underfunded');

    expect((await svc.post(`${svc.devUrl}/orders/${id}/unwind`, {})).status).toBe(200);
    const context = async () => (await svc.service.store.load('order', id))!.snapshot as { context: { refundError: string | null; refundAttempt: number; refunds: unknown[] } };
    // The order's backoff (ROUTER_ORDER_BACKOFF_MS, 2 s doubling): a second refusal within seconds shows the retry.
    const tried = await pollUntil(context, (s) => s.context.refundAttempt >= 2, 30_000, 200);
    expect(tried.context.refundAttempt).toBeGreaterThanOrEqual(2);
    expect(tried.context.refundError).toMatch(/refuses to estimate the send .*execution reverted/);
    expect(tried.context.refunds).toEqual([]);
    const refused = logs().map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'refund refused; retried later');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused[0]).toMatchObject({ level: 40, to: payer });
    expect(await pub.getBalance({ address: payer })).toBe(0n);
    // The refund's cost is charged once, on its first try; the refund itself waits at the deposit address.
    expect(await svc.service.chains.balanceOf('base', deposit, BASE_ETH.id)).toBeGreaterThan(parseEther('0.0039'));
  }, 60_000);

  it('the base fee rising above the priced gas price between a top-up and its send: the order is still delivered, its ETH untouched by gas', async () => {
    // The service's base adapter, wrapped so the fee rises right after the first top-up is mined (the embedded
    // service's chains are the hybrid facade whenever a real chain is configured).
    const evm = (svc.service.chains as HybridChains).real.get('base')!;
    const send = evm.send;
    let raised = false;
    evm.send = async (req: EvmSendRequest) => {
      const sent = await send(req);
      if (!raised && req.key.endsWith(':gas')) {
        raised = true;
        await rpcCall(node.url, 'anvil_setNextBlockBaseFeePerGas', [`0x${(COST_TABLE.gasPriceWei.base! * 2n).toString(16)}`]);
        await rpcCall(node.url, 'evm_mine', []);
      }
      return sent;
    };
    try {
      const { pub, wallet } = await sender();
      const { id, deposit, destination } = await orderEth('0.01');
      await pub.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, to: deposit, value: parseEther('0.01') }) });
      const done = await untilOrderStatus(svc, id, ['delivered', 'stalled', 'frozen', 'refunded'], 30_000);
      expect(raised).toBe(true);
      expect(done.status).toBe('delivered');
      const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
      expect(await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] })).toBe(amountOut);
      expect(await svc.service.chains.balanceOf('base', deposit, BASE_ETH.id)).toBe(0n);
      // Sends above the priced price are recorded as undercharged gas (the documented loss of a fee spike); nothing else.
      const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
      expect(report.findings.filter((f) => f.kind !== 'gas_undercharged')).toEqual([]);
      expect(report.accounts.every((a) => a.difference === 0n)).toBe(true);
    } finally {
      evm.send = send;
      await rpcCall(node.url, 'anvil_setNextBlockBaseFeePerGas', [`0x${(COST_TABLE.gasPriceWei.base! / 2n).toString(16)}`]);
      await rpcCall(node.url, 'evm_mine', []);
    }
  }, 90_000);
});
