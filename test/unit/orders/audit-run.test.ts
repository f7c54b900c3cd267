// runAudit reads every stored order page by page, the ledger's arrivals, named transfers and balances, reports
// snapshots of another shape instead of summing them, and reads an order that disagrees again before it counts
// (a running service moves money between the two reads).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOrderRecords, runAudit } from '../../../src/orders/audit-run.js';
import { parseChainAsset } from '../../../src/assets/index.js';
import { openSimChains, poolAccount } from '../../../src/chains/index.js';
import type { SimChains } from '../../../src/chains/types.js';
import { ManualClock } from '../../../src/clock.js';
import { FEES_ACCOUNT, holdingAccount, type MoneyRecords } from '../../../src/orders/money.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import type { ActorStore, StoredActor } from '../../../src/store/types.js';

const BASE_USDC = parseChainAsset('base.usdc', 'x').id;
const ARB_USDC = parseChainAsset('arbitrum.usdc', 'x').id;
const SENDER = '0x000000000000000000000000000000000000dEaD';
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const address = (n: number) => `0xAbCdEf${n.toString(16).padStart(34, '0')}`;

let store: ActorStore;
let chains: SimChains;
let clock: ManualClock;
beforeEach(() => {
  store = openSqliteStore(':memory:');
  clock = new ManualClock();
  chains = openSimChains({ file: ':memory:', clock, pollMs: 0 });
});
afterEach(async () => {
  await chains.close();
  await store.close();
});

const snapshot = (context: unknown) => ({ status: 'active', value: { lifecycle: 'x' }, context, children: {}, historyValue: {} });
const versions = new Map<string, number>();
async function save(id: string, context: unknown): Promise<void> {
  const v = versions.get(id) ?? 0;
  versions.set(id, await store.save({ kind: 'order', id, snapshot: snapshot(context), expectedVersion: v, epoch: 0, wakeAt: null, updatedAt: 1, status: 'x' }));
}

function records(id: string, n: number): MoneyRecords {
  return { id, sourceChain: 'base', route: { from: BASE_USDC }, vault: { address: address(n) }, deposits: [], legs: [], delivery: null, refunds: [] };
}
async function funded(id: string, n: number, amount: bigint): Promise<MoneyRecords> {
  const r = records(id, n);
  const t = await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: SENDER, to: r.vault!.address, amount });
  r.deposits.push({ txId: t.txId, from: SENDER, amount, confirmations: 1, required: 1, at: t.at, late: false, spent: 0n, refunded: 0n });
  return r;
}
/** The leg and (unless not to deliver) the delivery on the ledger; the records that follow them. */
async function executeOnLedger(r: MoneyRecords, amountIn: bigint, deliver = true): Promise<MoneyRecords> {
  const holder = r.vault!.address;
  await chains.transfer({ key: `${r.id}:0:cost`, chain: 'base', asset: BASE_USDC, from: holder, to: FEES_ACCOUNT, amount: 1000n });
  await chains.transfer({ key: `${r.id}:0:in`, chain: 'base', asset: BASE_USDC, from: holder, to: poolAccount('across'), amount: amountIn - 1000n });
  const out = await chains.transfer({ key: `${r.id}:0:out`, chain: 'arbitrum', asset: ARB_USDC, from: poolAccount('across'), to: holdingAccount(r.id), amount: amountIn - 2000n });
  const d = deliver ? await chains.transfer({ key: `${r.id}:deliver`, chain: 'arbitrum', asset: ARB_USDC, from: holdingAccount(r.id), to: TO, amount: amountIn - 2000n }) : null;
  return {
    ...r,
    deposits: r.deposits.map((x) => ({ ...x, spent: amountIn })),
    legs: [{ index: 0, unwind: false, venue: 'across', from: BASE_USDC, to: ARB_USDC, holder, amountIn, cost: 1000n, amountOut: out.amount, txId: out.txId, at: out.at }],
    delivery: d && { asset: ARB_USDC, amountIn: out.amount, cost: 0n, amountOut: d.amount, to: TO, txId: d.txId, at: d.at },
  };
}

describe('runAudit over a store and a ledger', () => {
  it('pages through every order and audits them all: clean', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await funded(`o-${i}`, i, 1_000_000n + BigInt(i));
      await save(r.id, i % 2 ? await executeOnLedger(r, r.deposits[0]!.amount) : r);
    }
    const report = await runAudit({ store, chains, pageSize: 2, recheck: { times: 0, delayMs: 0 } });
    expect(report).toMatchObject({ orders: 5, findings: [], unreadable: [], clean: true });
    const base = report.rows.find((x) => x.asset === BASE_USDC)!;
    expect(base.arrived).toBe(5_000_010n);
    expect(base.held).toBe(1_000_000n + 1_000_002n + 1_000_004n);
    expect(base.ledgerHeld).toBe(base.held);
  });

  it('a deposit to an order\'s address on another EVM chain than its own is listed as a foreign deposit there, and the report stays clean', async () => {
    const r = await funded('o-chain', 7, 1_000_000n);
    await save(r.id, r);
    const wrong = await chains.simulateDeposit({ chain: 'arbitrum', asset: ARB_USDC, from: SENDER, to: r.vault!.address, amount: 2_500_000n });
    const report = await runAudit({ store, chains, recheck: { times: 0, delayMs: 0 } });
    expect(report).toMatchObject({ findings: [], clean: true });
    expect(report.foreign).toEqual([
      { order: 'o-chain', chain: 'arbitrum', address: r.vault!.address, asset: ARB_USDC, txId: wrong.txId, from: SENDER, amount: 2_500_000n, place: `foreign deposit at ${r.vault!.address}` },
    ]);
    const arb = report.rows.find((x) => x.asset === ARB_USDC)!;
    expect([arb.arrived, arb.foreign, arb.held, arb.ledgerHeld]).toEqual([2_500_000n, 2_500_000n, 2_500_000n, 2_500_000n]);
  });

  it('a snapshot of another shape is listed as unreadable, with the reason', async () => {
    await save('o-old', { id: 'o-old', sourceChain: 'base', route: { from: BASE_USDC }, vault: null, deposits: [], legs: [], refunds: [], amountOut: null });
    await store.save({ kind: 'order', id: 'o-bare', snapshot: { not: 'xstate' }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1 });
    const report = await runAudit({ store, chains, recheck: { times: 0, delayMs: 0 } });
    expect(report.unreadable).toEqual([
      { id: 'o-bare', reason: 'the snapshot has no context' },
      { id: 'o-old', reason: 'delivery is not an object' },
    ]);
    expect(report.clean).toBe(false);
    expect(readOrderRecords(snapshot(records('o', 1)))).toMatchObject({ id: 'o' });
  });

  it('an order caught between a ledger move and its record is read again, and counts only if it still disagrees', async () => {
    const before = await funded('o-moving', 1, 3_000_000n);
    await save('o-moving', before);
    const after = await executeOnLedger(before, 3_000_000n);
    // The first read of the order sees the record from before the leg (the ledger already has it); later reads see
    // the record the host wrote since.
    let loads = 0;
    const racing: Pick<ActorStore, 'list' | 'load'> = {
      list: (q) => store.list(q),
      async load(kind, id): Promise<StoredActor | null> {
        const a = await store.load(kind, id);
        return a && ++loads > 1 ? { ...a, snapshot: snapshot(after) } : a;
      },
    };
    const report = await runAudit({ store: racing, chains, recheck: { times: 2, delayMs: 1 } });
    expect(report).toMatchObject({ findings: [], clean: true });
    expect(loads).toBe(2);

    // Without a second read the same race is reported, which is what a stopped service with that state would show.
    loads = 0;
    const once = await runAudit({ store: racing, chains, recheck: { times: 0, delayMs: 0 } });
    expect(once.clean).toBe(false);
    expect(once.findings.map((f) => f.kind)).toContain('held_mismatch');
  });

  it('a deposit in a block not mined yet is pending: held where it arrived, listed, clean', async () => {
    const r = await funded('o-pending', 1, 3_000_000n);
    await save('o-pending', { ...r, deposits: [] });
    const report = await runAudit({ store, chains, recheck: { times: 0, delayMs: 0 } });
    expect(report.rows.find((x) => x.asset === BASE_USDC)).toMatchObject({ arrived: 3_000_000n, recorded: 0n, pending: 3_000_000n, held: 3_000_000n, ledgerHeld: 3_000_000n, unrecorded: 0n, heldMismatch: 0n });
    expect(report.pending).toEqual([expect.objectContaining({ order: 'o-pending', txId: r.deposits[0]!.txId, place: `pending deposit at ${address(1)}` })]);
    expect(report.clean).toBe(true);
  });

  it('a delivery or refund whose cost moved and whose payment the chain refused (waiting for its retry) is clean: the cost counts', async () => {
    // Delivery: the leg is recorded, the delivery's cost left the holding account, the delivery did not.
    const undelivered = await executeOnLedger(await funded('o-deliver', 1, 3_000_000n), 3_000_000n, false);
    await chains.transfer({ key: 'o-deliver:deliver:cost', chain: 'arbitrum', asset: ARB_USDC, from: holdingAccount('o-deliver'), to: FEES_ACCOUNT, amount: 5_000n });
    await save('o-deliver', undelivered);
    // Refund: a cancelled order paying back its deposit; the refund's cost left the deposit address, the refund did not.
    const c = await funded('o-refund', 2, 2_000_000n);
    const paying = { key: 'o-refund:refund:x:0', reason: 'cancelled', chain: 'base', asset: BASE_USDC, from: c.vault!.address, to: SENDER, amount: 2_000_000n, cost: 2_000n, depositTxId: c.deposits[0]!.txId };
    await chains.transfer({ key: 'o-refund:refund:x:0:cost', chain: 'base', asset: BASE_USDC, from: c.vault!.address, to: FEES_ACCOUNT, amount: 2_000n });
    await save('o-refund', { ...c, paying });
    const report = await runAudit({ store, chains, recheck: { times: 0, delayMs: 0 } });
    expect(report).toMatchObject({ findings: [], clean: true });
    expect(report.rows.find((x) => x.asset === BASE_USDC)).toMatchObject({ held: 1_998_000n, ledgerHeld: 1_998_000n });
    expect(report.rows.find((x) => x.asset === ARB_USDC)).toMatchObject({ held: 2_998_000n - 5_000n, ledgerHeld: 2_998_000n - 5_000n, costs: 5_000n });
  });

  it('a disagreement that stays is reported after the rereads', async () => {
    const r = await funded('o-stuck', 1, 3_000_000n);
    await save('o-stuck', { ...r, deposits: [] });
    clock.advance(10_000); // the deposit's block is mined: its order could have recorded it
    const report = await runAudit({ store, chains, recheck: { times: 2, delayMs: 1 } });
    expect(report.findings.map((f) => f.kind).sort()).toEqual(['held_mismatch', 'unrecorded_deposit']);
    expect(report.clean).toBe(false);
  });
});
