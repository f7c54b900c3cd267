// Two Family A orders chained on a real base node: the first delivers into the second's deposit address, so the
// treasury's payout is the second order's deposit. The deposit feed tells it to the second order, sent by the router,
// and the books hold it once; the second order executes and keeps its excess for an operator (no client to pay back).
import { describe, expect, it } from 'vitest';
import { erc20Abi, getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { runAudit } from '../../../src/orders/audit-run.js';
import type { RunningService } from '../../support/service.js';
import { BASE_USDC as USDC, BASE_USDT as USDT, DEV_ROLES, devClients, mintAndPay, untilOrderStatus, useServiceOnBase } from './support.js';

const USER = DEV_ROLES.user;
const ENDS = ['delivered', 'stalled', 'frozen', 'failed', 'refunded', 'expired'];

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

describe('chained orders on a real base node', () => {
  it('an order delivering into another order\'s deposit address funds it: told as sent by the router, booked once, excess held', async () => {
    const clients = devClients(node.url, USER.privateKey);
    const { pub } = clients;
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);

    // The second order first: the first one's destination is its deposit address.
    const q2 = await svc.post('/quote', { from: 'base.usdt', to: 'base.usdc', from_amount: '20', return_full_route: true });
    expect(q2.status).toBe(200);
    const o2 = await svc.post('/order', { quote_id: q2.body.id, to_address: destination });
    expect(o2.status).toBe(201);
    const second = o2.body.deposit_address as Address;

    const q1 = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    const o1 = await svc.post('/order', { quote_id: q1.body.id, to_address: second });
    expect(o1.status).toBe(201);
    const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');
    await mintAndPay(clients, USDC, o1.body.deposit_address as Address, amountIn);

    const first = await untilOrderStatus(svc, o1.body.id, ENDS, 20_000);
    expect(first.status).toBe('delivered');
    const [payout] = await svc.service.chains.transfers({ key: `${o1.body.id}:deliver` });
    const delivered = parseAmount(first.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');

    const done = await untilOrderStatus(svc, o2.body.id, ENDS, 20_000);
    expect(done.status).toBe('delivered');
    // The router's payout is the deposit: never adopted as the refund address (that would be the treasury's).
    expect(done.refund_address).toBeNull();
    const usdt = parseChainAsset('base.usdt', 'from').id;
    // Booked once: the payout's own booking, no second `mint` of it. What the order did not spend stays at its address.
    const intoSecond = (await svc.service.chains.transfers({ address: second })).filter((t) => t.to.toLowerCase() === second.toLowerCase());
    expect(intoSecond.map((t) => t.txId)).toEqual([payout!.txId]);
    const spent = parseAmount('20', parseChainAsset('base.usdt', 'from'), 'formatted', 'from_amount');
    expect(await svc.service.chains.balanceOf('base', second, usdt)).toBe(delivered - spent);
    expect(await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [second] })).toBe(delivered - spent);

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
  }, 45_000);
});
