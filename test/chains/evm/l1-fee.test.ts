// The L1 data fee of an OP Stack chain (base): beside its gas, the sequencer charges each transaction for its bytes on
// L1 and refuses one whose sender cannot pay both. anvil charges none, so the chain's gas price oracle is stood in for
// by a contract placed at its predeploy address that answers a fixed fee: a node without the oracle reads 0, one with
// it reads its fee, and every gas top-up of an order's deposit address covers that fee with a quarter more.
import { describe, expect, it } from 'vitest';
import { erc20Abi, getAddress, numberToHex, pad, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import { GAS_PRICE_ORACLE } from '../../../src/chains/evm/l1-fee.js';
import type { HybridChains } from '../../../src/chains/hybrid-chains.js';
import type { RunningService } from '../../support/service.js';
import { DEV_ROLES, devClients, useServiceOnBase, tokenAddress, untilOrderStatus } from './support.js';

const USDC = tokenAddress('base', 'USDC');
/** 0.00001 ETH a transaction: far above the gas a send costs at the devnet's fees, so a top-up without it shows. */
const L1_FEE = 10n ** 13n;
/** Runtime code answering every call with L1_FEE: PUSH32 fee, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN. */
const ORACLE_CODE = `0x7f${pad(numberToHex(L1_FEE)).slice(2)}60005260206000f3` as Hex;

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

describe('the L1 data fee of an OP Stack chain', () => {
  it('is 0 on a node without the gas price oracle and the oracle\'s fee once it answers; the gas top-ups cover it', async () => {
    const { pub, user } = devClients(node.url, DEV_ROLES.user.privateKey);
    // The embedded service's chains are the hybrid facade whenever a real chain is configured.
    const evm = (svc.service.chains as HybridChains).real.get('base')!;
    const tx = { to: USDC, value: 0n, gas: 60_000n, data: '0xa9059cbb' as Hex };
    expect(await evm.l1Fee(tx)).toBe(0n);
    await rpcCall(node.url, 'anvil_setCode', [GAS_PRICE_ORACLE, ORACLE_CODE]);
    expect(await evm.l1Fee(tx)).toBe(L1_FEE);

    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: getAddress(privateKeyToAccount(generatePrivateKey()).address) });
    expect(o.status).toBe(201);
    const deposit = o.body.deposit_address as Address;
    const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
    await pub.waitForTransactionReceipt({ hash: await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, amountIn] }) });
    const fromBlock = (await pub.getBlockNumber()) + 1n;
    await pub.waitForTransactionReceipt({ hash: await user.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [deposit, amountIn] }) });
    expect((await untilOrderStatus(svc, o.body.id as string, ['delivered', 'stalled', 'frozen', 'refunded'], 20_000)).status).toBe('delivered');

    // The gas account's top-ups of the deposit address, one per send from it: before each send the address held its
    // gas at the fee cap and the L1 fee with a quarter more. anvil charges no L1 fee, so the first top-up carries it and
    // it is still there after the last send.
    const topUps: bigint[] = [];
    for (let n = fromBlock; n <= (await pub.getBlockNumber()); n++) {
      for (const t of (await pub.getBlock({ blockNumber: n, includeTransactions: true })).transactions) {
        if (t.from.toLowerCase() === DEV_ROLES.gas.address.toLowerCase() && t.to?.toLowerCase() === deposit.toLowerCase()) topUps.push(t.value);
      }
    }
    expect(topUps).toHaveLength(2);
    expect(topUps[0]).toBeGreaterThan((L1_FEE * 5n) / 4n);
    expect(await pub.getBalance({ address: deposit })).toBeGreaterThanOrEqual((L1_FEE * 5n) / 4n);
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  }, 60_000);
});
