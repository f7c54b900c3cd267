// Deposits read from one EVM chain's mined blocks: native value transfers, ETH contracts moved (from the node's call
// tracer) and registry-token Transfer logs, each with where it sits in its transaction; and whether deposits read
// before still stand on the canonical chain. A reorg under the reads is refused with ChainMoved (read again).
import { keccak256, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';
import { assetById } from '../../assets/registry.js';
import type { Asset, AssetId, ChainName } from '../../assets/types.js';
import { InvalidRequest } from '../../errors.js';
import type { Logger } from '../../log.js';
import { confirmationsAt } from '../blocks.js';
import type { Deposit } from '../types.js';
import type { BlockHashes } from './block-hashes.js';
import { ChainMoved } from './errors.js';
import { internalValueCalls, traceBlock, traceTransaction, type CallFrame, type InternalValueCall } from './internal-calls.js';
import { lowerAddress, mapLimit, receiptOrNull, rpcError } from './rpc.js';

export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

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

const LOG_RANGE = 1_000;

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

export interface DepositScanOptions {
  client: PublicClient;
  chain: ChainName;
  /** The chain's native coin, as the registry names it. */
  nativeId: AssetId;
  /** The registry's tokens on the chain (each with its contract address). */
  tokens: readonly Asset[];
  /** The hashes of the blocks read, to tell that a later scan extends them. */
  hashes: BlockHashes;
  height(): Promise<number>;
  /** Refuses a node of another chain id before anything is read. */
  checkChainId(): Promise<void>;
  rpcUrl: string;
  logger?: Logger;
}

export interface DepositScanner {
  /** See EvmChain.scan. */
  scan(fromBlock: number, toBlock?: number): Promise<EvmDeposit[]>;
  /** The hash of block `n`, which the caller read as mined: a node without it is behind (or replacing blocks). */
  canonicalHash(n: number): Promise<string>;
}

export function createDepositScanner(opts: DepositScanOptions): DepositScanner {
  const { client, chain, nativeId, tokens, hashes, height, checkChainId, rpcUrl, logger } = opts;
  const tokenByAddress = new Map(tokens.map((a) => [a.address!, a]));
  // Cleared for good once the node turns out not to serve the method.
  let blockReceipts = true;
  let tracesCalls = true;

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
        { chain, rpcUrl },
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
          out.push({ ...at, txId: tx.hash, from: lowerAddress(c.from), to: lowerAddress(c.to), amount: c.amount, callIndex: c.index, txIndex: tx.transactionIndex });
        }
      }
      const valueTxs = b.transactions.filter((tx) => tx.value > 0n && tx.to);
      if (valueTxs.length === 0) continue;
      const failed = await failedTxs(block, valueTxs.map((tx) => tx.hash));
      for (const tx of valueTxs) {
        if (failed.has(tx.hash.toLowerCase())) continue;
        out.push({ ...at, txId: tx.hash, from: lowerAddress(tx.from), to: lowerAddress(tx.to!), amount: tx.value, txIndex: tx.transactionIndex });
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
            txId: log.transactionHash, chain, asset: asset.id, from: lowerAddress(log.args.from), to: lowerAddress(log.args.to), amount: log.args.value,
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

  return { scan, canonicalHash };
}
