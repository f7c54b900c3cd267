// Hashes of scanned blocks, kept durably in a ring of HASH_WINDOW slots per chain, so a scanner can tell after a
// restart whether blocks it already read were replaced (a reorg) and rewind its cursor to the first changed block.
import type { ActorStore } from '../../store/types.js';

export const BLOCK_HASH_SPACE = 'evm-block-hash';
/** Reorgs deeper than this many blocks are reported as reaching the window's bottom (`beyondWindow`). */
export const HASH_WINDOW = 256;

export interface Reorg {
  /** First block whose remembered hash is no longer the canonical one: rescan from here. */
  from: number;
  /** The block the check started from (the caller's last scanned block). */
  upTo: number;
  /** Blocks replaced, `upTo − from + 1`. */
  depth: number;
  /** Every remembered block down to the window's bottom changed: the real fork point may be lower still. */
  beyondWindow: boolean;
}

export class BlockHashes {
  constructor(
    private readonly store: Pick<ActorStore, 'getKey' | 'putKey'>,
    private readonly scope: string,
  ) {}

  private slot(n: number): string {
    return `${this.scope}:${n % HASH_WINDOW}`;
  }

  async remember(blocks: ReadonlyArray<{ number: number; hash: string }>): Promise<void> {
    // Only the last HASH_WINDOW blocks of a long range survive the ring anyway.
    for (const b of blocks.slice(-HASH_WINDOW)) {
      await this.store.putKey(BLOCK_HASH_SPACE, this.slot(b.number), JSON.stringify({ n: b.number, hash: b.hash }));
    }
  }

  async get(n: number): Promise<string | null> {
    const raw = await this.store.getKey(BLOCK_HASH_SPACE, this.slot(n));
    if (!raw) return null;
    const v = JSON.parse(raw) as { n: number; hash: string };
    return v.n === n ? v.hash : null;
  }
}

/**
 * Walks down from `upTo` while the remembered hash differs from the canonical one; the lowest differing block is
 * where the replaced blocks start. Null when `upTo` still matches or was never remembered. `canonical` throws for a
 * block the node lacks: a chain that looks shorter than before is a node behind far more often than a reorg, and the
 * blocks of a real one come back with other hashes.
 */
export async function findReorg(hashes: BlockHashes, upTo: number, canonical: (n: number) => Promise<string>): Promise<Reorg | null> {
  let from: number | null = null;
  let n = upTo;
  for (; n >= 0 && n > upTo - HASH_WINDOW; n--) {
    const remembered = await hashes.get(n);
    if (remembered === null) break;
    if ((await canonical(n)) === remembered) break;
    from = n;
  }
  if (from === null) return null;
  return { from, upTo, depth: upTo - from + 1, beyondWindow: n <= upTo - HASH_WINDOW };
}
