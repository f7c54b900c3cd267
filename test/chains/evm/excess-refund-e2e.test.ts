// An order paid more than it asked for on a real base node: the sweep of what the route takes and the refund of the
// excess both leave the deposit address, side by side (the order's lifecycle and refunds), each with gas topped up
// from the gas account. Both must be mined: the order delivers, the sender gets the excess back on chain, and nothing
// is left at the deposit address.
import { describe, expect, it } from 'vitest';
import { erc20Abi, type Address } from 'viem';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { runAudit } from '../../../src/orders/audit-run.js';
import { pollUntil } from '../../support/poll.js';
import type { RunningService } from '../../support/service.js';
import { BASE_USDC as USDC, BASE_USDT as USDT, DEV_ROLES, devClients, freshAddress, mintAndPay, quoteAndOrder, untilOrderStatus, useServiceOnBase } from './support.js';

const USER = DEV_ROLES.user;

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));

const usdc = (text: string) => parseAmount(text, parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');

describe('an over-paid order on a real base node: the sweep and the excess refund from one deposit address', () => {
  it('delivers, refunds the excess to the sender on chain, leaves the deposit address empty; the audit is clean', async () => {
    const clients = devClients(node.url, USER.privateKey);
    const destination = freshAddress();
    const order = await quoteAndOrder(svc, { from: 'base.usdc', to: 'base.usdt' }, '25', destination);
    const deposit = order.deposit_address as Address;
    const balance = (token: Address, who: Address) => clients.pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const userBefore = await balance(USDC, USER.address as Address);

    expect((await mintAndPay(clients, USDC, deposit, usdc('40'))).status).toBe('success');
    const done = await untilOrderStatus(svc, order.id, ['delivered', 'stalled', 'frozen', 'failed', 'expired'], 30_000);
    expect(done.status).toBe('delivered');
    // The excess refund settles on its own time: wait until the order lists it.
    const refunded = await pollUntil(
      async () => (await (await fetch(`${svc.url}/order/${order.id}`)).json()) as Record<string, any>,
      (x) => Array.isArray(x.refunds) && x.refunds.length === 1,
      30_000,
    );
    expect(refunded.refunds[0]).toMatchObject({ reason: 'excess' });
    const refundedRaw = usdc(refunded.refunds[0].amount as string);

    expect(await balance(USDT, destination)).toBe(parseAmount(done.amount_out as string, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out'));
    expect(await balance(USDC, deposit)).toBe(0n);
    // The user minted 40 and paid all of it; the excess less its refund cost came back.
    expect(await balance(USDC, USER.address as Address)).toBe(userBefore + refundedRaw);
    expect(refundedRaw).toBeGreaterThan(usdc('14.9'));

    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
  }, 90_000);
});
