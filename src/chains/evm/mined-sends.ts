// The router's own sends mined in the last WATCH_BLOCKS blocks of a chain, kept durably, so that one a reorg removes
// is broadcast again. A send is booked once its receipt is seen; a reorg that replaces its block afterwards takes the
// money movement off the chain while the books and the order keep it (a payout shown delivered and never received),
// and leaves a gap at its nonce that every later transaction of its account waits behind. Nodes that put reorged
// transactions back in their pool (geth) mine them again by themselves; others (anvil, some L2 sequencers) do not,
// so the router does: the same signed bytes, so the same hash, mined at most once.
//
// A send's block is known canonical while the hash the deposit scan remembered for that block (`BlockHashes`) is the
// one its receipt named. A scan that remembers another hash there (after a reorg the feed rescans the replaced
// blocks) marks the send for a look at its receipt: mined again elsewhere, it is followed at its new block; without a
// receipt, its bytes are broadcast on every watch until one is mined. Sends reverted when first mined are not kept:
// broadcast again on another chain state they could succeed, moving money the books say never moved.
import type { Hex, TransactionReceipt } from 'viem';
import { keccak256 } from 'viem';
import type { ChainName } from '../../assets/types.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import { HASH_WINDOW, type BlockHashes } from './block-hashes.js';
import type { OutboxEntry } from './ledger.js';
import { Locks } from './nonces.js';
import type { BroadcastOutcome } from './rpc.js';

/** Per chain: the JSON array of `MinedSend`s still watched. */
export const MINED_SENDS_SPACE = 'evm-mined-sends';
/** A send deeper than this below the height is no longer watched: the remembered block hashes reach no lower. */
export const WATCH_BLOCKS = HASH_WINDOW;

export interface MinedSend {
  key: string;
  /** The transaction of the key that was mined (the original or a fee-bumped replacement). */
  hash: Hex;
  block: number;
  blockHash: Hex;
  /** Set while the send is off the chain after a reorg: broadcast again, not mined since. */
  dropped?: true;
}

/** A send a reorg removed and that is mined again, at `block`. */
export interface MinedAgain {
  key: string;
  txId: Hex;
  block: number;
}

export interface MinedSendsDeps {
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  chain: ChainName;
  hashes: Pick<BlockHashes, 'get'>;
  height(): Promise<number>;
  outboxEntry(key: string): Promise<OutboxEntry | null>;
  /** The receipt of whichever of the entry's transactions is mined now, or null. */
  minedReceipt(entry: OutboxEntry): Promise<TransactionReceipt | null>;
  broadcastRaw(raw: Hex): Promise<BroadcastOutcome>;
  logger?: Logger;
}

/** The signed bytes of the entry's transaction `hash` (the original or a replacement), or null. */
export function rawOf(entry: OutboxEntry, hash: Hex): Hex | null {
  if (entry.hash === hash) return entry.raw;
  return entry.replacements?.find((r) => r.hash === hash)?.raw ?? null;
}

export class MinedSends {
  private readonly lock = new Locks();

  constructor(private readonly deps: MinedSendsDeps) {}

  private async list(): Promise<MinedSend[]> {
    const raw = await this.deps.store.getKey(MINED_SENDS_SPACE, this.deps.chain);
    return raw ? (JSON.parse(raw) as MinedSend[]) : [];
  }

  private async save(list: MinedSend[]): Promise<void> {
    await this.deps.store.putKey(MINED_SENDS_SPACE, this.deps.chain, JSON.stringify(list));
  }

  /** Watches a send whose successful receipt was just read (again: the key's entry is replaced). */
  record(key: string, receipt: Pick<TransactionReceipt, 'transactionHash' | 'blockNumber' | 'blockHash'>): Promise<void> {
    return this.lock.run(this.deps.chain, async () => {
      const list = (await this.list()).filter((s) => s.key !== key);
      list.push({ key, hash: receipt.transactionHash, block: Number(receipt.blockNumber), blockHash: receipt.blockHash });
      await this.save(list);
    });
  }

  /** The sends still watched (for tests and operators). */
  watched(): Promise<MinedSend[]> {
    return this.lock.run(this.deps.chain, () => this.list());
  }

  /**
   * One look at every watched send: those whose block the scan now remembers with another hash, and those already
   * off the chain, are read again; one without a receipt is broadcast again, in the order the sends were mined (a
   * sweep after the gas top-up that pays for it). Answers the sends mined again since the last look.
   */
  watch(): Promise<MinedAgain[]> {
    return this.lock.run(this.deps.chain, async () => {
      const list = await this.list();
      if (list.length === 0) return [];
      const bottom = (await this.deps.height()) - WATCH_BLOCKS;
      const kept: MinedSend[] = [];
      const again: MinedAgain[] = [];
      // Sends share blocks: each block's remembered hash is read once per look.
      const remembered = new Map<number, Promise<string | null>>();
      const hashAt = (n: number) => remembered.get(n) ?? remembered.set(n, this.deps.hashes.get(n)).get(n)!;
      let changed = false;
      for (const send of [...list].sort((a, b) => a.block - b.block)) {
        if (!send.dropped && send.block <= bottom) {
          changed = true;
          continue;
        }
        if (!send.dropped) {
          const hash = await hashAt(send.block);
          // Not scanned yet, or scanned with the hash its receipt named: nothing to do.
          if (hash === null || hash === send.blockHash) {
            kept.push(send);
            continue;
          }
        }
        changed = true;
        const next = await this.look(send);
        if (next === null) continue;
        if (!next.dropped && (send.dropped || next.blockHash !== send.blockHash)) again.push({ key: next.key, txId: next.hash, block: next.block });
        kept.push(next);
      }
      if (changed) await this.save(kept);
      return again;
    });
  }

  /** The send as the chain has it now: mined (perhaps elsewhere), or broadcast again and dropped; null when it can
   *  never be mined again or reverted when it was, both named for an operator. */
  private async look(send: MinedSend): Promise<MinedSend | null> {
    const { chain, logger } = this.deps;
    const entry = await this.deps.outboxEntry(send.key);
    const raw = entry ? rawOf(entry, send.hash) : null;
    if (!entry || !raw) {
      logger?.error({ chain, key: send.key, txId: send.hash }, 'a watched send has no stored transaction; not watched any more');
      return null;
    }
    const receipt = await this.deps.minedReceipt(entry);
    if (receipt) {
      if (receipt.status !== 'success') {
        logger?.error({ chain, key: send.key, txId: receipt.transactionHash, block: Number(receipt.blockNumber) }, 'a send mined again after a reorg reverted; its booking is left for an operator');
        return null;
      }
      return { key: send.key, hash: receipt.transactionHash, block: Number(receipt.blockNumber), blockHash: receipt.blockHash };
    }
    const outcome = await this.deps.broadcastRaw(raw);
    const details = { chain, key: send.key, txId: keccak256(raw), from: entry.from, nonce: entry.nonce, outcome: outcome.kind };
    if (outcome.kind === 'nonce-too-low') {
      // Read once more: the broadcast may only have found it mined meanwhile.
      const late = await this.deps.minedReceipt(entry);
      if (late?.status === 'success') return { key: send.key, hash: late.transactionHash, block: Number(late.blockNumber), blockHash: late.blockHash };
      logger?.error({ ...details, reason: outcome.reason }, 'a send removed by a reorg cannot be mined again: another transaction took its nonce; its booking is left for an operator');
      return null;
    }
    if (!send.dropped) logger?.warn(details, 'a send removed by a reorg is broadcast again');
    else if (outcome.kind === 'rejected' || outcome.kind === 'unreachable') logger?.debug({ ...details, reason: outcome.reason }, 'a send removed by a reorg is not accepted yet; broadcast again on the next look');
    return { ...send, dropped: true };
  }
}
