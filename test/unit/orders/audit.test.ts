// The money audit over a real (in-memory) simulated ledger: money moved as the order host moves it, records written
// as the order machine keeps them, and the report's rows, findings and verdict for a clean set and for each way the
// two can disagree.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseChainAsset } from '../../../src/assets/index.js';
import type { AssetId } from '../../../src/assets/types.js';
import { openSimChains, poolAccount } from '../../../src/chains/index.js';
import type { SimChains } from '../../../src/chains/types.js';
import { auditExitCode, renderAudit } from '../../../src/cli/audit.js';
import { ManualClock } from '../../../src/clock.js';
import { auditJson, auditMoney, depositAccounts, isMoneyRecords, moneyRecordsProblem, type AuditReport, type AuditRow } from '../../../src/orders/audit.js';
import { FEES_ACCOUNT, holdingAccount, type MoneyRecords } from '../../../src/orders/money.js';

const BASE_USDC = parseChainAsset('base.usdc', 'x').id;
const ARB_USDC = parseChainAsset('arbitrum.usdc', 'x').id;
const BASE_ETH = parseChainAsset('base.eth', 'x').id;
// Mixed case as a vault writes it; the ledger keys it lower-case, and the audit must match the two.
const DEP_1 = '0xAbCdEf0000000000000000000000000000000001';
const DEP_2 = '0xAbCdEf0000000000000000000000000000000002';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const VENUE = 'across';

let chains: SimChains;
beforeEach(() => {
  chains = openSimChains({ file: ':memory:', clock: new ManualClock(), pollMs: 0 });
});
afterEach(() => chains.close());

function order(id: string, address: string | null): MoneyRecords {
  return { id, sourceChain: 'base', route: { from: BASE_USDC }, vault: address ? { address } : null, deposits: [], legs: [], delivery: null, refunds: [] };
}

async function deposit(o: MoneyRecords, amount: bigint, opts: { asset?: AssetId; record?: boolean; from?: string } = {}) {
  const t = await chains.simulateDeposit({ chain: 'base', asset: opts.asset ?? BASE_USDC, from: opts.from ?? SENDER, to: o.vault!.address.toLowerCase(), amount });
  if (opts.record ?? true) {
    o.deposits.push({ txId: t.txId, from: SENDER, amount, confirmations: 1, required: 1, at: t.at, late: false, spent: 0n, refunded: 0n });
  }
  return t;
}

/** One cross-chain step base.usdc → arbitrum.usdc and the delivery, moved on the ledger and recorded. */
async function execute(o: MoneyRecords, amountIn: bigint, cost: bigint, amountOut: bigint, deliveryCost: bigint, to = TO) {
  const holder = o.vault!.address;
  await chains.transfer({ key: `${o.id}:0:cost`, chain: 'base', asset: BASE_USDC, from: holder, to: FEES_ACCOUNT, amount: cost });
  await chains.transfer({ key: `${o.id}:0:in`, chain: 'base', asset: BASE_USDC, from: holder, to: poolAccount(VENUE), amount: amountIn - cost });
  const out = await chains.transfer({ key: `${o.id}:0:out`, chain: 'arbitrum', asset: ARB_USDC, from: poolAccount(VENUE), to: holdingAccount(o.id), amount: amountOut });
  o.legs.push({ index: 0, unwind: false, venue: VENUE, from: BASE_USDC, to: ARB_USDC, holder, amountIn, cost, amountOut, txId: out.txId, at: out.at });
  await chains.transfer({ key: `${o.id}:deliver:cost`, chain: 'arbitrum', asset: ARB_USDC, from: holdingAccount(o.id), to: FEES_ACCOUNT, amount: deliveryCost });
  const d = await chains.transfer({ key: `${o.id}:deliver`, chain: 'arbitrum', asset: ARB_USDC, from: holdingAccount(o.id), to, amount: amountOut - deliveryCost });
  o.delivery = { asset: ARB_USDC, amountIn: amountOut, cost: deliveryCost, amountOut: amountOut - deliveryCost, to, txId: d.txId, at: d.at };
  return d;
}

/** A refund of `amount` (its cost burnt into the fee account) from the deposit address, moved and recorded. */
async function refund(o: MoneyRecords, amount: bigint, cost: bigint, depositTxId: string) {
  const from = o.vault!.address;
  await chains.transfer({ key: `${o.id}:refund:${depositTxId}:cost`, chain: 'base', asset: BASE_USDC, from, to: FEES_ACCOUNT, amount: cost });
  const t = await chains.transfer({ key: `${o.id}:refund:${depositTxId}`, chain: 'base', asset: BASE_USDC, from, to: SENDER, amount: amount - cost });
  o.refunds.push({
    key: `${o.id}:refund:${depositTxId}`, reason: 'excess', chain: 'base', asset: BASE_USDC, from, to: SENDER, amount, cost,
    depositTxId, sent: amount - cost, txId: t.txId, at: t.at,
  });
}

// The whole ledger: the audit picks the arrivals and the transfers the records name, and ignores the rest.
const audit = async (orders: MoneyRecords[]): Promise<AuditReport> =>
  auditMoney({ orders, transfers: await chains.transfers(), balances: await chains.balances() });

const row = (r: AuditReport, asset: AssetId): AuditRow => {
  const found = r.rows.find((x) => x.asset === asset);
  if (!found) throw new Error(`no row for ${asset}`);
  return found;
};
const zeroChecks = { difference: 0n, unrecorded: 0n, heldMismatch: 0n };

describe('a clean set: every unit that arrived is delivered, refunded, paid in costs or still held', () => {
  it('sums per chain and asset, every difference 0, exit code 0', async () => {
    const delivered = order('o-delivered', DEP_1);
    const first = await deposit(delivered, 2_600_000_000n);
    await execute(delivered, 2_500_000_000n, 1_000_000n, 2_498_000_000n, 500_000n);
    delivered.deposits[0]!.spent = 2_500_000_000n;
    await refund(delivered, 100_000_000n, 20_000n, first.txId);
    const waiting = order('o-waiting', DEP_2);
    await deposit(waiting, 40_000_000n);
    const opening = order('o-opening', null);

    const r = await audit([delivered, waiting, opening]);
    expect(r.rows.map((x) => x.asset)).toEqual([BASE_USDC, ARB_USDC]);
    expect(row(r, BASE_USDC)).toMatchObject({
      chain: 'base', arrived: 2_640_000_000n, recorded: 2_640_000_000n, foreign: 0n, swappedIn: 0n, swappedOut: 2_499_000_000n,
      delivered: 0n, refunded: 99_980_000n, costs: 1_020_000n, held: 40_000_000n, ledgerHeld: 40_000_000n, ...zeroChecks,
    });
    expect(row(r, ARB_USDC)).toMatchObject({
      chain: 'arbitrum', arrived: 0n, recorded: 0n, swappedIn: 2_498_000_000n, swappedOut: 0n, delivered: 2_497_500_000n,
      costs: 500_000n, held: 0n, ledgerHeld: 0n, ...zeroChecks,
    });
    expect(r).toMatchObject({ orders: 3, findings: [], foreign: [], unreadable: [], differing: 0, clean: true });
    expect(auditExitCode(auditJson(r))).toBe(0);
    const text = renderAudit(auditJson(r));
    expect(text.split('\n').at(-1)).toBe('audit: clean');
    expect(text).toContain('base.USDC  ' + BASE_USDC);
    expect(text).toMatch(/ {2}arrived +2640000000 +2640\n/);
  });

  it('a sender that is the mint itself is external money: it arrives', async () => {
    const o = order('o-mint', DEP_1);
    await deposit(o, 5_000_000n, { from: 'mint' });
    const r = await audit([o]);
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 5_000_000n, recorded: 5_000_000n, held: 5_000_000n, ledgerHeld: 5_000_000n, ...zeroChecks });
    expect(r.clean).toBe(true);
  });
});

describe('an unrecorded late deposit: the ledger has money the records never saw', () => {
  it('shows unrecorded, difference and held mismatch, names the transaction, and exits 1', async () => {
    const o = order('o-late', DEP_1);
    await deposit(o, 2_500_000_000n);
    await execute(o, 2_500_000_000n, 1_000_000n, 2_498_000_000n, 500_000n);
    const late = await deposit(o, 7_000_000n, { record: false });

    const r = await audit([o]);
    expect(row(r, BASE_USDC)).toMatchObject({
      arrived: 2_507_000_000n, recorded: 2_500_000_000n, held: 0n, ledgerHeld: 7_000_000n,
      difference: 7_000_000n, unrecorded: 7_000_000n, heldMismatch: 7_000_000n,
    });
    expect(row(r, ARB_USDC)).toMatchObject(zeroChecks);
    expect(r.findings).toEqual([
      { kind: 'unrecorded_deposit', order: 'o-late', chain: 'base', asset: BASE_USDC, address: DEP_1, txId: late.txId, amount: 7_000_000n },
      { kind: 'held_mismatch', order: 'o-late', chain: 'base', asset: BASE_USDC, address: DEP_1, held: 0n, ledgerHeld: 7_000_000n },
    ]);
    expect(r).toMatchObject({ differing: 1, clean: false });
    const json = auditJson(r);
    expect(auditExitCode(json)).toBe(1);
    expect(json.rows[0]).toMatchObject({ arrived: '2507000000', unrecorded: '7000000' });
    const text = renderAudit(json);
    expect(text.split('\n').at(-1)).toBe('audit: 1 row differs, 2 findings');
    expect(text).toContain(`tx ${late.txId} brought 7000000 (7 base.USDC) to ${DEP_1}; the order has no such deposit`);
    expect(text).toMatch(/ {2}unrecorded +7000000 +7 {2}<- not 0\n/);
  });

  it('the same deposit still in a block not mined yet is pending: held where it arrived, listed, clean', async () => {
    const o = order('o-late', DEP_1);
    await deposit(o, 2_500_000_000n);
    await execute(o, 2_500_000_000n, 1_000_000n, 2_498_000_000n, 500_000n);
    const late = await deposit(o, 7_000_000n, { record: false });
    const r = auditMoney({ orders: [o], transfers: await chains.transfers(), balances: await chains.balances(), heights: { base: late.block - 1 } });
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 2_507_000_000n, recorded: 2_500_000_000n, pending: 7_000_000n, held: 7_000_000n, ledgerHeld: 7_000_000n, ...zeroChecks });
    expect(r.pending).toEqual([{ order: 'o-late', chain: 'base', asset: BASE_USDC, address: DEP_1, txId: late.txId, from: SENDER, amount: 7_000_000n, place: `pending deposit at ${DEP_1}` }]);
    expect(r).toMatchObject({ findings: [], clean: true });
    expect(renderAudit(auditJson(r))).toContain(`pending deposit at ${DEP_1}`);
    // Once its block is mined, an order could have seen it: unrecorded.
    const mined = auditMoney({ orders: [o], transfers: await chains.transfers(), balances: await chains.balances(), heights: { base: late.block } });
    expect(row(mined, BASE_USDC)).toMatchObject({ pending: 0n, unrecorded: 7_000_000n });
  });

  it('a recorded deposit the ledger never saw, and one recorded with another amount, are findings too', async () => {
    const o = order('o-ghost', DEP_1);
    const t = await deposit(o, 3_000_000n);
    o.deposits[0]!.amount = 3_000_001n;
    o.deposits.push({ ...o.deposits[0]!, txId: '0xfeed', amount: 1n });
    const r = await audit([o]);
    expect(r.findings.map((f) => f.kind).sort()).toEqual(['deposit_amount', 'held_mismatch', 'missing_deposit']);
    expect(r.findings.find((f) => f.kind === 'deposit_amount')).toMatchObject({ txId: t.txId, amount: 3_000_000n, recorded: 3_000_001n });
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 3_000_000n, recorded: 3_000_002n, unrecorded: -2n, difference: -2n, heldMismatch: -2n });
    expect(renderAudit(auditJson(r))).toMatch(/ {2}unrecorded +-2 +-0\.000002 {2}<- not 0\n/);
  });
});

describe('a held mismatch: the records and the ledger disagree about what an account holds', () => {
  it('money moved out of a deposit address without a record: difference 0, held mismatch, exit 1', async () => {
    const o = order('o-drained', DEP_1);
    await deposit(o, 9_000_000n);
    await chains.transfer({ key: 'by-hand', chain: 'base', asset: BASE_USDC, from: DEP_1, to: SENDER, amount: 4_000_000n });
    const r = await audit([o]);
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 9_000_000n, held: 9_000_000n, ledgerHeld: 5_000_000n, difference: 0n, unrecorded: 0n, heldMismatch: -4_000_000n });
    expect(r.findings).toEqual([{ kind: 'held_mismatch', order: 'o-drained', chain: 'base', asset: BASE_USDC, address: DEP_1, held: 9_000_000n, ledgerHeld: 5_000_000n }]);
    expect(auditExitCode(auditJson(r))).toBe(1);
  });

  it('a leg and a delivery recorded larger than the ledger moved: the sums agree, the transactions do not', async () => {
    const o = order('o-short', DEP_1);
    await deposit(o, 2_500_000_000n);
    await execute(o, 2_500_000_000n, 1_000_000n, 2_498_000_000n, 500_000n);
    o.legs[0]!.amountOut += 10n;
    o.delivery!.amountIn += 10n;
    o.delivery!.amountOut += 10n;
    const r = await audit([o]);
    expect(row(r, ARB_USDC)).toMatchObject({ swappedIn: 2_498_000_010n, delivered: 2_497_500_010n, held: 0n, ledgerHeld: 0n, difference: 0n, heldMismatch: 0n });
    // The records are consistent with themselves, so only the transactions they name show what really moved.
    expect(r.findings).toEqual([
      { kind: 'flow_mismatch', order: 'o-short', chain: 'arbitrum', asset: ARB_USDC, address: 'order:o-short', txId: o.legs[0]!.txId, what: 'leg 0 output', amount: 2_498_000_010n, ledger: 2_498_000_000n },
      { kind: 'flow_mismatch', order: 'o-short', chain: 'arbitrum', asset: ARB_USDC, address: TO, txId: o.delivery!.txId, what: 'delivery', amount: 2_497_500_010n, ledger: 2_497_500_000n },
    ]);
    expect(r).toMatchObject({ differing: 0, clean: false });
    const text = renderAudit(auditJson(r));
    expect(text).toContain(`the delivery records 2497500010 (2497.50001 arbitrum.USDC) to ${TO}; tx ${o.delivery!.txId} on the ledger moved 2497500000`);
    expect(text.split('\n').at(-1)).toBe('audit: 0 rows differ, 2 findings');
  });

  it('a refund naming a transaction the ledger does not have', async () => {
    const o = order('o-refund', DEP_1);
    const t = await deposit(o, 5_000_000n);
    await refund(o, 5_000_000n, 10_000n, t.txId);
    o.refunds[0]!.txId = '0xnot-on-the-ledger';
    const r = await audit([o]);
    expect(r.findings).toEqual([
      { kind: 'flow_mismatch', order: 'o-refund', chain: 'base', asset: BASE_USDC, address: SENDER, txId: '0xnot-on-the-ledger', what: 'refund excess', amount: 4_990_000n, ledger: null },
    ]);
  });

  it('money sent into a deposit address from another of the router\'s accounts is not an arrival', async () => {
    const o = order('o-internal', DEP_1);
    await chains.transfer({ key: 'fees-out', chain: 'base', asset: BASE_USDC, from: 'mint', to: FEES_ACCOUNT, amount: 50n });
    await chains.transfer({ key: 'fees-in', chain: 'base', asset: BASE_USDC, from: FEES_ACCOUNT, to: DEP_1, amount: 50n });
    const r = await audit([o]);
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 0n, ledgerHeld: 50n, heldMismatch: 50n, difference: 0n });
    expect(r.findings).toEqual([{ kind: 'held_mismatch', order: 'o-internal', chain: 'base', asset: BASE_USDC, address: DEP_1, held: 0n, ledgerHeld: 50n }]);
  });

  it('a holding account of an order that is not in the store is money no record explains', async () => {
    await chains.transfer({ key: 'orphan', chain: 'arbitrum', asset: ARB_USDC, from: poolAccount(VENUE), to: holdingAccount('o-gone'), amount: 12n });
    const r = await audit([]);
    expect(row(r, ARB_USDC)).toMatchObject({ ledgerHeld: 12n, held: 0n, heldMismatch: 12n });
    expect(r.findings).toEqual([{ kind: 'held_mismatch', order: 'o-gone', chain: 'arbitrum', asset: ARB_USDC, address: 'order:o-gone', held: 0n, ledgerHeld: 12n }]);
    expect(r.clean).toBe(false);
  });
});

describe('one order delivering into another order\'s deposit address', () => {
  it('the delivery is the second order\'s recorded deposit: an arrival from inside the router, no finding, clean', async () => {
    const first = order('o-first', DEP_1);
    await deposit(first, 2_500_000_000n);
    const second: MoneyRecords = { ...order('o-second', DEP_2), sourceChain: 'arbitrum', route: { from: ARB_USDC } };
    const d = await execute(first, 2_500_000_000n, 1_000_000n, 2_498_000_000n, 500_000n, DEP_2);
    second.deposits.push({ txId: d.txId, from: holdingAccount(first.id), amount: d.amount, confirmations: 1, required: 1, at: d.at, late: false, spent: 0n, refunded: 0n, fromRouter: true });
    const r = await audit([first, second]);
    expect(r).toMatchObject({ findings: [], clean: true });
    expect(row(r, ARB_USDC)).toMatchObject({ arrived: d.amount, recorded: d.amount, held: d.amount, ledgerHeld: d.amount, ...zeroChecks });
  });
});

describe('a foreign-asset deposit: left at the deposit address for an operator', () => {
  it('is its own row, arrived and held at "foreign deposit at <address>", listed, and the report stays clean', async () => {
    const o = order('o-foreign', DEP_1);
    await deposit(o, 2_000_000n);
    const eth = await deposit(o, 10n ** 16n, { asset: BASE_ETH, record: false });
    const r = await audit([o]);
    expect(row(r, BASE_ETH)).toMatchObject({ chain: 'base', arrived: 10n ** 16n, recorded: 0n, foreign: 10n ** 16n, held: 10n ** 16n, ledgerHeld: 10n ** 16n, ...zeroChecks });
    expect(row(r, BASE_USDC)).toMatchObject({ arrived: 2_000_000n, foreign: 0n, ...zeroChecks });
    expect(r.foreign).toEqual([{
      order: 'o-foreign', chain: 'base', asset: BASE_ETH, address: DEP_1, txId: eth.txId, from: SENDER, amount: 10n ** 16n,
      place: `foreign deposit at ${DEP_1}`,
    }]);
    expect(r).toMatchObject({ findings: [], clean: true });
    const text = renderAudit(auditJson(r));
    expect(text).toContain(`foreign deposit at ${DEP_1}`);
    expect(text).toContain('10000000000000000 (0.01)');
  });

  it('moved away by hand, it shows as a held mismatch until a record explains it', async () => {
    const o = order('o-foreign-moved', DEP_1);
    await deposit(o, 10n ** 16n, { asset: BASE_ETH, record: false });
    await chains.transfer({ key: 'returned', chain: 'base', asset: BASE_ETH, from: DEP_1, to: SENDER, amount: 10n ** 16n });
    const r = await audit([o]);
    expect(row(r, BASE_ETH)).toMatchObject({ held: 10n ** 16n, ledgerHeld: 0n, heldMismatch: -(10n ** 16n) });
    expect(r.clean).toBe(false);
  });
});

describe('records that are not money records are reported, not summed', () => {
  it('names the first field of another shape (an older machine\'s context)', () => {
    const old = { ...order('o-old', DEP_1), deposits: [{ txId: 't', from: SENDER, amount: 1n }], delivery: undefined, amountOut: 5n };
    expect(moneyRecordsProblem(old)).toBe('delivery is not an object');
    expect(moneyRecordsProblem({ ...order('o', DEP_1), legs: [{ index: 0, venue: VENUE, amountIn: 1n, amountOut: 1n, txId: 'x' }] })).toBe('legs[0] from is not a known asset id');
    expect(moneyRecordsProblem({ ...order('o', DEP_1), deposits: [{ txId: 't', amount: '1' }] })).toBe('deposits[0] amount is not a bigint');
    expect(moneyRecordsProblem(null)).toBe('the context is not an object');
    expect(isMoneyRecords(order('o', null))).toBe(true);
  });

  it('an unreadable order makes the report unclean even when every row is 0', () => {
    const r = auditMoney({ orders: [], transfers: [], balances: [], unreadable: [{ id: 'o-old', reason: 'delivery is not an object' }] });
    expect(r).toMatchObject({ rows: [], differing: 0, clean: false });
    const text = renderAudit(auditJson(r));
    expect(text).toContain('o-old  delivery is not an object');
    expect(text.split('\n').at(-1)).toBe('audit: 0 rows differ, 1 unreadable order');
  });
});

describe('a real chain read beside the books: each deposit address\'s on-chain balance of its order\'s asset', () => {
  it('equal to the books: clean; different: an onchain_mismatch naming both; ETH orders: a shortfall, or more than the gas top-ups\' dust', async () => {
    const o = order('o-real', DEP_1);
    await deposit(o, 9_000_000n);
    const eth = { ...order('o-eth', DEP_2), route: { from: BASE_ETH } };
    const accounts = depositAccounts([o, eth, o]);
    expect(accounts).toEqual([
      { order: 'o-real', chain: 'base', address: DEP_1, asset: BASE_USDC },
      { order: 'o-eth', chain: 'base', address: DEP_2, asset: BASE_ETH },
    ]);
    const withChain = async (usdc: bigint, ethOnChain: bigint) =>
      auditMoney({
        orders: [o, eth],
        transfers: await chains.transfers(),
        balances: await chains.balances(),
        onChain: [
          { chain: 'base', address: DEP_1.toLowerCase(), asset: BASE_USDC, amount: usdc },
          { chain: 'base', address: DEP_2.toLowerCase(), asset: BASE_ETH, amount: ethOnChain },
        ],
        // The gas account sent the ETH order's address 200 wei for a send from it.
        gasDesk: [{ chain: 'base', key: 'o-eth:refund:x:0', fee: 77n, toppedUp: 200n }],
      });
    // (The send's gas, charged nothing here, is a gas finding of its own, not read in this test.)
    const mismatches = async (usdc: bigint, ethOnChain: bigint) => (await withChain(usdc, ethOnChain)).findings.filter((f) => f.kind === 'onchain_mismatch');
    // The ETH order's address holds gas dust the books never see, at most what it was sent for gas: not a finding.
    expect(await mismatches(9_000_000n, 0n)).toEqual([]);
    expect(await mismatches(9_000_000n, 123n)).toEqual([]);
    expect(await mismatches(9_000_000n, 200n)).toEqual([]);
    // More than that reached it unseen (a contract's payment read from a node without a call tracer): named.
    expect(await mismatches(9_000_000n, 10n ** 15n)).toEqual([
      { kind: 'onchain_mismatch', order: 'o-eth', chain: 'base', asset: BASE_ETH, address: DEP_2, onChain: 10n ** 15n, books: 0n },
    ]);
    const r = await withChain(9_000_001n, 0n);
    expect(r.findings.filter((f) => f.kind === 'onchain_mismatch')).toEqual([{ kind: 'onchain_mismatch', order: 'o-real', chain: 'base', asset: BASE_USDC, address: DEP_1, onChain: 9_000_001n, books: 9_000_000n }]);
    expect(r).toMatchObject({ differing: 0, clean: false });
    expect(renderAudit(auditJson(r))).toContain(`${DEP_1} holds 9000001 (9.000001 base.USDC) on base (read from the chain); the books hold 9000000 (9 base.USDC)`);
    await chains.simulateDeposit({ chain: 'base', asset: BASE_ETH, from: SENDER, to: DEP_2.toLowerCase(), amount: 50n });
    eth.deposits = [];
    const short = await withChain(9_000_000n, 40n);
    expect(short.findings.filter((f) => f.kind === 'onchain_mismatch')).toEqual([
      { kind: 'onchain_mismatch', order: 'o-eth', chain: 'base', asset: BASE_ETH, address: DEP_2, onChain: 40n, books: 50n },
    ]);
  });
});

describe('gas of deposit addresses on real chains: spent beside charged, per order', () => {
  // 1 USDC = 1 USD, 1 ETH = 3 000 USD (8 decimals), as a quote stores them.
  const prices = { [BASE_USDC]: 100_000_000n, [BASE_ETH]: 300_000_000_000n };
  // 30 000 USDC base units (0.03 USDC) = 10^13 wei at those prices.
  const CHARGED_WEI = 10_000_000_000_000n;

  async function executed(id: string, address: string): Promise<MoneyRecords> {
    const o = order(id, address);
    await deposit(o, 2_600_000_000n);
    await execute(o, 2_500_000_000n, 30_000n, 2_498_000_000n, 500_000n);
    return o;
  }

  it('sums the fees of the sends keyed <order id>:… and of their top-ups; charged at the quote\'s prices covers them: clean', async () => {
    const o = await executed('o-gas', DEP_1);
    const r = auditMoney({
      orders: [o], transfers: await chains.transfers(), balances: await chains.balances(),
      gasDesk: [
        { chain: 'base', key: 'o-gas:0:cost', fee: 3_000_000_000_000n, toppedUp: 4_000_000_000_000n },
        { chain: 'base', key: 'o-gas:0:in', fee: 4_000_000_000_000n, toppedUp: 2_000_000_000_000n },
        // Another order's send and another chain's: not this order's gas.
        { chain: 'base', key: 'o-other:0:cost', fee: 10n ** 18n, toppedUp: 0n },
        { chain: 'arbitrum', key: 'o-gas:deliver', fee: 10n ** 18n, toppedUp: 0n },
      ],
      quotePrices: new Map([['o-gas', prices]]),
    });
    expect(r.gas).toEqual([
      // 7·10^12 wei = 0.021 USD = 21 000 USDC base units.
      { order: 'o-gas', chain: 'base', asset: BASE_USDC, address: DEP_1, charged: 30_000n, chargedWei: CHARGED_WEI, spentWei: 7_000_000_000_000n, spent: 21_000n, toppedUp: 6_000_000_000_000n },
    ]);
    expect(r.findings).toEqual([]);
    expect(r.clean).toBe(true);
    expect(renderAudit(auditJson(r))).toContain('gas of deposit addresses on real chains');
  });

  it('an order whose sends cost more gas than it was charged is named (gas_undercharged) and the audit is not clean', async () => {
    const o = await executed('o-dear', DEP_2);
    const r = auditMoney({
      orders: [o], transfers: await chains.transfers(), balances: await chains.balances(),
      gasDesk: [{ chain: 'base', key: 'o-dear:0:cost', fee: CHARGED_WEI + 1n, toppedUp: CHARGED_WEI }],
      quotePrices: new Map([['o-dear', prices]]),
    });
    expect(r.findings).toEqual([
      { kind: 'gas_undercharged', order: 'o-dear', chain: 'base', asset: BASE_USDC, address: DEP_2, spentWei: CHARGED_WEI + 1n, chargedWei: CHARGED_WEI, charged: 30_000n },
    ]);
    expect(r.clean).toBe(false);
    expect(auditExitCode(auditJson(r))).not.toBe(0);
    expect(renderAudit(auditJson(r))).toMatch(/o-dear +gas_undercharged +the sends from 0xAbCdEf0+2 cost 10000000000001 wei of gas on base; the order was charged 30000/);
  });

  it('a refund\'s cost taken from the deposit address ahead of its payment counts as charged while the payment waits', async () => {
    const o = await executed('o-ahead', DEP_1);
    const r = auditMoney({
      orders: [{ ...o, costsAhead: [{ chain: 'base', asset: BASE_USDC, address: DEP_1, amount: 20_000n }] }],
      transfers: await chains.transfers(), balances: await chains.balances(),
      gasDesk: [{ chain: 'base', key: 'o-ahead:refund:x:0', fee: CHARGED_WEI, toppedUp: CHARGED_WEI }],
      quotePrices: new Map([['o-ahead', prices]]),
    });
    expect(r.gas).toMatchObject([{ order: 'o-ahead', charged: 50_000n, chargedWei: (CHARGED_WEI * 5n) / 3n, spentWei: CHARGED_WEI }]);
    expect(r.findings.filter((f) => f.kind === 'gas_undercharged')).toEqual([]);
  });

  it('without the quote\'s prices the charge is not converted: the row says so and nothing is compared', async () => {
    const o = await executed('o-unpriced', DEP_1);
    const r = auditMoney({
      orders: [o], transfers: await chains.transfers(), balances: await chains.balances(),
      gasDesk: [{ chain: 'base', key: 'o-unpriced:0:in', fee: 10n ** 18n, toppedUp: 0n }],
    });
    expect(r.gas).toMatchObject([{ order: 'o-unpriced', charged: 30_000n, chargedWei: null, spentWei: 10n ** 18n, spent: null }]);
    expect(r.findings).toEqual([]);
  });
});
