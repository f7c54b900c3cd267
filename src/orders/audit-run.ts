// Reads what the money audit needs: every order's records from the store and, from the ledger, the transfers into
// their deposit addresses, the transfers their records name and the balances of their accounts; `auditMoney`
// (src/orders/audit.ts) does the sums.
// Read-only. It holds every order's money records and the ledger's non-zero balances in memory at once (a few
// hundred bytes per order: fine for the order counts of one host; a streaming audit would sum per page instead).
import type { ChainName } from '../assets/types.js';
import { CHAIN_NAMES } from '../assets/types.js';
import { chainsSharingAddresses } from '../assets/chains.js';
import { accountKey } from '../chains/accounts.js';
import type { AccountReconciliation, Balance, Chains, Transfer } from '../chains/types.js';
import {
  auditMoney,
  depositAccounts,
  moneyRecordsProblem,
  type AuditReport,
  type OnChainBalance,
  type UnreadableOrder,
} from './audit.js';
import { costKey, deliveryKey, holdingAccount, type Holding, type MoneyRecords } from './money.js';
import type { ActorStore } from '../store/types.js';

export interface AuditDeps {
  store: Pick<ActorStore, 'list' | 'load'>;
  /** With `onChainBalance` (real chains), every deposit address's on-chain balance of its order's asset is read and
   *  reconciled with the books; without it (simulated chains) the books are the chain and nothing more is read. */
  chains: Pick<Chains, 'transfers' | 'balances' | 'height' | 'onChainBalance' | 'reconcileAccounts' | 'gasDesk'>;
  /** Orders per store page; default 500. */
  pageSize?: number;
  /**
   * The store and the ledger are read one after the other while a running service moves money between them (a leg
   * written to the ledger before its record, a deposit not yet seen by the feed), so an order that disagrees is read
   * again, both sides, up to `times` more times `delayMs` apart before it counts. Default 4 times 500 ms apart,
   * longer than the deposit feed's default poll (1 s), so a mined deposit has been told to its order.
   */
  recheck?: { times: number; delayMs: number };
}

/** The order's money records from a stored snapshot (an order machine's context), or why they cannot be read. The
 *  shape is checked at run time, not cast: a stored snapshot may predate the machine that reads it. */
export function readOrderRecords(snapshot: unknown): MoneyRecords | string {
  const context = snapshot !== null && typeof snapshot === 'object' && 'context' in snapshot ? snapshot.context : undefined;
  if (context === undefined) return 'the snapshot has no context';
  const problem = moneyRecordsProblem(context);
  return problem ?? (context as MoneyRecords);
}

interface OrderData {
  records: MoneyRecords;
  transfers: Transfer[];
  /** The id of the quote the order was made from, when its snapshot names one. */
  quoteId: string | null;
}

const field = (v: unknown, name: string): unknown => {
  if (v === null || typeof v !== 'object') return undefined;
  const own: unknown = Object.getOwnPropertyDescriptor(v, name)?.value;
  return own;
};

/** The USD prices stored with a quote (a quote machine's snapshot: `context.quote.usdPrices`), or null when the
 *  snapshot holds none; checked at run time like the orders' records. */
export function readQuotePrices(snapshot: unknown): Record<string, bigint> | null {
  const prices = field(field(field(snapshot, 'context'), 'quote'), 'usdPrices');
  if (prices === null || typeof prices !== 'object') return null;
  const out: Record<string, bigint> = {};
  for (const [asset, price] of Object.entries(prices)) if (typeof price === 'bigint') out[asset] = price;
  return out;
}

export async function runAudit(deps: AuditDeps): Promise<AuditReport> {
  const { store, chains } = deps;
  const pageSize = deps.pageSize ?? 500;
  const recheck = deps.recheck ?? { times: 4, delayMs: 500 };

  const orders = new Map<string, OrderData>();
  const unreadable = new Map<string, UnreadableOrder>();

  async function readOrder(id: string): Promise<void> {
    orders.delete(id);
    unreadable.delete(id);
    const stored = await store.load('order', id);
    if (!stored) return;
    const records = readOrderRecords(stored.snapshot);
    if (typeof records === 'string') {
      unreadable.set(id, { id, reason: records });
      return;
    }
    const quoteId = field(field(stored.snapshot, 'context'), 'quoteId');
    const costsAhead = await costsAheadOf(records, field(field(stored.snapshot, 'context'), 'paying'));
    const read = costsAhead.length ? { ...records, costsAhead } : records;
    orders.set(id, { records: read, transfers: await transfersOf(read), quoteId: typeof quoteId === 'string' ? quoteId : null });
  }

  /** Costs moved for the order's delivery or the refund it is paying (`paying`, from its context) before their
   *  payment is recorded: a payment the chain refused waits for its retry with its cost already gone. */
  async function costsAheadOf(r: MoneyRecords, paying: unknown): Promise<Holding[]> {
    const out: Holding[] = [];
    const ahead = async (paymentKey: string, address: string) => {
      for (const t of await chains.transfers({ key: costKey(paymentKey) })) out.push({ chain: t.chain, asset: t.asset, address, amount: t.amount });
    };
    if (r.delivery === null && r.legs.length > 0) await ahead(deliveryKey(r.id), holdingAccount(r.id));
    const key = field(paying, 'key');
    const from = field(paying, 'from');
    if (typeof key === 'string' && typeof from === 'string' && !r.refunds.some((f) => f.key === key)) await ahead(key, from);
    return out;
  }

  /** The arrivals at the order's deposit address (on every EVM chain for an EVM one: the address is the same on each,
   *  and what arrives on another chain is the order's foreign deposit), and the transfers its records name (by the
   *  unique tx id). */
  async function transfersOf(r: MoneyRecords): Promise<Transfer[]> {
    const out: Transfer[] = [];
    if (r.vault) {
      const key = accountKey(r.sourceChain, r.vault.address);
      for (const chain of chainsSharingAddresses(r.sourceChain)) {
        const list = await chains.transfers({ chain, address: r.vault.address });
        out.push(...list.filter((t) => accountKey(t.chain, t.to) === key));
      }
    }
    const named = [...r.legs.map((l) => l.txId), r.delivery?.txId, ...r.refunds.map((f) => f.txId)];
    for (const txId of named) if (txId) out.push(...(await chains.transfers({ txId })));
    return out;
  }

  for (let afterId: string | undefined; ; ) {
    const page = await store.list({ kind: 'order', limit: pageSize, ...(afterId !== undefined ? { afterId } : {}) });
    for (const s of page) await readOrder(s.id);
    if (page.length < pageSize) break;
    afterId = page.at(-1)!.id;
  }
  // Every non-zero balance in one read: one pass over the ledger's balances instead of a query per account.
  let balances: Balance[] = await chains.balances();
  // Read after the transfers: an arrival in a later block was pending when read, so no order can have seen it.
  const heights: Partial<Record<ChainName, number>> = {};
  const readHeights = async () => {
    for (const chain of CHAIN_NAMES) heights[chain] = await chains.height(chain);
  };
  await readHeights();
  // The chain beside the books, read after them: a deposit mined in between (on chain, not yet booked by the feed)
  // is a difference the rechecks below clear once the feed books it.
  let onChain = await onChainOf([...orders.values()].map((o) => o.records));
  // The router's own accounts on real chains (treasury, gas account), reconciled by the chains adapter.
  const readAccounts = async (): Promise<AccountReconciliation[]> => (chains.reconcileAccounts ? chains.reconcileAccounts() : []);
  let accounts = await readAccounts();
  // The gas paid for deposit addresses' sends on real chains, beside what each order was charged for it.
  const readGas = async () => (chains.gasDesk ? chains.gasDesk() : []);
  let gasDesk = await readGas();
  const quotePrices = new Map<string, Record<string, bigint>>();
  const readPrices = async (id: string) => {
    const quoteId = orders.get(id)?.quoteId;
    if (!gasDesk.length || !quoteId || quotePrices.has(id)) return;
    const quote = await store.load('quote', quoteId);
    const prices = quote ? readQuotePrices(quote.snapshot) : null;
    if (prices) quotePrices.set(id, prices);
  };
  for (const id of orders.keys()) await readPrices(id);

  const audit = () =>
    auditMoney({
      orders: [...orders.values()].map((o) => o.records),
      transfers: [...orders.values()].flatMap((o) => o.transfers),
      balances,
      unreadable: [...unreadable.values()],
      heights,
      onChain,
      accounts,
      gasDesk,
      quotePrices,
    });

  let report = audit();
  for (let i = 0; i < recheck.times && !report.clean; i++) {
    await new Promise((r) => setTimeout(r, recheck.delayMs));
    const ids = new Set([...report.findings.map((f) => f.order), ...report.unreadable.map((u) => u.id)]);
    const fresh: Balance[] = [];
    for (const id of ids) {
      await readOrder(id);
      fresh.push(...(await balancesOf(id, orders.get(id)?.records ?? null)));
    }
    const reread = new Set(fresh.map(accountOf));
    for (const id of ids) {
      const r = orders.get(id)?.records;
      for (const chain of CHAIN_NAMES) reread.add(`${chain}|${holdingAccount(id)}`);
      if (r?.vault) reread.add(`${r.sourceChain}|${accountKey(r.sourceChain, r.vault.address)}`);
    }
    balances = [...balances.filter((b) => !reread.has(accountOf(b))), ...fresh];
    const freshOnChain = await onChainOf([...ids].flatMap((id) => { const r = orders.get(id)?.records; return r ? [r] : []; }));
    onChain = [...onChain.filter((c) => !reread.has(accountOf(c))), ...freshOnChain];
    if (report.accounts.some((a) => a.difference !== 0n)) accounts = await readAccounts();
    // The gas rows bound an ETH order's dust too: a top-up sent since they were read is on chain now.
    if (report.findings.some((f) => f.kind === 'gas_undercharged' || f.kind === 'onchain_mismatch')) gasDesk = await readGas();
    for (const id of ids) await readPrices(id);
    await readHeights();
    report = audit();
  }
  return report;

  /** The on-chain balances of the orders' deposit addresses on real chains (none when the chains have no node). */
  async function onChainOf(records: readonly MoneyRecords[]): Promise<OnChainBalance[]> {
    if (!chains.onChainBalance) return [];
    const out: OnChainBalance[] = [];
    for (const a of depositAccounts(records)) {
      const amount = await chains.onChainBalance(a.chain, a.address, a.asset);
      if (amount !== null) out.push({ chain: a.chain, address: a.address, asset: a.asset, amount });
    }
    return out;
  }

  async function balancesOf(id: string, r: MoneyRecords | null): Promise<Balance[]> {
    const out: Balance[] = [];
    for (const chain of CHAIN_NAMES) out.push(...(await chains.balances({ chain, address: holdingAccount(id) })));
    if (r?.vault) out.push(...(await chains.balances({ chain: r.sourceChain, address: r.vault.address })));
    return out;
  }
}

const accountOf = (b: { chain: ChainName; address: string }) => `${b.chain}|${accountKey(b.chain, b.address)}`;
