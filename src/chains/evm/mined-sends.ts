// The router's own sends mined in the last WATCH_BLOCKS blocks of a chain, kept durably, so that one a reorg removes
// is mined again. A send is booked once its receipt is seen; a reorg that replaces its block afterwards takes the
// money movement off the chain while the books and the order keep it (a payout shown delivered and never received),
// and leaves a gap at its nonce that every later transaction of its account waits behind. Nodes that put reorged
// transactions back in their pool (geth) mine them again by themselves; others (anvil, some L2 sequencers) do not,
// so the router does: the same signed bytes, so the same hash, mined at most once.
//
// A send's block is known canonical while the hash the deposit scan remembered for that block (`BlockHashes`) is the
// one its receipt named. Otherwise its receipt is read again: mined again elsewhere, it is followed at its new block;
// without a receipt it is broadcast again. A node answering a height below the send's block proves nothing (a node
// behind the others, or one replacing blocks right now): the send is looked at again once the node reaches it. Sends
// go back one at a time in the order they were first mined, each once the one before it is mined: a sweep after the
// top-up that pays its gas, and a payout only once the sweep that funded it is known to have succeeded.
//
// A send that cannot be restored (mined again and reverted: its deposit left the chain too; its nonce taken by another
// transaction; refused for WATCH_BLOCKS blocks) is given up and named at error for an operator, and every later
// dropped send of its family (one order's sends, `family`) is held: never broadcast, its nonce taken by a zero-value
// self-transfer at higher fees so no node mines it and the account's later sends do not wait. The keys given up and
// held are listed (`unrestored()`): the accounts' reconciliation counts them as differences, not as money in flight.
// Sends reverted when first mined are not watched: broadcast again on another chain state they could succeed.
import type { Hex, TransactionReceipt } from 'viem';
import type { ChainName } from '../../assets/types.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import { HASH_WINDOW, type BlockHashes } from './block-hashes.js';
import type { OutboxEntry } from './outbox.js';
import { Locks } from './nonces.js';
import { FEE_TOO_LOW, type BroadcastOutcome } from './rpc.js';

/** Per chain: the JSON array of `MinedSend`s still watched. */
export const MINED_SENDS_SPACE = 'evm-mined-sends';
/** Per chain: the JSON array of `UnrestoredSend`s. */
export const UNRESTORED_SENDS_SPACE = 'evm-unrestored-sends';
/** A send deeper than this below the height is no longer watched (the remembered block hashes reach no lower), and
 *  one off the chain for this many blocks is given up. */
export const WATCH_BLOCKS = HASH_WINDOW;

export interface MinedSend {
  key: string;
  /** The transaction of the key that was mined (the original or a fee-bumped replacement), then the one broadcast. */
  hash: Hex;
  block: number;
  blockHash: Hex;
  /** The height at which the send was found off the chain; set until it is mined again. */
  droppedAt?: number;
}

/** A send a reorg removed and that is mined again, at `block`. */
export interface MinedAgain {
  key: string;
  txId: Hex;
  block: number;
}

/** A send a reorg removed that the router does not restore: its money movement is in the books and not on chain. */
export interface UnrestoredSend {
  key: string;
  /** `reverted`: mined again and reverted; `nonce_taken`: another transaction was mined at its nonce; `expired`:
   *  refused for WATCH_BLOCKS blocks; `held`: an earlier send of its family was not restored. */
  reason: 'reverted' | 'nonce_taken' | 'expired' | 'held';
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
  /** Signs and stores a replacement of the entry's latest transaction at higher fees; the entry unchanged if none. */
  reprice(entry: OutboxEntry): Promise<OutboxEntry>;
  /** Takes the nonce of the entry's account with a self-transfer outbidding `raw`. */
  fillNonce(address: string, nonce: number, raw: Hex): Promise<BroadcastOutcome>;
  /** The sends that stand or fall together (default: each alone). */
  family?: (key: string) => string;
  logger?: Logger;
}

/** The signed bytes of the entry's transaction `hash` (the original or a replacement), or null. */
export function rawOf(entry: OutboxEntry, hash: Hex): Hex | null {
  if (entry.hash === hash) return entry.raw;
  return entry.replacements?.find((r) => r.hash === hash)?.raw ?? null;
}

/** What one look made of a send: still watched (maybe off the chain), or no longer. */
type Looked = { kept: MinedSend; again?: MinedAgain } | { gone: UnrestoredSend['reason'] | 'mined' };

export class MinedSends {
  private readonly lock = new Locks();
  private readonly family: (key: string) => string;

  constructor(private readonly deps: MinedSendsDeps) {
    this.family = deps.family ?? ((key) => key);
  }

  private async read<T>(space: string): Promise<T[]> {
    const raw = await this.deps.store.getKey(space, this.deps.chain);
    return raw ? (JSON.parse(raw) as T[]) : [];
  }

  private async write<T>(space: string, list: T[]): Promise<void> {
    await this.deps.store.putKey(space, this.deps.chain, JSON.stringify(list));
  }

  /** Watches a send whose successful receipt was just read (again: the key's entry is replaced). */
  record(key: string, receipt: Pick<TransactionReceipt, 'transactionHash' | 'blockNumber' | 'blockHash'>): Promise<void> {
    return this.lock.run(this.deps.chain, async () => {
      const list = (await this.read<MinedSend>(MINED_SENDS_SPACE)).filter((s) => s.key !== key);
      list.push({ key, hash: receipt.transactionHash, block: Number(receipt.blockNumber), blockHash: receipt.blockHash });
      await this.write(MINED_SENDS_SPACE, list);
    });
  }

  /** The sends still watched (for tests and operators). */
  watched(): Promise<MinedSend[]> {
    return this.lock.run(this.deps.chain, () => this.read<MinedSend>(MINED_SENDS_SPACE));
  }

  /** The sends a reorg removed that are not restored. */
  unrestored(): Promise<UnrestoredSend[]> {
    return this.lock.run(this.deps.chain, () => this.read<UnrestoredSend>(UNRESTORED_SENDS_SPACE));
  }

  /**
   * One look at every watched send, in the order first mined: those whose block the scan now remembers with another
   * hash or the chain no longer reaches, and those already off the chain, are read again (see the file header).
   * Answers the sends mined again since the last look. `known`: the chain's height when the caller has just read it.
   */
  watch(known?: number): Promise<MinedAgain[]> {
    return this.lock.run(this.deps.chain, async () => {
      const list = await this.read<MinedSend>(MINED_SENDS_SPACE);
      if (list.length === 0) return [];
      const height = known ?? (await this.deps.height());
      const unrestored = await this.read<UnrestoredSend>(UNRESTORED_SENDS_SPACE);
      const given = unrestored.length;
      // Sends share blocks: each block's remembered hash is read once per look.
      const remembered = new Map<number, Promise<string | null>>();
      const hashAt = (n: number) => remembered.get(n) ?? remembered.set(n, this.deps.hashes.get(n)).get(n)!;
      const kept: MinedSend[] = [];
      const again: MinedAgain[] = [];
      let changed = false;
      // Set once a send is off the chain and not mined again yet: the sends after it wait for it.
      let waiting = false;
      for (const send of [...list].sort((a, b) => a.block - b.block)) {
        if (send.droppedAt === undefined) {
          if (send.block <= height - WATCH_BLOCKS) {
            changed = true;
            continue;
          }
          // Above the node's height: looked at once the node reaches it.
          if (send.block > height) {
            kept.push(send);
            continue;
          }
          const hash = await hashAt(send.block);
          // Not scanned yet, or scanned with the hash its receipt named.
          if (hash === null || hash === send.blockHash) {
            kept.push(send);
            continue;
          }
        }
        changed = true;
        const held = unrestored.some((u) => this.family(u.key) === this.family(send.key));
        const looked = await this.look(send, height, held ? 'hold' : waiting ? 'wait' : 'send');
        if ('kept' in looked) {
          kept.push(looked.kept);
          if (looked.again) again.push(looked.again);
          if (looked.kept.droppedAt !== undefined) waiting = true;
        } else if (looked.gone !== 'mined') {
          unrestored.push({ key: send.key, reason: looked.gone });
        }
      }
      if (changed) await this.write(MINED_SENDS_SPACE, kept);
      if (unrestored.length > given) await this.write(UNRESTORED_SENDS_SPACE, unrestored);
      return again;
    });
  }

  /** The send as the chain has it now; `mode` says whether it may be broadcast (`send`), must wait for an earlier
   *  one (`wait`), or is held because an earlier send of its family was not restored (`hold`). */
  private async look(send: MinedSend, height: number, mode: 'send' | 'wait' | 'hold'): Promise<Looked> {
    const { chain, logger } = this.deps;
    let entry = await this.deps.outboxEntry(send.key);
    const raw = entry ? rawOf(entry, send.hash) : null;
    if (!entry || !raw) {
      logger?.error({ chain, key: send.key, txId: send.hash }, 'a watched send has no stored transaction; not watched any more');
      return { gone: 'mined' };
    }
    const details = { chain, key: send.key, from: entry.from, nonce: entry.nonce };
    const receipt = await this.deps.minedReceipt(entry);
    if (receipt) {
      if (receipt.status !== 'success') {
        logger?.error({ ...details, txId: receipt.transactionHash, block: Number(receipt.blockNumber) }, 'a send mined again after a reorg reverted (what it spent left the chain too); its booking and the later sends of its order are left for an operator');
        return { gone: 'reverted' };
      }
      const kept = { key: send.key, hash: receipt.transactionHash, block: Number(receipt.blockNumber), blockHash: receipt.blockHash };
      const moved = send.droppedAt !== undefined || kept.blockHash !== send.blockHash;
      return moved ? { kept, again: { key: kept.key, txId: kept.hash, block: kept.block } } : { kept };
    }
    if (mode === 'hold') {
      const filled = await this.deps.fillNonce(entry.from, entry.nonce, raw).then(
        (o) => o.kind,
        (err: unknown) => `not signed: ${err instanceof Error ? err.message : String(err)}`,
      );
      logger?.error({ ...details, txId: send.hash, filler: filled }, 'a send removed by a reorg is held, since an earlier send of its order was not restored; its nonce is taken by a self-transfer and its booking left for an operator');
      return { gone: 'held' };
    }
    const droppedAt = send.droppedAt ?? height;
    if (droppedAt <= height - WATCH_BLOCKS) {
      logger?.error({ ...details, txId: send.hash }, `a send removed by a reorg was not mined again within ${WATCH_BLOCKS} blocks; its booking is left for an operator`);
      return { gone: 'expired' };
    }
    if (mode === 'wait') return { kept: { ...send, droppedAt } };
    let hash = send.hash;
    let outcome = await this.deps.broadcastRaw(raw);
    // Refused for its fees (the base fee rose since it was signed): replaced at the same nonce, mined at most once.
    if (outcome.kind === 'rejected' && FEE_TOO_LOW.test(outcome.reason)) {
      const repriced = await this.deps.reprice(entry);
      const latest = repriced.replacements?.at(-1);
      if (repriced !== entry && latest) {
        entry = repriced;
        hash = latest.hash;
        outcome = await this.deps.broadcastRaw(latest.raw);
      }
    }
    if (outcome.kind === 'nonce-too-low') {
      // Read once more: the broadcast may only have found it mined meanwhile.
      const late = await this.deps.minedReceipt(entry);
      if (late?.status === 'success') {
        const kept = { key: send.key, hash: late.transactionHash, block: Number(late.blockNumber), blockHash: late.blockHash };
        return { kept, again: { key: kept.key, txId: kept.hash, block: kept.block } };
      }
      logger?.error({ ...details, reason: outcome.reason }, 'a send removed by a reorg cannot be mined again: another transaction took its nonce; its booking and the later sends of its order are left for an operator');
      return { gone: 'nonce_taken' };
    }
    const said = { ...details, txId: hash, outcome: outcome.kind, ...('reason' in outcome ? { reason: outcome.reason } : {}) };
    if (send.droppedAt === undefined) logger?.warn(said, 'a send removed by a reorg is broadcast again');
    else logger?.debug(said, 'a send removed by a reorg is broadcast again; not mined yet');
    return { kept: { ...send, hash, droppedAt } };
  }
}
