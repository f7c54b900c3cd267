// The simulated chains adapter: one SQLite ledger of transfers and balances for all chains, heights from the clock.
// Each transfer commits (WAL, synchronous=FULL) before its promise resolves, so a SIGKILL never loses or repeats one.
import { boundLedger } from './bound-ledger.js';
import { randomUUID } from 'node:crypto';
import { CHAINS } from '../assets/chains.js';
import { assetById } from '../assets/registry.js';
import { CHAIN_NAMES, type AssetId, type ChainName } from '../assets/types.js';
import type { Clock } from '../clock.js';
import { ConfigError, InvalidAddress, InvalidAmount, InvalidRequest, UnknownAsset, Unavailable } from '../errors.js';
import { openWalDatabase } from '../store/sqlite-open.js';
import { addMissingColumns } from '../store/sqlite-columns.js';
import { MINT_ACCOUNT, accountKey, isUnbounded } from './accounts.js';
import { BLOCK_MS, REQUIRED_CONFIRMATIONS, confirmationsAt, heightAt } from './blocks.js';
import { InsufficientFunds } from './errors.js';
import { simTxId } from './tx-id.js';
import type {
  Balance,
  ChainLedger,
  Deposit,
  SimChains,
  SimulatedDeposit,
  Transfer,
  TransferFilter,
  TransferRequest,
} from './types.js';
import { WatchHub } from './watch-hub.js';

export interface SimChainsOptions {
  /** better-sqlite3 file (created with its folder if missing), or ':memory:'. May be the store's own file: tables are `ledger_*`. */
  file: string;
  clock: Clock;
  /** Block interval overrides, ms (integers ≥ 1). */
  blockMs?: Partial<Record<ChainName, number>>;
  /** Confirmation policy overrides (integers ≥ 0). */
  requiredConfirmations?: Partial<Record<ChainName, number>>;
  /** How often watches are checked, ms; default 500; 0 = only on `poll()` and after local transfers. */
  pollMs?: number;
}

interface TransferRow {
  seq: number;
  key: string;
  tx_id: string;
  chain: ChainName;
  asset: AssetId;
  from_addr: string;
  to_addr: string;
  amount: string;
  block: number;
  at: number;
}

interface ChainParams {
  genesisAt: number;
  blockMs: number;
}

const MAX_TEXT = 512;

function toTransfer(r: TransferRow): Transfer {
  return {
    txId: r.tx_id,
    key: r.key,
    chain: r.chain,
    asset: r.asset,
    from: r.from_addr,
    to: r.to_addr,
    amount: BigInt(r.amount),
    block: r.block,
    at: r.at,
  };
}

function checkChain(chain: unknown): asserts chain is ChainName {
  if (typeof chain !== 'string' || !Object.hasOwn(CHAINS, chain)) {
    throw new InvalidRequest(`chain must be one of ${CHAIN_NAMES.join(', ')}, got ${String(chain)}.`, 'chain');
  }
}

function checkText(value: unknown, field: string, Err: typeof InvalidRequest = InvalidRequest): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEXT) {
    throw new Err(`${field} must be a non-empty string of at most ${MAX_TEXT} characters.`, field);
  }
}

function checkRequest(t: TransferRequest): void {
  checkText(t.key, 'key');
  checkChain(t.chain);
  if (typeof t.asset !== 'string') throw new UnknownAsset('asset must be a canonical asset id.', 'asset');
  const asset = assetById(t.asset);
  if (asset.chain !== t.chain) throw new UnknownAsset(`Asset ${t.asset} is not on chain ${t.chain}.`, 'asset');
  checkText(t.from, 'from', InvalidAddress);
  checkText(t.to, 'to', InvalidAddress);
  if (typeof t.amount !== 'bigint' || t.amount <= 0n) {
    throw new InvalidAmount('amount must be a positive bigint of base units.', 'amount');
  }
}

/** Normal forms an address may have: the chain's, or without a chain both kinds (EVM-style and Bitcoin). */
function addressKeys(chain: ChainName | undefined, address: string): string[] {
  if (chain) return [accountKey(chain, address)];
  return [...new Set([accountKey('ethereum', address), accountKey('bitcoin', address)])];
}

function policy(name: string, overrides: Partial<Record<ChainName, number>> | undefined, base: Record<ChainName, number>, min: number): Record<ChainName, number> {
  const out = { ...base };
  for (const [chain, v] of Object.entries(overrides ?? {})) {
    if (v === undefined) continue;
    checkChain(chain);
    if (!Number.isSafeInteger(v) || v < min) throw new ConfigError(`${name}.${chain} must be an integer ≥ ${min}, got ${v}.`);
    out[chain] = v;
  }
  return out;
}

export function openSimChains(opts: SimChainsOptions): SimChains {
  const { clock } = opts;
  const blockMs = policy('blockMs', opts.blockMs, BLOCK_MS, 1);
  const required = policy('requiredConfirmations', opts.requiredConfirmations, REQUIRED_CONFIRMATIONS, 0);
  const pollMs = opts.pollMs ?? 500;

  // Private like the store it shares a file with: data dir 0700 when created here, file 0600.
  const db = openWalDatabase(opts.file);
  // Amounts are TEXT: SQLite integers stop at 2^63, about 9.2 ETH in wei.
  db.exec(`
    CREATE TABLE IF NOT EXISTS ledger_chains (
      chain TEXT PRIMARY KEY,
      genesis_at INTEGER NOT NULL,
      block_ms INTEGER NOT NULL,
      sealed INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS ledger_transfers (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      tx_id TEXT NOT NULL UNIQUE,
      chain TEXT NOT NULL,
      asset TEXT NOT NULL,
      from_addr TEXT NOT NULL,
      from_key TEXT NOT NULL,
      to_addr TEXT NOT NULL,
      to_key TEXT NOT NULL,
      amount TEXT NOT NULL,
      block INTEGER NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ledger_transfers_to ON ledger_transfers (chain, to_key, seq);
    CREATE INDEX IF NOT EXISTS ledger_transfers_from ON ledger_transfers (chain, from_key, seq);
    CREATE INDEX IF NOT EXISTS ledger_transfers_block ON ledger_transfers (chain, block, seq);
    CREATE TABLE IF NOT EXISTS ledger_balances (
      chain TEXT NOT NULL,
      account TEXT NOT NULL,
      asset TEXT NOT NULL,
      amount TEXT NOT NULL,
      PRIMARY KEY (chain, account, asset)
    );
  `);

  // A file written before heights were sealed gains the column (every block of it counts as open).
  db.transaction(() => addMissingColumns(db, 'ledger_chains', [['sealed', 'INTEGER NOT NULL DEFAULT 0']])).immediate();

  const getChain = db.prepare<[string], { genesis_at: number; block_ms: number }>(
    'SELECT genesis_at, block_ms FROM ledger_chains WHERE chain = ?',
  );
  const putChain = db.prepare(
    'INSERT INTO ledger_chains (chain, genesis_at, block_ms) VALUES (?, ?, ?) ON CONFLICT (chain) DO UPDATE SET genesis_at = excluded.genesis_at, block_ms = excluded.block_ms',
  );
  const getSealed = db.prepare<[string], { sealed: number }>('SELECT sealed FROM ledger_chains WHERE chain = ?');
  const raiseSealed = db.prepare('UPDATE ledger_chains SET sealed = ? WHERE chain = ? AND sealed < ?');
  const byKey = db.prepare<[string], TransferRow>('SELECT * FROM ledger_transfers WHERE key = ?');
  const insertTransfer = db.prepare(
    `INSERT INTO ledger_transfers (key, tx_id, chain, asset, from_addr, from_key, to_addr, to_key, amount, block, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const getBalance = db.prepare<[string, string, string], { amount: string }>(
    'SELECT amount FROM ledger_balances WHERE chain = ? AND account = ? AND asset = ?',
  );
  const putBalance = db.prepare(
    'INSERT INTO ledger_balances (chain, account, asset, amount) VALUES (?, ?, ?, ?) ON CONFLICT (chain, account, asset) DO UPDATE SET amount = excluded.amount',
  );
  const maxBlocks = db.prepare<[], { chain: ChainName; block: number }>(
    'SELECT chain, MAX(block) AS block FROM ledger_transfers GROUP BY chain',
  );
  const maxSeq = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM ledger_transfers');
  const depositsTo = db.prepare<[string, string, number], TransferRow>(
    'SELECT * FROM ledger_transfers WHERE chain = ? AND to_key = ? AND block >= ? ORDER BY seq',
  );
  const scan = db.prepare<[string, number, number], TransferRow>(
    'SELECT * FROM ledger_transfers WHERE chain = ? AND block BETWEEN ? AND ? ORDER BY block, seq',
  );

  // Heights follow the clock from a genesis stored on first open, so they continue across restarts. A changed
  // interval re-anchors the genesis at the current height instead of jumping the height.
  const params = new Map<ChainName, ChainParams>();
  db.transaction(() => {
    const now = clock.now();
    for (const chain of CHAIN_NAMES) {
      const ms = blockMs[chain];
      const row = getChain.get(chain);
      let genesisAt = row?.genesis_at ?? now;
      if (!row || row.block_ms !== ms) {
        if (row) genesisAt = now - (heightAt(now, row.genesis_at, row.block_ms) - 1) * ms;
        putChain.run(chain, genesisAt, ms);
      }
      params.set(chain, { genesisAt, blockMs: ms });
    }
  }).immediate();

  // A height never falls below a recorded block − 1, so confirmations never turn negative and a mined block never
  // gains a transfer, even when the clock is behind the one that wrote the file (a manual clock reset by a restart).
  const floor = new Map<ChainName, number>();
  for (const r of maxBlocks.all()) floor.set(r.chain, r.block - 1);

  const height = (chain: ChainName): number => {
    const p = params.get(chain)!;
    return Math.max(heightAt(clock.now(), p.genesisAt, p.blockMs), floor.get(chain) ?? 1);
  };

  // Processes sharing the file each take a transfer's block from their clock inside the write transaction, but its
  // rows are visible only once the commit (an fsync) is done. A scan in another process reading up to the height
  // meanwhile would move its cursor past a block that gains a transfer afterwards, and miss it. So a scan first seals
  // the blocks it reads, in a write transaction: a transfer committed before is visible to it, one committed after
  // goes into a later block. The seal need not survive a crash (heights follow the clock, which has moved on since),
  // so it is written without waiting for the disk.
  const sealedHere = new Map<ChainName, number>();
  const sealTx = db.transaction((chain: ChainName, upTo: number) => raiseSealed.run(upTo, chain, upTo));
  const seal = (chain: ChainName, upTo: number): void => {
    if ((sealedHere.get(chain) ?? 0) >= upTo) return;
    db.pragma('synchronous = NORMAL');
    try {
      sealTx.immediate(chain, upTo);
    } finally {
      db.pragma('synchronous = FULL');
    }
    sealedHere.set(chain, upTo);
  };

  const balance = (chain: ChainName, account: string, asset: AssetId): bigint => {
    const row = getBalance.get(chain, account, asset);
    return row ? BigInt(row.amount) : 0n;
  };

  /** One transfer inside the caller's transaction: answers the existing one for a known key, else moves funds. */
  const applyOne = (t: TransferRequest): { transfer: Transfer; created: boolean } => {
    const existing = byKey.get(t.key);
    if (existing) return { transfer: toTransfer(existing), created: false };
    const fromKey = accountKey(t.chain, t.from);
    const toKey = accountKey(t.chain, t.to);
    const fromBalance = balance(t.chain, fromKey, t.asset);
    if (!isUnbounded(fromKey) && fromBalance < t.amount) {
      throw new InsufficientFunds(
        `${t.from} holds ${fromBalance} of ${t.asset} on ${t.chain}, less than the ${t.amount} to send.`,
        { chain: t.chain, asset: t.asset, address: t.from, balance: fromBalance.toString(), amount: t.amount.toString() },
      );
    }
    // Pending until the next block is mined, and never in a block a scan has read (see `seal`).
    const block = Math.max(height(t.chain), getSealed.get(t.chain)?.sealed ?? 0) + 1;
    const at = clock.now();
    const txId = simTxId(t.chain, t.key);
    insertTransfer.run(t.key, txId, t.chain, t.asset, t.from, fromKey, t.to, toKey, t.amount.toString(), block, at);
    putBalance.run(t.chain, fromKey, t.asset, (fromBalance - t.amount).toString());
    // Read after the debit: a self-transfer must end where it started.
    putBalance.run(t.chain, toKey, t.asset, (balance(t.chain, toKey, t.asset) + t.amount).toString());
    const transfer: Transfer = { txId, key: t.key, chain: t.chain, asset: t.asset, from: t.from, to: t.to, amount: t.amount, block, at };
    return { transfer, created: true };
  };

  // IMMEDIATE takes the write lock before reading the key and the balance, so processes sharing the file serialise.
  const applyAll = db.transaction((list: TransferRequest[]) => list.map(applyOne));

  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new Unavailable('The simulated chains ledger is closed.');
  };

  const toDeposit = (r: TransferRow, h: number): Deposit => {
    const { txId, chain, asset, from, to, amount, block } = toTransfer(r);
    return { txId, chain, asset, from, to, amount, block, confirmations: confirmationsAt(h, r.block) };
  };

  const depositsToSync = (chain: ChainName, address: string, sinceBlock = 0): Deposit[] => {
    ensureOpen();
    checkChain(chain);
    const h = height(chain);
    return depositsTo.all(chain, accountKey(chain, address), sinceBlock).map((r) => toDeposit(r, h));
  };

  const hub = new WatchHub(
    {
      depositsTo: async (chain, address) => depositsToSync(chain, address),
      mark: async (chain) => {
        ensureOpen();
        return `${maxSeq.get()?.seq ?? 0}:${height(chain)}`;
      },
    },
    pollMs,
  );

  const run = (list: TransferRequest[]): Transfer[] => {
    ensureOpen();
    list.forEach(checkRequest);
    const results = applyAll.immediate(list);
    let created = false;
    for (const r of results) {
      if (!r.created) continue;
      created = true;
      floor.set(r.transfer.chain, Math.max(floor.get(r.transfer.chain) ?? 1, r.transfer.block - 1));
    }
    if (created) hub.nudge();
    return results.map((r) => r.transfer);
  };

  const transfersSync = (filter: TransferFilter = {}): Transfer[] => {
    ensureOpen();
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.chain !== undefined) {
      checkChain(filter.chain);
      where.push('chain = ?');
      args.push(filter.chain);
    }
    const add = (clause: string, ...values: (string | number)[]): void => {
      where.push(clause);
      args.push(...values);
    };
    if (filter.asset !== undefined) add('asset = ?', filter.asset);
    if (filter.key !== undefined) add('key = ?', filter.key);
    if (filter.txId !== undefined) add('tx_id = ?', filter.txId);
    if (filter.fromBlock !== undefined) add('block >= ?', filter.fromBlock);
    if (filter.toBlock !== undefined) add('block <= ?', filter.toBlock);
    if (filter.address !== undefined) {
      const keys = addressKeys(filter.chain, filter.address);
      const marks = keys.map(() => '?').join(', ');
      add(`(from_key IN (${marks}) OR to_key IN (${marks}))`, ...keys, ...keys);
    }
    const sql = `SELECT * FROM ledger_transfers ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`;
    return db.prepare<(string | number)[], TransferRow>(sql).all(...args).map(toTransfer);
  };

  const balancesSync = (filter: { chain?: ChainName; asset?: AssetId; address?: string } = {}): Balance[] => {
    ensureOpen();
    const where = ["amount != '0'"];
    const args: string[] = [];
    if (filter.chain !== undefined) {
      checkChain(filter.chain);
      where.push('chain = ?');
      args.push(filter.chain);
    }
    if (filter.asset !== undefined) {
      where.push('asset = ?');
      args.push(filter.asset);
    }
    if (filter.address !== undefined) {
      const keys = addressKeys(filter.chain, filter.address);
      where.push(`account IN (${keys.map(() => '?').join(', ')})`);
      args.push(...keys);
    }
    const sql = `SELECT chain, account, asset, amount FROM ledger_balances WHERE ${where.join(' AND ')} ORDER BY chain, asset, account`;
    return db
      .prepare<string[], { chain: ChainName; account: string; asset: AssetId; amount: string }>(sql)
      .all(...args)
      .map((r) => ({ chain: r.chain, address: r.account, asset: r.asset, amount: BigInt(r.amount) }));
  };

  const ledgers = new Map<ChainName, ChainLedger>();

  const chains: SimChains = {
    ledger(chain) {
      checkChain(chain);
      let l = ledgers.get(chain);
      if (!l) {
        l = boundLedger(chains, chain, blockMs[chain]);
        ledgers.set(chain, l);
      }
      return l;
    },
    async height(chain) {
      ensureOpen();
      checkChain(chain);
      return height(chain);
    },
    async transfer(t) {
      return run([t])[0]!;
    },
    async simulateDeposit(d: SimulatedDeposit) {
      const key = d.key ?? randomUUID();
      const send: TransferRequest = { key, chain: d.chain, asset: d.asset, from: d.from, to: d.to, amount: d.amount };
      checkRequest(send);
      // One SQLite transaction for both legs: the money never exists in the sender without having been sent.
      const list = isUnbounded(accountKey(d.chain, d.from))
        ? [send]
        : [{ ...send, key: `mint:${key}`, from: MINT_ACCOUNT, to: d.from }, send];
      return run(list).at(-1)!;
    },
    async balanceOf(chain, address, asset) {
      ensureOpen();
      checkChain(chain);
      return balance(chain, accountKey(chain, address), asset);
    },
    async balances(filter) {
      return balancesSync(filter);
    },
    async transfers(filter) {
      return transfersSync(filter);
    },
    async confirmations(tx) {
      ensureOpen();
      checkChain(tx.chain);
      return confirmationsAt(height(tx.chain), tx.block);
    },
    requiredConfirmations(chain) {
      checkChain(chain);
      return required[chain];
    },
    async depositsTo(chain, address, sinceBlock) {
      return depositsToSync(chain, address, sinceBlock);
    },
    async scan(chain, fromBlock, toBlock) {
      ensureOpen();
      checkChain(chain);
      const h = height(chain);
      const to = toBlock ?? h;
      seal(chain, Math.min(to, h));
      return scan.all(chain, fromBlock, to).map((r) => toDeposit(r, h));
    },
    watch(chain, address, onDeposit, watchOpts) {
      ensureOpen();
      checkChain(chain);
      const min = watchOpts?.minConfirmations ?? required[chain];
      return hub.watch(chain, address, onDeposit, min);
    },
    async poll() {
      return hub.poll();
    },
    async close() {
      if (closed) return;
      closed = true;
      hub.close();
      if (db.open) db.close();
    },
  };
  return chains;
}
