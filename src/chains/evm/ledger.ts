// One EVM chain over JSON-RPC (viem): deposits read from mined blocks, reorgs detected from remembered block hashes,
// and outgoing transfers made exactly once per key across crashes. The signed transaction is stored (the outbox)
// before it is broadcast, so a key is signed at most once: later calls, in this process or after a restart,
// rebroadcast the same bytes and answer the outcome of that one transaction.
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  isAddress,
  keccak256,
  parseAbiItem,
  parseTransaction,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { CHAINS } from '../../assets/chains.js';
import { NATIVE_EVM_ADDRESS, assetById, assetsOn } from '../../assets/registry.js';
import type { AssetId, ChainName } from '../../assets/types.js';
import { ConfigError, InvalidAddress, InvalidAmount, InvalidRequest, RouterError, UnknownAsset, Unavailable } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import { REQUIRED_CONFIRMATIONS, confirmationsAt } from '../blocks.js';
import { InsufficientFunds } from '../errors.js';
import type { Deposit, Transfer } from '../types.js';
import { BlockHashes, findReorg, type Reorg } from './block-hashes.js';
import { ChainMoved, TransferDropped, TransferPending, TransferRejected, TransferReverted } from './errors.js';
import { internalValueCalls, traceBlock, traceTransaction, type CallFrame, type InternalValueCall } from './internal-calls.js';
import { opStackL1Fee, receiptL1Fee } from './l1-fee.js';
import { MinedSends, type MinedAgain, type UnrestoredSend } from './mined-sends.js';
import { NonceManager, Locks } from './nonces.js';
import { FEE_TOO_LOW, classifyBroadcastError, mapLimit, rpcError, rpcReason, sleep, type BroadcastOutcome } from './rpc.js';
import { arrayOf, isInteger, isString, isUnits, optional, shapeOf } from '../../checks.js';
import { getEntry } from '../../store/stored-entry.js';

export const OUTBOX_SPACE = 'evm-outbox';
/** Per chain, every outbox key signed on it, in signing order (`<chain>|n` → count, `<chain>|<i>` → key): what the
 *  audit reads to reconcile the router's accounts' on-chain balances. */
export const SIGNED_SPACE = 'evm-signed';
export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** Gives the private key of an address this process may sign for, or null when it has none. */
export type Signers = (address: string) => Hex | null | Promise<Hex | null>;

export interface EvmChainOptions {
  chain: ChainName;
  rpcUrl: string;
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  signers: Signers;
  /** Default: the chain's row of REQUIRED_CONFIRMATIONS. */
  requiredConfirmations?: number;
  logger?: Logger;
  /** Per JSON-RPC request; default 10 s. A paused or hung node costs this much per attempt. */
  rpcTimeoutMs?: number;
  /** How long `send` waits for a receipt before answering TransferPending; default 120 s. */
  receiptTimeoutMs?: number;
  /** Receipt polling interval; default 500 ms. */
  pollMs?: number;
  /** While no receipt exists, the stored bytes are broadcast again this often; default 10 s. */
  rebroadcastMs?: number;
  /** A send still without a receipt this long after its last signing is replaced by one with higher fees (same
   *  nonce, same call); default 60 s, 0 = never. At most MAX_REPLACEMENTS per key. */
  bumpAfterMs?: number;
  /** The price per gas the router's quotes charge on this chain (the cost table's `gasPriceWei`). Sends then offer
   *  at most this much per gas while the node's base fee allows it (`fees()`); absent: the node's suggestion. */
  pricedGasWei?: bigint;
  /** Test seam: runs after the signed transaction is stored and before its first broadcast; a throw stands for a crash. */
  beforeBroadcast?: (entry: OutboxEntry) => void | Promise<void>;
  /** The sends that stand or fall together after a reorg (one order's, told apart by their keys); default each alone. */
  sendFamily?: (key: string) => string;
}

/** A deposit with where it was read: the block's hash (to tell a reorg) and, for a token transfer, its place in its
 *  transaction. */
export interface EvmDeposit extends Deposit {
  blockHash: Hex;
  /** The Transfer log's place among the transaction's registry-token Transfer logs (0, 1, …); null for a native
   *  value transfer. Not the block's log index: a reorg that mines the transaction again elsewhere in a block changes
   *  that, and this must not change, since it keys the deposit's booking and id. */
  transferIndex: number | null;
  /** For ETH a contract moved inside the transaction (read from the node's call tracer): its place among the
   *  transaction's internal value transfers (`internalValueCalls`). Absent for the transaction's own value and for
   *  token transfers. */
  callIndex?: number;
}

/** Where a deposit sits in its transaction, as its booking key names it: `value` (the transaction's own value), the
 *  token Transfer's place (`0`, `1`, …) or `call<n>` (ETH a contract moved). */
export function depositPlace(d: { transferIndex: number | null; callIndex?: number }): string {
  if (d.callIndex !== undefined) return `call${d.callIndex}`;
  return d.transferIndex === null ? 'value' : String(d.transferIndex);
}

/**
 * A deposit's rank among its transaction's deposits: the transaction's own value, its token transfers (in log order,
 * which their places follow), then the ETH its contracts moved. Contracts' ETH comes last so that reading it left the
 * ids `depositIds` gives the others as they were.
 */
function orderInTx(d: { transferIndex: number | null; callIndex?: number }): number {
  if (d.callIndex !== undefined) return 2 ** 20 + d.callIndex;
  return d.transferIndex ?? -1;
}

export interface EvmSendRequest {
  key: string;
  asset: AssetId;
  from: string;
  to: string;
  amount: bigint;
  /** Native coin at `from` the send must leave in place (what the books hold there for an order beyond this send):
   *  the preflight refuses a send whose value and gas at its fee cap would reach into it. */
  keep?: bigint;
}

/** What the outbox keeps per key: enough to rebroadcast and to answer the Transfer without the request. */
export interface OutboxEntry {
  v: 1;
  chain: ChainName;
  key: string;
  asset: AssetId;
  from: string;
  to: string;
  amount: string;
  nonce: number;
  hash: Hex;
  raw: Hex;
  /** Epoch ms of signing. */
  at: number;
  /** Replacements signed for a send stuck without a receipt: the same nonce and call at higher fees, each stored
   *  here before its broadcast. Whichever of the transactions is mined (one at most: they share the nonce) settles
   *  the key. */
  replacements?: Replacement[];
}

export interface Replacement {
  hash: Hex;
  raw: Hex;
  /** Epoch ms of signing. */
  at: number;
}

const isReplacement = shapeOf<Replacement>({ hash: isString, raw: isString, at: isInteger });
const isOutboxEntry = shapeOf<OutboxEntry>({
  v: (x) => x === 1, chain: isString, key: isString, asset: isString, from: isString, to: isString, amount: isUnits,
  nonce: isInteger, hash: isString, raw: isString, at: isInteger, replacements: optional(arrayOf(isReplacement)),
});

/** Replacements of one send at most: each raises the fees by at least REPLACEMENT_BUMP. */
export const MAX_REPLACEMENTS = 5;
/** Fee rise of a replacement over the transaction it replaces, in per-mille (nodes want at least +10 %). */
const REPLACEMENT_BUMP = 1125n;

/** Every transaction signed for the entry's key, the original first. */
export function outboxHashes(entry: OutboxEntry): Hex[] {
  return [entry.hash, ...(entry.replacements ?? []).map((r) => r.hash)];
}

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Fees that replace `last` in a node's pool: `now`'s, and at least REPLACEMENT_BUMP over `last`'s. */
function outbidding(last: Fees, now: Fees): Fees {
  const bump = (v: bigint) => (v * REPLACEMENT_BUMP + 999n) / 1000n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const maxPriorityFeePerGas = max(now.maxPriorityFeePerGas, bump(last.maxPriorityFeePerGas));
  return { maxPriorityFeePerGas, maxFeePerGas: max(max(now.maxFeePerGas, bump(last.maxFeePerGas)), maxPriorityFeePerGas) };
}

/** The bytes to broadcast: the last signed (highest fees). */
const latestRaw = (entry: OutboxEntry): Hex => entry.replacements?.at(-1)?.raw ?? entry.raw;

/** One transaction signed on the chain and what became of it. */
export interface SignedTx {
  entry: OutboxEntry;
  /** Its receipt: mined in `block`, `success` or reverted, `fee` (gas used × effective gas price) paid in either
   *  case; null while it is not mined. */
  mined: { block: number; success: boolean; fee: bigint } | null;
}

export interface EvmChain {
  readonly chain: ChainName;
  readonly chainId: number;
  readonly client: PublicClient;
  readonly requiredConfirmations: number;
  /** The chain's native coin (ETH), as the registry names it. */
  readonly nativeAsset: AssetId;
  /** Latest block number. */
  height(): Promise<number>;
  /** Native value transfers (successful transactions with value > 0) and registry-token Transfer logs in the blocks
   *  (inclusive; `toBlock` defaults to the height), by block then position; remembers the blocks' hashes. A `toBlock`
   *  above the height the node answers now is refused with ChainMoved (see `scan` in DepositWatcher). */
  scan(fromBlock: number, toBlock?: number): Promise<EvmDeposit[]>;
  /** Whether blocks up to `upTo` (the caller's last scanned block) were replaced since they were scanned: a block now
   *  has another hash. A node that answers a lower height or lacks such a block proves nothing (a node behind the one
   *  read before, or one replacing blocks right now) and is refused with ChainMoved: ask again. */
  checkReorg(upTo: number): Promise<Reorg | null>;
  /** The deposits (as `scan` reported them) whose transfer is no longer on the canonical chain. A missing receipt
   *  counts only once the deposit's block is replaced; see `vanishedDeposits`. */
  vanished(deposits: readonly EvmDeposit[]): Promise<EvmDeposit[]>;
  /** Moves `amount` once per key (see file header); a mined revert throws TransferReverted. */
  send(req: EvmSendRequest): Promise<Transfer>;
  /** Broadcasts again the sends a reorg removed after their receipt was read (`mined-sends.ts`); answers those mined
   *  again since the last call, at their new blocks. `height`: the chain's, when the caller has just read it. */
  watchSends(height?: number): Promise<MinedAgain[]>;
  /** The sends a reorg removed that the router gave up or holds (`mined-sends.ts`): in the books, not on chain. */
  unrestoredSends(): Promise<UnrestoredSend[]>;
  /** The outbox entry of a key, or null. */
  outboxEntry(key: string): Promise<OutboxEntry | null>;
  /** Every transaction signed on this chain through this adapter (nonce fillers included), with its receipt if mined. */
  signed(): Promise<SignedTx[]>;
  /** The L1 data fee an OP Stack chain charges such a transaction beside its gas (`l1-fee.ts`); 0 on other chains. */
  l1Fee(tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint>;
  /** The fees a send signed now offers per gas (see `feesPerGas`): what a gas top-up must cover. */
  fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  balanceOf(address: string, asset: AssetId): Promise<bigint>;
  confirmations(tx: { block: number }): Promise<number>;
}

const MAX_KEY = 512;
const LOG_RANGE = 1_000;

function lower(a: string): Address {
  return a.toLowerCase() as Address;
}

/**
 * Which of `deposits` vanished from the canonical chain: no receipt for the txId any more while the block it was in
 * has been replaced, a receipt that now says reverted, (token transfers) a receipt without that Transfer log, or
 * (ETH a contract moved) a trace of the transaction without that call standing at its place; a node without the
 * debug API cannot trace it, and such a deposit of a transaction mined again successfully is taken as standing (asking
 * again would fail the same way on every pass, and hold the feed's reorg check for good). A
 * transaction mined again in another block is not vanished. A missing receipt alone is not proof: a node behind the
 * one that answered the scan (a load balancer's) lacks the block or has not indexed it, and telling an order its
 * deposit vanished then would book the money back and halt a spent order for nothing. So the block at the deposit's
 * height must answer with another hash; a node without that block, or with the very block, is refused with
 * ChainMoved (ask again). Transport errors propagate: the caller asks again.
 */
export async function vanishedDeposits(client: PublicClient, deposits: readonly EvmDeposit[]): Promise<EvmDeposit[]> {
  const byTx = new Map<Hex, EvmDeposit[]>();
  for (const d of deposits) byTx.set(d.txId as Hex, [...(byTx.get(d.txId as Hex) ?? []), d]);
  const gone: EvmDeposit[] = [];
  await mapLimit([...byTx.entries()], 8, async ([hash, ds]) => {
    const receipt = await receiptOrNull(client, hash);
    if (!receipt) {
      const { chain, block, blockHash } = ds[0]!;
      const now = await blockHashOrNull(client, block);
      if (now === null || now === blockHash) {
        throw new ChainMoved(`${chain}: no receipt for ${hash}, yet block ${block} is ${now === null ? 'missing' : 'still the one it was mined in'} at the node (a node behind, or one replacing blocks); ask again.`);
      }
    }
    let calls: InternalValueCall[] | 'untraceable' | null = null;
    for (const d of ds) {
      if (!receipt || receipt.status !== 'success') {
        gone.push(d);
        continue;
      }
      if (d.callIndex !== undefined) {
        calls ??= await standingCalls(client, hash);
        if (calls === 'untraceable') continue;
        const still = calls.some((c) => c.index === d.callIndex && c.from === d.from && c.to === d.to && c.amount === d.amount);
        if (!still) gone.push(d);
        continue;
      }
      if (d.transferIndex === null) continue;
      const token = assetById(d.asset).address;
      const still = receipt.logs.some((l) => {
        if (l.address.toLowerCase() !== token || l.topics[0] !== TRANSFER_TOPIC || l.topics.length !== 3) return false;
        return topicAddress(l.topics[1]) === d.from && topicAddress(l.topics[2]) === d.to && BigInt(l.data) === d.amount;
      });
      if (!still) gone.push(d);
    }
  });
  return gone.sort((a, b) => a.block - b.block || orderInTx(a) - orderInTx(b));
}

/** The transaction's standing internal value calls, or 'untraceable' when the node serves no debug API. */
async function standingCalls(client: PublicClient, hash: Hex): Promise<InternalValueCall[] | 'untraceable'> {
  try {
    return internalValueCalls(await traceTransaction(client, hash));
  } catch (err) {
    if (rpcError(err)?.code === -32601) return 'untraceable';
    throw err;
  }
}

const TRANSFER_TOPIC = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'));

function topicAddress(topic: Hex | undefined): string {
  return topic ? `0x${topic.slice(-40)}`.toLowerCase() : '';
}

/** The hash of block `n` at the node, or null when the node does not have it. */
export async function blockHashOrNull(client: PublicClient, n: number): Promise<string | null> {
  try {
    return (await client.getBlock({ blockNumber: BigInt(n) })).hash;
  } catch (err) {
    if (err instanceof Error && err.name === 'BlockNotFoundError') return null;
    throw err;
  }
}

async function receiptOrNull(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (err) {
    if (err instanceof Error && err.name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  }
}

export function openEvmChain(opts: EvmChainOptions): EvmChain {
  const { chain, store, logger } = opts;
  const evmChainId = CHAINS[chain]?.evmChainId;
  if (evmChainId === undefined) throw new ConfigError(`${chain} is not an EVM chain of the registry.`);
  const chainId: number = evmChainId;
  const required = opts.requiredConfirmations ?? REQUIRED_CONFIRMATIONS[chain];
  const receiptTimeoutMs = opts.receiptTimeoutMs ?? 120_000;
  const pollMs = opts.pollMs ?? 500;
  const rebroadcastMs = opts.rebroadcastMs ?? 10_000;
  const bumpAfterMs = opts.bumpAfterMs ?? 60_000;
  // No transport retries: `send` retries itself with the same bytes, and a failed read is retried by its caller.
  const client = createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.rpcTimeoutMs ?? 10_000, retryCount: 0 }) }) as PublicClient;
  const nativeId: AssetId = `evm:${chainId}.${NATIVE_EVM_ADDRESS}`;
  const tokens = assetsOn(chain).filter((a) => !a.native && a.address);
  const tokenByAddress = new Map(tokens.map((a) => [a.address!, a]));
  const hashes = new BlockHashes(store, chain);
  const keyLocks = new Locks();
  const listLock = new Locks();
  const accounts = new Map<string, PrivateKeyAccount>();
  let checkedChainId: Promise<void> | null = null;
  let blockReceipts = true;
  let tracesCalls = true;

  /** The node must serve the registry's chain id: transactions are signed for it. */
  function checkChainId(): Promise<void> {
    checkedChainId ??= client.getChainId().then(
      (id) => {
        if (id !== chainId) throw new ConfigError(`${opts.rpcUrl} serves chain id ${id}, but ${chain} is ${chainId}.`);
      },
      (err: unknown) => {
        checkedChainId = null;
        throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
      },
    );
    return checkedChainId;
  }

  async function account(address: string): Promise<PrivateKeyAccount> {
    const a = lower(address);
    const known = accounts.get(a);
    if (known) return known;
    const pk = await opts.signers(a);
    if (!pk) throw new InvalidAddress(`No signer for ${address} on ${chain}.`, 'from');
    const acct = privateKeyToAccount(pk);
    if (acct.address.toLowerCase() !== a) throw new ConfigError(`The signer given for ${address} signs for ${acct.address}.`);
    accounts.set(a, acct);
    return acct;
  }

  async function height(): Promise<number> {
    return Number(await client.getBlockNumber({ cacheTime: 0 }));
  }

  // ---------------------------------------------------------------- deposits

  /** Successful transaction hashes of a block, from one `eth_getBlockReceipts` when the node has it. */
  async function failedTxs(blockNumber: number, hashesOfValueTxs: Hex[]): Promise<Set<string>> {
    const failed = new Set<string>();
    if (blockReceipts) {
      try {
        const receipts = await client.request({ method: 'eth_getBlockReceipts', params: [`0x${blockNumber.toString(16)}`] });
        for (const r of receipts ?? []) if (r.status !== '0x1') failed.add(r.transactionHash.toLowerCase());
        return failed;
      } catch (err) {
        // Method not found: fall back to one receipt per value transaction from now on.
        if (rpcError(err)?.code !== -32601) throw err;
        blockReceipts = false;
      }
    }
    await mapLimit(hashesOfValueTxs, 8, async (hash) => {
      const r = await client.getTransactionReceipt({ hash });
      if (r.status !== 'success') failed.add(hash.toLowerCase());
    });
    return failed;
  }

  /** Per block with transactions, their call traces; an empty map once the node turned out to serve no tracer. */
  async function traces(blocks: readonly { hash: Hex; transactions: readonly { hash: Hex }[] }[]): Promise<Map<string, CallFrame>> {
    const withTxs = blocks.filter((b) => b.transactions.length > 0);
    if (!tracesCalls || withTxs.length === 0) return new Map();
    try {
      const maps = await mapLimit(withTxs, 8, (b) => traceBlock(client, b.hash, b.transactions.map((tx) => tx.hash)));
      return new Map(maps.flatMap((m) => [...m]));
    } catch (err) {
      if (rpcError(err)?.code !== -32601) throw err;
      tracesCalls = false;
      logger?.error(
        { chain, rpcUrl: opts.rpcUrl },
        'the node serves no debug_traceBlockByHash: ETH paid into deposit addresses by contracts is not seen from now on (the audit names what it leaves at an address); use a node with the debug API',
      );
      return new Map();
    }
  }

  async function scan(fromBlock: number, toBlock?: number): Promise<EvmDeposit[]> {
    if (!Number.isSafeInteger(fromBlock) || fromBlock < 0) throw new InvalidRequest('fromBlock must be an integer ≥ 0.', 'fromBlock');
    await checkChainId();
    const tip = await height();
    // A caller keeps `toBlock` as its cursor: answering fewer blocks than asked would step it over blocks never read.
    // A node answers a lower height than the caller read while it replaces blocks (anvil during a reorg) or when it
    // lags behind the node answering before (a load balancer): read again on the next pass.
    if (toBlock !== undefined && toBlock > tip) {
      throw new ChainMoved(`${chain}: the node answers height ${tip}, below block ${toBlock} asked for (blocks being replaced, or a node behind the one read before); scan again.`);
    }
    const to = toBlock ?? tip;
    if (to < fromBlock) return [];
    const numbers = Array.from({ length: to - fromBlock + 1 }, (_, i) => fromBlock + i);
    const blocks = await mapLimit(numbers, 8, (n) => client.getBlock({ blockNumber: BigInt(n), includeTransactions: true }));
    // The blocks must form one chain and the logs come from those very blocks; otherwise a reorg ran under the reads.
    for (let i = 1; i < blocks.length; i++) {
      if (blocks[i]!.parentHash !== blocks[i - 1]!.hash) throw new ChainMoved(`${chain}: the chain moved during a scan of ${fromBlock}..${to}; scan again.`);
    }
    // And they must extend the blocks read before: a reorg between the caller's reorg check and this scan would
    // otherwise overwrite the remembered hashes with the new chain's, and no later check could find it.
    const before = fromBlock > 0 ? await hashes.get(fromBlock - 1) : null;
    if (before !== null && blocks[0]!.parentHash !== before) {
      throw new ChainMoved(`${chain}: block ${fromBlock} does not extend the blocks read before it; check for a reorg and scan again.`);
    }
    const hashOf = new Map(blocks.map((b) => [Number(b.number), b.hash]));
    const out: Array<EvmDeposit & { txIndex: number }> = [];

    const traced = await traces(blocks);
    for (const b of blocks) {
      const block = Number(b.number);
      const at = { chain, asset: nativeId, block, confirmations: confirmationsAt(tip, block), blockHash: b.hash, transferIndex: null };
      for (const tx of b.transactions) {
        const root = traced.get(tx.hash.toLowerCase());
        for (const c of root ? internalValueCalls(root) : []) {
          out.push({ ...at, txId: tx.hash, from: lower(c.from), to: lower(c.to), amount: c.amount, callIndex: c.index, txIndex: tx.transactionIndex });
        }
      }
      const valueTxs = b.transactions.filter((tx) => tx.value > 0n && tx.to);
      if (valueTxs.length === 0) continue;
      const failed = await failedTxs(block, valueTxs.map((tx) => tx.hash));
      for (const tx of valueTxs) {
        if (failed.has(tx.hash.toLowerCase())) continue;
        out.push({ ...at, txId: tx.hash, from: lower(tx.from), to: lower(tx.to!), amount: tx.value, txIndex: tx.transactionIndex });
      }
    }

    if (tokens.length > 0) {
      // Logs come by block and log index, so a transaction's Transfer logs are counted in their order within it.
      const counted = new Map<string, number>();
      for (let lo = fromBlock; lo <= to; lo += LOG_RANGE) {
        const hi = Math.min(to, lo + LOG_RANGE - 1);
        const logs = await client.getLogs({ address: tokens.map((t) => t.address as Address), event: TRANSFER_EVENT, fromBlock: BigInt(lo), toBlock: BigInt(hi), strict: true });
        for (const log of logs) {
          const block = Number(log.blockNumber);
          if (hashOf.get(block) !== log.blockHash) throw new ChainMoved(`${chain}: the chain moved during a scan of ${fromBlock}..${to}; scan again.`);
          const transferIndex = counted.get(log.transactionHash) ?? 0;
          counted.set(log.transactionHash, transferIndex + 1);
          const asset = tokenByAddress.get(log.address.toLowerCase());
          if (!asset || log.args.value === 0n) continue;
          out.push({
            txId: log.transactionHash, chain, asset: asset.id, from: lower(log.args.from), to: lower(log.args.to), amount: log.args.value,
            block, confirmations: confirmationsAt(tip, block), blockHash: log.blockHash, transferIndex, txIndex: log.transactionIndex,
          });
        }
      }
    }

    await hashes.remember(blocks.map((b) => ({ number: Number(b.number), hash: b.hash })));
    out.sort((a, b) => a.block - b.block || a.txIndex - b.txIndex || orderInTx(a) - orderInTx(b));
    return out.map(({ txIndex: _txIndex, ...d }) => d);
  }

  /** The hash of block `n`, which the caller read as mined: a node without it is behind (or replacing blocks). */
  async function canonicalHash(n: number): Promise<string> {
    const hash = await blockHashOrNull(client, n);
    if (hash === null) throw new ChainMoved(`${chain}: the node lacks block ${n}, read before as mined (a node behind, or one replacing blocks); check again.`);
    return hash;
  }

  // ---------------------------------------------------------------- transfers

  function validate(req: EvmSendRequest): void {
    if (typeof req.key !== 'string' || req.key.length === 0 || req.key.length > MAX_KEY) {
      throw new InvalidRequest(`key must be a non-empty string of at most ${MAX_KEY} characters.`, 'key');
    }
    if (typeof req.asset !== 'string') throw new UnknownAsset('asset must be a canonical asset id.', 'asset');
    if (assetById(req.asset).chain !== chain) throw new UnknownAsset(`Asset ${req.asset} is not on chain ${chain}.`, 'asset');
    if (typeof req.from !== 'string' || !isAddress(req.from, { strict: false })) throw new InvalidAddress('from must be an EVM address.', 'from');
    if (typeof req.to !== 'string' || !isAddress(req.to, { strict: false })) throw new InvalidAddress('to must be an EVM address.', 'to');
    if (typeof req.amount !== 'bigint' || req.amount <= 0n) throw new InvalidAmount('amount must be a positive bigint of base units.', 'amount');
  }

  async function outboxEntry(key: string): Promise<OutboxEntry | null> {
    return getEntry(store, OUTBOX_SPACE, key, isOutboxEntry);
  }

  /** Appends a key to the chain's signed list, one append at a time (accounts sign concurrently). */
  function listSigned(key: string): Promise<void> {
    return listLock.run(chain, async () => {
      const n = Number((await store.getKey(SIGNED_SPACE, `${chain}|n`)) ?? '0');
      await store.putKey(SIGNED_SPACE, `${chain}|${n}`, key);
      await store.putKey(SIGNED_SPACE, `${chain}|n`, String(n + 1));
    });
  }

  async function signed(): Promise<SignedTx[]> {
    const n = Number((await store.getKey(SIGNED_SPACE, `${chain}|n`)) ?? '0');
    const keys = new Set<string>();
    for (let i = 0; i < n; i++) {
      const key = await store.getKey(SIGNED_SPACE, `${chain}|${i}`);
      if (key !== null) keys.add(key);
    }
    const entries: OutboxEntry[] = [];
    for (const key of keys) {
      const entry = await outboxEntry(key);
      if (entry) entries.push(entry);
    }
    return mapLimit(entries, 8, async (entry) => {
      const r = await minedReceipt(entry);
      return { entry, mined: r ? { block: Number(r.blockNumber), success: r.status === 'success', fee: r.gasUsed * r.effectiveGasPrice + receiptL1Fee(r) } : null };
    });
  }

  /** What the transaction does: a value transfer, or a token `transfer(to, amount)` call. */
  function call(asset: AssetId, to: Address, amount: bigint): { to: Address; value: bigint; data?: Hex } {
    const a = assetById(asset);
    if (a.native) return { to, value: amount };
    return { to: a.address as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) };
  }

  /**
   * Checks before anything is signed: a refusal here moves nothing and the key is not remembered (as on the simulated
   * ledger). The balance may still change before mining, so the receipt's status stays the real verdict.
   */
  async function preflight(req: EvmSendRequest, fees: { maxFeePerGas: bigint }): Promise<bigint> {
    const from = lower(req.from);
    const tx = call(req.asset, lower(req.to), req.amount);
    const insufficient = (balance: bigint, needed: bigint) =>
      new InsufficientFunds(`${from} holds ${balance} of ${req.asset} on ${chain}, the transfer needs ${needed}.`, {
        chain, asset: req.asset, address: from, balance: String(balance), amount: String(needed),
      });
    if (tx.data) {
      const balance = await balanceOf(from, req.asset);
      if (balance < req.amount) throw insufficient(balance, req.amount);
    }
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: from, ...tx });
    } catch (err) {
      if (!rpcError(err)) throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
      throw new InvalidRequest(`${chain}: the node refuses to estimate the transfer: ${rpcReason(err)}`);
    }
    // Plain value transfers cost exactly their estimate; contract calls get headroom for state that changes before mining.
    if (gas !== 21_000n) gas = (gas * 6n) / 5n;
    const eth = await client.getBalance({ address: from });
    const needed = gas * fees.maxFeePerGas + tx.value + (await l1Fee({ ...tx, gas })) + (req.keep ?? 0n);
    if (eth < needed) throw insufficient(eth, needed);
    return gas;
  }

  function l1Fee(tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint> {
    return CHAINS[chain].opStack ? opStackL1Fee(client, chainId, tx) : Promise.resolve(0n);
  }

  async function broadcastRaw(raw: Hex): Promise<BroadcastOutcome> {
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
      return { kind: 'accepted' };
    } catch (err) {
      return classifyBroadcastError(err);
    }
  }

  const broadcast = (entry: OutboxEntry): Promise<BroadcastOutcome> => broadcastRaw(latestRaw(entry));

  const nonces = new NonceManager({
    store,
    scope: chain,
    async pendingCount(address) {
      try {
        return await client.getTransactionCount({ address: address as Address, blockTag: 'pending' });
      } catch (err) {
        throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
      }
    },
    async recover(address, nonce, key) {
      const entry = key ? await outboxEntry(key) : null;
      if (entry && entry.nonce === nonce && entry.from === address) {
        const r = await broadcast(entry);
        logger?.info({ chain, key, nonce, hash: keccak256(latestRaw(entry)), outcome: r.kind }, 'stored transaction rebroadcast on first use of its account');
        if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
        return;
      }
      // Reserved, then the process stopped before the signed transaction was stored: nothing was broadcast for this
      // nonce, so a zero-value transfer to itself takes it and later transactions do not wait behind a gap.
      const r = await fillNonce(address, nonce);
      logger?.warn({ chain, address, nonce, key, outcome: r.kind }, 'nonce reserved without a stored transaction filled with a self-transfer');
      if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
    },
  });

  /**
   * Takes `nonce` of `address` with a zero-value transfer to itself, so later transactions do not wait behind it and
   * nothing else is mined at it. Above `outbid`'s fees by REPLACEMENT_BUMP when given (a node holding that transaction
   * in its pool replaces it). Kept as any signed transaction is (`nonce-filler:…`), so its gas is accounted for in the
   * account's reconciliation.
   */
  async function fillNonce(address: string, nonce: number, outbid?: Hex): Promise<BroadcastOutcome> {
    const acct = await account(address);
    let fees = await feesPerGas();
    const last = outbid ? parseTransaction(outbid) : null;
    if (last?.maxFeePerGas !== undefined && last.maxPriorityFeePerGas !== undefined) {
      fees = outbidding({ maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, fees);
    }
    const raw = await acct.signTransaction({ chainId, type: 'eip1559', nonce, to: acct.address, value: 0n, gas: 21_000n, ...fees });
    const fillerKey = `nonce-filler:${chain}:${lower(address)}:${nonce}`;
    const filler: OutboxEntry = {
      v: 1, chain, key: fillerKey, asset: nativeId, from: lower(address), to: lower(address), amount: '0', nonce, hash: keccak256(raw), raw, at: Date.now(),
    };
    await listSigned(fillerKey);
    await store.putKey(OUTBOX_SPACE, fillerKey, JSON.stringify(filler));
    return broadcast(filler);
  }

  /**
   * The fees a new transaction offers. With a priced gas price (what the quotes charge per gas) and a base fee at or
   * below it: a fee cap of exactly the priced price and a priority fee of at most what is left of it above the base
   * fee, so what any send pays per gas (min(cap, base fee + priority)) never exceeds what the order was charged for
   * it. With the base fee above the priced price, waiting would hold the user's money for as long as fees stay high,
   * so the send pays the node's current fees (its suggestion) and the real cost shows on the order's gas row in the
   * money audit, which names an order charged less than it cost. Without a priced price: the node's suggestion.
   */
  async function feesPerGas(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const suggested = await client.estimateFeesPerGas();
    const priced = opts.pricedGasWei;
    if (priced === undefined) return suggested;
    const block = await client.getBlock({ blockTag: 'latest' });
    const base = block.baseFeePerGas ?? 0n;
    if (base > priced) {
      logger?.warn({ chain, baseFee: String(base), priced: String(priced) }, 'base fee above the priced gas price: sending at the node\'s fees');
      return suggested;
    }
    const room = priced - base;
    return { maxFeePerGas: priced, maxPriorityFeePerGas: suggested.maxPriorityFeePerGas < room ? suggested.maxPriorityFeePerGas : room };
  }

  /** Signs, stores, then broadcasts once; alone for the account, so nonces go out in order. */
  async function signAndStore(req: EvmSendRequest): Promise<{ entry: OutboxEntry; broadcast: BroadcastOutcome }> {
    const from = lower(req.from);
    const acct = await account(from);
    let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    let gas: bigint;
    try {
      fees = await feesPerGas();
      gas = await preflight(req, fees);
    } catch (err) {
      // Nothing is signed yet: an unreachable node is a plain retriable failure, the key stays free.
      if (err instanceof RouterError || rpcError(err)) throw err;
      throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
    }
    return nonces.withAccount(from, async (session) => {
      const nonce = await session.reserve(req.key);
      let entry: OutboxEntry;
      try {
        const raw = await acct.signTransaction({ chainId, type: 'eip1559', nonce, gas, ...fees, ...call(req.asset, lower(req.to), req.amount) });
        entry = {
          v: 1, chain, key: req.key, asset: req.asset, from, to: lower(req.to), amount: String(req.amount),
          nonce, hash: keccak256(raw), raw, at: Date.now(),
        };
        // Listed first: a listed key without an entry was never broadcast, an entry is always listed.
        await listSigned(req.key);
        await store.putKey(OUTBOX_SPACE, req.key, JSON.stringify(entry));
      } catch (err) {
        // The nonce is reserved but may have no stored transaction: reloading the account recovers it (rebroadcast
        // if the entry was written after all, else a filler) instead of leaving a gap that blocks later nonces.
        nonces.forget(from);
        throw err;
      }
      await opts.beforeBroadcast?.(entry);
      return { entry, broadcast: await broadcast(entry) };
    });
  }

  const mined = new MinedSends({
    store, chain, hashes, height, outboxEntry, minedReceipt, broadcastRaw, reprice: replace, fillNonce, logger,
    ...(opts.sendFamily ? { family: opts.sendFamily } : {}),
  });

  /** The receipt of whichever of the key's transactions was mined, or null. */
  async function minedReceipt(entry: OutboxEntry): Promise<TransactionReceipt | null> {
    for (const hash of outboxHashes(entry)) {
      const r = await receiptOrNull(client, hash);
      if (r) return r;
    }
    return null;
  }

  /**
   * Signs a replacement of the entry's latest transaction (same nonce, gas and call; fees the node suggests now, at
   * least REPLACEMENT_BUMP over the last) and stores it in the entry before anything broadcasts it. Answers the
   * entry unchanged when the sender cannot pay the higher fees: the transaction waits at its fees.
   */
  async function replace(entry: OutboxEntry): Promise<OutboxEntry> {
    const last = parseTransaction(latestRaw(entry));
    if (last.type !== 'eip1559' || last.gas === undefined || last.maxFeePerGas === undefined || last.maxPriorityFeePerGas === undefined) return entry;
    const { maxFeePerGas, maxPriorityFeePerGas } = outbidding({ maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, await client.estimateFeesPerGas());
    const value = last.value ?? 0n;
    const eth = await client.getBalance({ address: lower(entry.from) });
    if (eth < last.gas * maxFeePerGas + value) {
      logger?.warn({ chain, key: entry.key, from: entry.from, balance: String(eth) }, 'a stuck send is not replaced: its sender cannot pay higher fees');
      return entry;
    }
    const acct = await account(entry.from);
    const raw = await acct.signTransaction({
      chainId, type: 'eip1559', nonce: entry.nonce, gas: last.gas, maxFeePerGas, maxPriorityFeePerGas, value,
      ...(last.to ? { to: last.to } : {}), ...(last.data ? { data: last.data } : {}),
    });
    const next: OutboxEntry = { ...entry, replacements: [...(entry.replacements ?? []), { hash: keccak256(raw), raw, at: Date.now() }] };
    await store.putKey(OUTBOX_SPACE, entry.key, JSON.stringify(next));
    logger?.info({ chain, key: entry.key, nonce: entry.nonce, hash: keccak256(raw), maxFeePerGas: String(maxFeePerGas) }, 'stuck send replaced with higher fees');
    return next;
  }

  function transferOf(entry: OutboxEntry, receipt: TransactionReceipt): Transfer {
    return {
      txId: receipt.transactionHash, key: entry.key, chain, asset: entry.asset, from: entry.from, to: entry.to,
      amount: BigInt(entry.amount), block: Number(receipt.blockNumber), at: entry.at,
    };
  }

  /**
   * Waits for the stored transaction's receipt, rebroadcasting the same bytes while there is none. Transport errors
   * (a paused or unreachable node) are retried until the deadline; the answer is the one transaction's outcome.
   */
  async function settle(stored: OutboxEntry, first: BroadcastOutcome | null): Promise<Transfer> {
    let entry = stored;
    const details = { chain, key: entry.key, txId: entry.hash, nonce: entry.nonce, from: entry.from };
    const deadline = Date.now() + receiptTimeoutMs;
    let outcome = first;
    let lastBroadcast = first ? Date.now() : 0;
    for (;;) {
      let receipt: TransactionReceipt | null = null;
      try {
        receipt = await minedReceipt(entry);
      } catch (err) {
        logger?.debug({ ...details, err: rpcReason(err) }, 'receipt not readable yet');
      }
      if (receipt) {
        if (receipt.status === 'success') {
          await mined.record(entry.key, receipt);
          return transferOf(entry, receipt);
        }
        throw new TransferReverted(`${chain}: transaction ${receipt.transactionHash} of key ${entry.key} reverted in block ${receipt.blockNumber}.`, {
          ...details, block: Number(receipt.blockNumber),
        });
      }
      if (outcome?.kind === 'nonce-too-low') {
        // Our hash has no receipt and its nonce is used: another transaction took it, so this one can never be mined.
        nonces.forget(entry.from);
        throw new TransferDropped(`${chain}: nonce ${entry.nonce} of ${entry.from} was used by another transaction; ${entry.hash} (key ${entry.key}) will never be mined.`, details);
      }
      // Refused for its fees (the base fee rose above what it offers): replaced at once rather than failed.
      const underpriced = outcome?.kind === 'rejected' && FEE_TOO_LOW.test(outcome.reason);
      const lastSigned = entry.replacements?.at(-1)?.at ?? entry.at;
      const stuck = outcome?.kind !== 'unreachable' && Date.now() - lastSigned >= bumpAfterMs;
      if (bumpAfterMs > 0 && (underpriced || stuck) && (entry.replacements?.length ?? 0) < MAX_REPLACEMENTS) {
        try {
          const replaced = await replace(entry);
          if (replaced !== entry) {
            entry = replaced;
            outcome = await broadcast(entry);
            lastBroadcast = Date.now();
            continue;
          }
        } catch (err) {
          // Not signed or not stored: the transaction in flight is unchanged and is waited for as before.
          logger?.debug({ ...details, err: rpcReason(err) }, 'replacement not made; retrying later');
        }
      }
      if (outcome?.kind === 'rejected') {
        throw new TransferRejected(`${chain}: the node refuses ${entry.hash} (key ${entry.key}): ${outcome.reason}`, { ...details, reason: outcome.reason });
      }
      if (Date.now() >= deadline) {
        throw new TransferPending(`${chain}: no receipt for ${entry.hash} (key ${entry.key}) within ${receiptTimeoutMs} ms; the same key waits for it again.`, details);
      }
      if (Date.now() - lastBroadcast >= rebroadcastMs || outcome === null || outcome.kind === 'unreachable') {
        outcome = await broadcast(entry);
        lastBroadcast = Date.now();
        // A rebroadcast that finds the nonce used may just mean our own transaction was mined meanwhile: read again.
        if (outcome.kind === 'nonce-too-low' || outcome.kind === 'accepted' || outcome.kind === 'known') continue;
        if (outcome.kind === 'unreachable') logger?.debug({ ...details, err: outcome.reason }, 'broadcast did not reach the node; retrying');
      }
      await sleep(pollMs);
    }
  }

  async function send(req: EvmSendRequest): Promise<Transfer> {
    validate(req);
    await checkChainId();
    // One call per key at a time in this process: the second reads the outbox the first wrote.
    return keyLocks.run(req.key, async () => {
      const stored = await outboxEntry(req.key);
      if (stored) {
        if (stored.chain !== chain) throw new InvalidRequest(`key ${req.key} was used on ${stored.chain}.`, 'key');
        return settle(stored, null);
      }
      const { entry, broadcast: first } = await signAndStore(req);
      return settle(entry, first);
    });
  }

  async function balanceOf(address: string, asset: AssetId): Promise<bigint> {
    const a = assetById(asset);
    if (a.chain !== chain) throw new UnknownAsset(`Asset ${asset} is not on chain ${chain}.`, 'asset');
    if (!isAddress(address, { strict: false })) throw new InvalidAddress('address must be an EVM address.', 'address');
    if (a.native) return client.getBalance({ address: lower(address) });
    return client.readContract({ address: a.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [lower(address)] });
  }

  return {
    chain,
    chainId,
    client,
    requiredConfirmations: required,
    nativeAsset: nativeId,
    height,
    scan,
    async checkReorg(upTo) {
      await checkChainId();
      const tip = await height();
      if (tip < upTo) throw new ChainMoved(`${chain}: the node answers height ${tip}, below block ${upTo} read before (a node behind, or one replacing blocks); check again.`);
      return findReorg(hashes, upTo, canonicalHash);
    },
    vanished: (deposits) => vanishedDeposits(client, deposits),
    send,
    watchSends: (height) => mined.watch(height),
    unrestoredSends: () => mined.unrestored(),
    outboxEntry,
    signed,
    fees: feesPerGas,
    l1Fee,
    balanceOf,
    async confirmations(tx) {
      return confirmationsAt(await height(), tx.block);
    },
  };
}
