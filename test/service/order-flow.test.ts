// Family A orders through the whole embedded service, as a user would drive them: quote, order, deposit on the
// simulated chain through the dev listener, poll GET /order/{id}; or let the clock pass the deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEES_ACCOUNT } from '../../actors/index.js';
import { runAudit } from '../../src/orders/audit-run.js';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import type { Chains } from '../../src/chains/types.js';
import { pollUntil } from '../support/poll.js';
import { startService, type RunningService } from '../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER_EVM = '0x000000000000000000000000000000000000dEaD';
const SENDER_BTC = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const WEEK = 7 * 24 * 3600 * 1000;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50' });
});
afterAll(async () => svc.stop());

async function order(from: string, to: string, amount: string, extra: Record<string, unknown> = {}) {
  const q = await svc.post('/quote', { from, to, from_amount: amount, return_full_route: true });
  expect(q.status).toBe(200);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: TO, ...extra });
  expect(o.status).toBe(201);
  return { quote: q.body, order: o.body };
}
const deposit = (to: string, asset: string, amount: string, from: string) =>
  svc.post(`${svc.devUrl}/deposits`, { to, asset, amount, from });
const advance = (ms: number) => svc.post(`${svc.devUrl}/clock/advance`, { ms });
const get = async (id: string) => (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>;

const until = (id: string, statuses: string[], ms = 10_000) => pollUntil(() => get(id), (o) => statuses.includes(o.status), ms, 20);

/** Polls until the order lists `n` refunds (a refund runs beside the lifecycle, so it may land after `delivered`). */
const untilRefunds = (id: string, n: number, ms = 10_000) => pollUntil(() => get(id), (o) => (o.refunds?.length ?? 0) >= n, ms, 20);

/** The refund transfers of an order on the ledger: what reached each address, and the refunds' own costs. */
async function refundTransfers(chains: Chains, orderId: string) {
  const all = (await chains.transfers()).filter((t) => t.key.startsWith(`${orderId}:refund:`));
  return { sent: all.filter((t) => !t.key.endsWith(':cost')), costs: all.filter((t) => t.key.endsWith(':cost')) };
}

async function balance(chains: Chains, asset: string, address: string) {
  const a = parseChainAsset(asset, 'asset');
  return chains.balanceOf(a.chain, address, a.id);
}

describe('awaiting_deposit → funded → executing → delivered, with amount_out; refund_address set to the sender', () => {
  it('a deposit of from_amount on base is delivered on arbitrum, and what was deposited = delivered + costs + venue inputs', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '2500');
    expect(o.status).toBe('awaiting_deposit');
    expect(o.amount_out).toBeUndefined();
    const d = await deposit(o.deposit_address, 'base.usdc', '2500', SENDER_EVM);
    expect(d.status).toBe(201);
    const done = await until(o.id, ['delivered']);
    expect(done.status).toBe('delivered');
    expect(done.refund_address).toBe(SENDER_EVM);
    const usdcArb = parseChainAsset('arbitrum.usdc', 'to');
    const out = parseAmount(done.amount_out, usdcArb, 'formatted', 'amount_out');
    expect(await balance(svc.service.chains, 'arbitrum.usdc', TO)).toBeGreaterThanOrEqual(out);
    expect(await balance(svc.service.chains, 'base.usdc', o.deposit_address)).toBe(0n);
    // Source side: every unit deposited left the deposit address once, to the venue or to the fee account.
    const spent = await svc.service.chains.transfers({ address: o.deposit_address });
    const outgoing = spent.filter((t) => t.from.toLowerCase() === o.deposit_address.toLowerCase());
    expect(outgoing.map((t) => (t.to.startsWith('pool:') ? 'pool' : t.to)).sort()).toEqual([FEES_ACCOUNT, 'pool'].sort());
    expect(outgoing.reduce((s, t) => s + t.amount, 0n)).toBe(2_500_000_000n);
    // Destination side: what reached the order's holding account = delivered + the delivery cost.
    const held = (await svc.service.chains.transfers({ address: `order:${o.id}` })).filter((t) => t.to === `order:${o.id}`);
    const deliveryCost = (await svc.service.chains.transfers({ key: `${o.id}:deliver:cost` }))[0]?.amount ?? 0n;
    expect(held.reduce((s, t) => s + t.amount, 0n)).toBe(out + deliveryCost);
    const transfers = await svc.service.chains.transfers({ key: `${o.id}:deliver` });
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.amount).toBe(out);
  });
});

describe('awaiting_deposit → expired when deposit_deadline passes with nothing deposited', () => {
  it('moving the clock past seven days expires the order', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '10');
    await advance(WEEK - 60_000);
    expect((await get(o.id)).status).toBe('awaiting_deposit');
    await advance(60_001);
    expect((await get(o.id)).status).toBe('expired');
  });
});

describe('underfunded (our choice): top-ups count until the deadline; overpayment: the excess is refunded', () => {
  it('a short bitcoin deposit is underfunded, a top-up funds it, confirmations start execution, the excess goes back', async () => {
    const { order: o } = await order('bitcoin.btc', 'arbitrum.usdc', '0.1');
    await deposit(o.deposit_address, 'bitcoin.btc', '0.04', SENDER_BTC);
    await advance(600_000);
    expect((await until(o.id, ['underfunded'])).status).toBe('underfunded');
    await deposit(o.deposit_address, 'bitcoin.btc', '0.07', SENDER_BTC);
    await advance(600_000);
    expect((await until(o.id, ['funded'])).status).toBe('funded');
    await advance(600_000);
    expect((await until(o.id, ['delivered'])).status).toBe('delivered');
    const done = await untilRefunds(o.id, 1);
    // The excess 0.01 BTC goes back to the deposits' sender, less what the refund transaction costs.
    const { sent, costs } = await refundTransfers(svc.service.chains, o.id);
    expect(sent.map((t) => t.to)).toEqual([SENDER_BTC]);
    expect(sent[0]!.amount + costs[0]!.amount).toBe(1_000_000n);
    expect(done.refunds).toEqual([{ amount: `0.${String(sent[0]!.amount).padStart(8, '0')}`.replace(/0+$/, ''), reason: 'excess', to_address: SENDER_BTC, tx_id: sent[0]!.txId }]);
  });

  it('at the deadline, what arrived is refunded to the refund address and the order expires', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '100', { refund_address: SENDER_EVM });
    await deposit(o.deposit_address, 'base.usdc', '40', '0x1111111111111111111111111111111111111111');
    expect((await until(o.id, ['underfunded'])).status).toBe('underfunded');
    await advance(WEEK + 1);
    expect((await until(o.id, ['expired'])).status).toBe('expired');
    const done = await untilRefunds(o.id, 1);
    // To the refund address given, not to the deposit's sender; the refund's own cost is taken from it.
    const { sent, costs } = await refundTransfers(svc.service.chains, o.id);
    expect(await balance(svc.service.chains, 'base.usdc', SENDER_EVM)).toBe(sent[0]!.amount);
    expect(sent[0]!.amount + costs[0]!.amount).toBe(40_000_000n);
    expect(done.refunds.map((r: { reason: string; to_address: string }) => [r.reason, r.to_address])).toEqual([['underfunded', SENDER_EVM]]);
    expect(await balance(svc.service.chains, 'base.usdc', o.deposit_address)).toBe(0n);
  });

  it('a deposit of another asset does not fund the order (left for an operator)', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '100');
    await deposit(o.deposit_address, 'base.eth', '1', SENDER_EVM);
    await new Promise((r) => setTimeout(r, 300));
    expect((await get(o.id)).status).toBe('awaiting_deposit');
  });
});

describe('Every deposit is accounted for: late deposits, cancellations and the audit', () => {
  it('a deposit arriving after delivered is refunded to its own sender and shown in `refunds` (reason late_deposit)', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '25');
    await deposit(o.deposit_address, 'base.usdc', '25', SENDER_EVM);
    expect((await until(o.id, ['delivered'])).status).toBe('delivered');
    const LATE = '0x2222222222222222222222222222222222222222';
    await deposit(o.deposit_address, 'base.usdc', '3', LATE);
    const after = await untilRefunds(o.id, 1);
    expect(after.status).toBe('delivered');
    const { sent, costs } = await refundTransfers(svc.service.chains, o.id);
    expect(sent.map((t) => t.to.toLowerCase())).toEqual([LATE]);
    expect(sent[0]!.amount + costs[0]!.amount).toBe(3_000_000n);
    expect(after.refunds).toEqual([{ amount: String(Number(sent[0]!.amount) / 1e6), reason: 'late_deposit', to_address: sent[0]!.to, tx_id: sent[0]!.txId }]);
    expect(await balance(svc.service.chains, 'base.usdc', o.deposit_address)).toBe(0n);
  });

  it('refunds cannot be hijacked: an outsider\'s 0.000001 first, then the owner\'s 150 for a 100 order: the excess goes to the owner', async () => {
    const OUTSIDER = '0x3333333333333333333333333333333333333333';
    const OWNER = '0x4444444444444444444444444444444444444444';
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '100');
    await deposit(o.deposit_address, 'base.usdc', '0.000001', OUTSIDER);
    expect((await until(o.id, ['underfunded'])).refund_address).toBeNull(); // dust never sets the refund address
    await deposit(o.deposit_address, 'base.usdc', '150', OWNER);
    expect((await until(o.id, ['delivered'])).status).toBe('delivered');
    const done = await untilRefunds(o.id, 1);
    expect(done.refund_address.toLowerCase()).toBe(OWNER);
    const { sent, costs } = await refundTransfers(svc.service.chains, o.id);
    expect(sent.map((t) => t.to.toLowerCase())).toEqual([OWNER]);
    // Execution took the outsider's unit first, then 99.999999 of the owner's; the rest is the owner's.
    expect(sent[0]!.amount + costs[0]!.amount).toBe(50_000_001n);
    expect(await balance(svc.service.chains, 'base.usdc', OUTSIDER)).toBe(0n);
  });

  it('an operator cancels an underfunded order (dev listener): what arrived goes back (reason cancelled); a delivered order answers 409', async () => {
    const { order: o } = await order('base.usdc', 'arbitrum.usdc', '60');
    await deposit(o.deposit_address, 'base.usdc', '20', SENDER_EVM);
    expect((await until(o.id, ['underfunded'])).status).toBe('underfunded');
    const r = await svc.post(`${svc.devUrl}/orders/${o.id}/unwind`, {});
    expect(r.status).toBe(200);
    const after = await untilRefunds(o.id, 1);
    expect(after.status).toBe('expired');
    expect(after.refunds.map((x: { reason: string }) => x.reason)).toEqual(['cancelled']);
    expect(await balance(svc.service.chains, 'base.usdc', o.deposit_address)).toBe(0n);

    const { order: done } = await order('base.usdc', 'arbitrum.usdc', '10');
    await deposit(done.deposit_address, 'base.usdc', '10', SENDER_EVM);
    expect((await until(done.id, ['delivered'])).status).toBe('delivered');
    const refused = await svc.post(`${svc.devUrl}/orders/${done.id}/unwind`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/is delivered/);
  });
});

describe('Any number of concurrent POST /order for one quote make exactly one order', () => {
  it('50 at once', async () => {
    const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '5', return_full_route: false });
    const all = await Promise.all(Array.from({ length: 50 }, () => svc.post('/order', { quote_id: q.body.id, to_address: TO })));
    expect(all.every((r) => r.status === 201)).toBe(true);
    expect(new Set(all.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(all.map((r) => r.body.deposit_address)).size).toBe(1);
  });
});

describe('Costs are collected on the fee account of each chain', () => {
  it('the base fee account holds USDC after deliveries', async () => {
    expect(await balance(svc.service.chains, 'base.usdc', FEES_ACCOUNT)).toBeGreaterThan(0n);
  });
});

describe('The money audit over everything this suite did is clean (every difference 0)', () => {
  it('runAudit over the service\'s store and ledger', async () => {
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains });
    expect(report.orders).toBeGreaterThan(5);
    expect(report.rows.filter((r) => r.difference !== 0n || r.unrecorded !== 0n || r.heldMismatch !== 0n)).toEqual([]);
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);
  });
});
