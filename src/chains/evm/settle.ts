// Waiting for one stored send's outcome: its receipt, read back while the same bytes are rebroadcast, a replacement
// at higher fees when it is stuck or refused for its fees, and a typed failure when it can never be mined. Every
// answer is the outcome of the transactions stored for the key, never of a new one.
import type { TransactionReceipt } from 'viem';
import type { ChainName } from '../../assets/types.js';
import type { Logger } from '../../log.js';
import type { Transfer } from '../types.js';
import { TransferDropped, TransferPending, TransferRejected, TransferReverted } from './errors.js';
import { MAX_REPLACEMENTS, type OutboxEntry } from './outbox.js';
import { FEE_TOO_LOW, rpcReason, sleep, type BroadcastOutcome } from './rpc.js';

export interface SettleOptions {
  chain: ChainName;
  minedReceipt(entry: OutboxEntry): Promise<TransactionReceipt | null>;
  /** Keeps a mined send's block, so a reorg that removes it is seen (mined-sends.ts). */
  record(key: string, receipt: TransactionReceipt): Promise<void>;
  broadcast(entry: OutboxEntry): Promise<BroadcastOutcome>;
  /** Signs and stores a replacement at higher fees; the entry unchanged when none can be paid for. */
  replace(entry: OutboxEntry): Promise<OutboxEntry>;
  /** The account's nonces are read from the node again (another transaction took one of them). */
  forgetNonces(address: string): void;
  receiptTimeoutMs: number;
  pollMs: number;
  rebroadcastMs: number;
  /** A send without a receipt this long after its last signing is replaced; 0 never replaces. */
  bumpAfterMs: number;
  logger?: Logger;
}

export function transferOf(chain: ChainName, entry: OutboxEntry, receipt: Pick<TransactionReceipt, 'transactionHash' | 'blockNumber'>): Transfer {
  return {
    txId: receipt.transactionHash, key: entry.key, chain, asset: entry.asset, from: entry.from, to: entry.to,
    amount: BigInt(entry.amount), block: Number(receipt.blockNumber), at: entry.at,
  };
}

/**
 * Waits for the stored transaction's receipt, rebroadcasting the same bytes while there is none. Transport errors
 * (a paused or unreachable node) are retried until the deadline; the answer is the one transaction's outcome.
 * `first` is the outcome of the broadcast that just signed it, or null when the entry was found stored.
 */
export async function settle(opts: SettleOptions, stored: OutboxEntry, first: BroadcastOutcome | null): Promise<Transfer> {
  const { chain, logger } = opts;
  let entry = stored;
  const details = { chain, key: entry.key, txId: entry.hash, nonce: entry.nonce, from: entry.from };
  const deadline = Date.now() + opts.receiptTimeoutMs;
  let outcome = first;
  let lastBroadcast = first ? Date.now() : 0;
  for (;;) {
    let receipt: TransactionReceipt | null = null;
    try {
      receipt = await opts.minedReceipt(entry);
    } catch (err) {
      logger?.debug({ ...details, err: rpcReason(err) }, 'receipt not readable yet');
    }
    if (receipt) {
      if (receipt.status === 'success') {
        await opts.record(entry.key, receipt);
        return transferOf(chain, entry, receipt);
      }
      throw new TransferReverted(`${chain}: transaction ${receipt.transactionHash} of key ${entry.key} reverted in block ${receipt.blockNumber}.`, {
        ...details, block: Number(receipt.blockNumber),
      });
    }
    if (outcome?.kind === 'nonce-too-low') {
      // Our hash has no receipt and its nonce is used: another transaction took it, so this one can never be mined.
      opts.forgetNonces(entry.from);
      throw new TransferDropped(`${chain}: nonce ${entry.nonce} of ${entry.from} was used by another transaction; ${entry.hash} (key ${entry.key}) will never be mined.`, details);
    }
    // Refused for its fees (the base fee rose above what it offers): replaced at once rather than failed.
    const underpriced = outcome?.kind === 'rejected' && FEE_TOO_LOW.test(outcome.reason);
    const lastSigned = entry.replacements?.at(-1)?.at ?? entry.at;
    const stuck = outcome?.kind !== 'unreachable' && Date.now() - lastSigned >= opts.bumpAfterMs;
    if (opts.bumpAfterMs > 0 && (underpriced || stuck) && (entry.replacements?.length ?? 0) < MAX_REPLACEMENTS) {
      try {
        const replaced = await opts.replace(entry);
        if (replaced !== entry) {
          entry = replaced;
          outcome = await opts.broadcast(entry);
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
      throw new TransferPending(`${chain}: no receipt for ${entry.hash} (key ${entry.key}) within ${opts.receiptTimeoutMs} ms; the same key waits for it again.`, details);
    }
    if (Date.now() - lastBroadcast >= opts.rebroadcastMs || outcome === null || outcome.kind === 'unreachable') {
      outcome = await opts.broadcast(entry);
      lastBroadcast = Date.now();
      // A rebroadcast that finds the nonce used may just mean our own transaction was mined meanwhile: read again.
      if (outcome.kind === 'nonce-too-low' || outcome.kind === 'accepted' || outcome.kind === 'known') continue;
      if (outcome.kind === 'unreachable') logger?.debug({ ...details, err: outcome.reason }, 'broadcast did not reach the node; retrying');
    }
    await sleep(opts.pollMs);
  }
}
