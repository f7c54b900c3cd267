// Two token transfers in one transaction: a transaction's second transfer to the same deposit address is its own
// deposit (`<txHash>:<n>`, its place among the transaction's token transfers; the first keeps the hash), so one transaction paying a deposit address twice, and
// another deposit address once, makes three deposits, and the audit counts all three.
import { describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import type { RunningService } from '../../support/service.js';
import { DEV_ROLES, depositsOf, useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USDC = tokenAddress('base', 'USDC');
const BASE_USDC = parseChainAsset('base.usdc', 'from');
const units = (v: string) => parseAmount(v, BASE_USDC, 'formatted', 'amount');

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

async function order(): Promise<{ id: string; deposit: Address }> {
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
  expect(q.status).toBe(200);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: getAddress(privateKeyToAccount(generatePrivateKey()).address) });
  expect(o.status).toBe(201);
  return { id: o.body.id, deposit: o.body.deposit_address };
}

describe('two token transfers in one transaction are two deposits', () => {
  it('one transaction pays order A 10 + 15 and order B 25: three deposits, both orders delivered, the audit clean', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const user = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.user.privateKey as Hex), transport: http(node.url) });
    const a = await order();
    const b = await order();
    await pub.waitForTransactionReceipt({ hash: await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, units('50')] }) });
    const hash = await user.writeContract({
      chain: null, address: USDC, abi: devTokenAbi, functionName: 'transferBatch',
      args: [[a.deposit, a.deposit, b.deposit], [units('10'), units('15'), units('25')]],
    });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.logs).toHaveLength(3);

    for (const o of [a, b]) expect((await untilOrderStatus(svc, o.id, ['delivered', 'stalled', 'frozen', 'failed'], 20_000)).status).toBe('delivered');

    // The transaction's first transfer to each address keeps the plain hash; the second to A is told apart by its place.
    expect(await depositsOf(svc, a.id)).toEqual([
      { txId: hash, amount: units('10') },
      { txId: `${hash}:1`, amount: units('15') },
    ]);
    expect(await depositsOf(svc, b.id)).toEqual([{ txId: hash, amount: units('25') }]);

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);
});
