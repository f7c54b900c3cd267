// `router admin audit` as people read it: one aligned table per chain and asset (every term in base units and in
// whole units), the foreign deposits, the findings per order, and a last line `audit: clean` or `audit: N rows
// differ`. It renders the wire form (amounts as decimal strings), which the admin subject answers and
// `--data-dir` produces alike, so both paths print the same text. Pure, so tests need no server or data dir.
import { assetById } from '../assets/registry.js';
import type { AssetId } from '../assets/types.js';
import { writeAmount } from '../assets/amounts.js';
import type { AccountRowJson, AuditFindingJson, AuditReportJson, AuditRowJson, PlacedDepositJson } from '../orders/audit.js';

/** 0 when every difference is 0 (the report is clean), 1 otherwise. */
export const auditExitCode = (r: Pick<AuditReportJson, 'clean'>): number => (r.clean ? 0 : 1);

const TERMS: Array<[keyof AuditRowJson, string]> = [
  ['arrived', 'arrived'],
  ['recorded', 'recorded'],
  ['foreign', 'foreign'],
  ['pending', 'pending'],
  ['swappedIn', 'swapped in'],
  ['swappedOut', 'swapped out'],
  ['delivered', 'delivered'],
  ['refunded', 'refunded'],
  ['costs', 'costs'],
  ['held', 'held'],
  ['ledgerHeld', 'ledger held'],
  ['difference', 'difference'],
  ['unrecorded', 'unrecorded'],
  ['heldMismatch', 'held mismatch'],
];
const CHECKS = new Set<keyof AuditRowJson>(['difference', 'unrecorded', 'heldMismatch']);

function assetName(id: AssetId): string {
  try {
    const a = assetById(id);
    return `${a.chain}.${a.symbol}`;
  } catch {
    return id;
  }
}

/** Whole units of the asset (`-` before a negative amount), or '' when the asset is not in the registry. */
function whole(amount: string, id: AssetId): string {
  try {
    const n = BigInt(amount);
    const a = assetById(id);
    return n < 0n ? `-${writeAmount(-n, a, 'formatted')}` : writeAmount(n, a, 'formatted');
  } catch {
    return '';
  }
}

/** Columns aligned; `right` columns padded on the left (numbers), the last column never padded. */
function align(rows: string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((cells) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i] ?? 0) : i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function renderRow(r: AuditRowJson): string[] {
  const differs = [...CHECKS].some((k) => r[k] !== '0');
  const lines = TERMS.map(([k, label]) => {
    const v = String(r[k]);
    return [`  ${label}`, v, whole(v, r.asset), CHECKS.has(k) && v !== '0' ? '<- not 0' : ''];
  });
  return [`${assetName(r.asset)}  ${r.asset}${differs ? '  DIFFERS' : ''}`, ...align(lines, new Set([1, 2]))];
}

function describe(f: AuditFindingJson): string {
  const amount = (v: string) => `${v} (${whole(v, f.asset) || '?'} ${assetName(f.asset)})`;
  switch (f.kind) {
    case 'unrecorded_deposit':
      return `tx ${f.txId} brought ${amount(f.amount)} to ${f.address}; the order has no such deposit`;
    case 'missing_deposit':
      return `the order records tx ${f.txId} of ${amount(f.amount)}; the ledger has no such arrival at ${f.address}`;
    case 'deposit_amount':
      return `tx ${f.txId} brought ${amount(f.amount)} to ${f.address}; the order records ${amount(f.recorded)}`;
    case 'held_mismatch':
      return `${f.address} holds ${amount(f.ledgerHeld)} on the ledger; the records leave ${amount(f.held)}`;
    case 'flow_mismatch':
      return f.ledger === null
        ? `the ${f.what} of ${amount(f.amount)} to ${f.address} names tx ${f.txId}, which the ledger does not have`
        : `the ${f.what} records ${amount(f.amount)} to ${f.address}; tx ${f.txId} on the ledger moved ${f.ledger} to another place or amount`;
    case 'onchain_mismatch':
      return `${f.address} holds ${amount(f.onChain)} on ${f.chain} (read from the chain); the books hold ${amount(f.books)}`;
    case 'gas_undercharged':
      return `the sends from ${f.address} cost ${f.spentWei} wei of gas on ${f.chain}; the order was charged ${amount(f.charged)} = ${f.chargedWei} wei`;
  }
}

export function renderAudit(r: AuditReportJson): string {
  const out: string[] = [
    `audit of ${r.orders} order${r.orders === 1 ? '' : 's'}: per chain and asset, in base units and whole units`,
    'difference = arrived + swapped in - swapped out - delivered - refunded - costs - held',
    'unrecorded = arrived - foreign - pending - recorded; held mismatch = ledger held - held; each must be 0',
  ];
  if (!r.rows.length) out.push('', '(no money has moved)');
  for (const row of r.rows) out.push('', ...renderRow(row));
  const placed = (title: string, list: PlacedDepositJson[]) => {
    if (!list.length) return;
    out.push('', title);
    out.push(...align([
      ['ORDER', 'ASSET', 'AMOUNT', 'FROM', 'TX', 'PLACE'],
      ...list.map((f) => [f.order, assetName(f.asset), `${f.amount} (${whole(f.amount, f.asset)})`, f.from, f.txId, f.place]),
    ]));
  };
  placed('foreign deposits (another asset than the order\'s; held where they arrived, for an operator)', r.foreign);
  placed('pending deposits (in a block not mined yet; held where they arrived until their order records them)', r.pending);
  if (r.findings.length) {
    out.push('', 'findings');
    out.push(...align([['ORDER', 'KIND', 'WHAT'], ...r.findings.map((f) => [f.order, f.kind, describe(f)])]));
  }
  if (r.accounts.length) {
    out.push('', 'router accounts on real chains: expected = float + booked - fees + in flight; difference = on chain - expected, must be 0');
    out.push(...align([
      ['CHAIN', 'ACCOUNT', 'ADDRESS', 'ASSET', 'BLOCK', 'ON CHAIN', 'EXPECTED', 'FLOAT', 'BOOKED', 'FEES', 'IN FLIGHT', 'DIFFERENCE'],
      ...r.accounts.map((a: AccountRowJson) => [
        a.chain, a.role, a.address, assetName(a.asset), String(a.block), a.onChain, a.expected, a.float, a.booked, a.fees, a.inFlight,
        a.difference === '0' ? '0' : `${a.difference} (${whole(a.difference, a.asset)})  <- not 0`,
      ]),
    ], new Set([4, 5, 6, 7, 8, 9, 10])));
    for (const a of r.accounts.filter((x) => x.unrestored?.length)) {
      out.push(`  ${a.chain} ${a.role} ${assetName(a.asset)}: sends a reorg removed and the router does not restore (in the books, not on chain): ${a.unrestored!.join(', ')}`);
    }
  }
  if (r.gas.length) {
    out.push('', 'gas of deposit addresses on real chains: spent (the sends\' and their top-ups\' fees) must not exceed charged');
    out.push(...align([
      ['ORDER', 'CHAIN', 'ASSET', 'CHARGED', 'CHARGED WEI', 'SPENT WEI', 'SPENT', 'TOPPED UP WEI'],
      ...r.gas.map((g) => [
        g.order, g.chain, assetName(g.asset), `${g.charged} (${whole(g.charged, g.asset)})`, g.chargedWei ?? '? (unpriced)', g.spentWei,
        g.spent === null ? '?' : `${g.spent} (${whole(g.spent, g.asset)})`, g.toppedUp,
      ]),
    ], new Set([3, 4, 5, 6, 7])));
  }
  if (r.unreadable.length) {
    out.push('', 'orders whose records could not be read (not audited)');
    out.push(...align([['ORDER', 'WHY'], ...r.unreadable.map((u) => [u.id, u.reason])]));
  }
  out.push('');
  if (r.clean) out.push('audit: clean');
  else {
    const parts = [`${r.differing} row${r.differing === 1 ? '' : 's'} differ${r.differing === 1 ? 's' : ''}`];
    if (r.findings.length) parts.push(`${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}`);
    if (r.unreadable.length) parts.push(`${r.unreadable.length} unreadable order${r.unreadable.length === 1 ? '' : 's'}`);
    const accounts = r.accounts.filter((a) => a.difference !== '0').length;
    if (accounts) parts.push(`${accounts} router account${accounts === 1 ? '' : 's'} differ${accounts === 1 ? 's' : ''}`);
    out.push(`audit: ${parts.join(', ')}`);
  }
  return out.join('\n');
}
