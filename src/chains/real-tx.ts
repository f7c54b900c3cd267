// Which real transaction each bookkeeping key of a real chain stands for, and back: a booked transfer answers the
// chain's hash and block, and a hash lists the keys it moved. Written before the bookkeeping transfer, so a booked
// transfer on a real chain always finds its transaction.
import type { ActorStore } from '../store/types.js';
import { arrayOf, isInteger, isString, optional, shapeOf } from '../checks.js';
import { getEntry } from '../store/stored-entry.js';

/** Bookkeeping key → the real transaction it was booked for: `{ txId, block }`. */
export const REAL_TX_SPACE = 'evm-real-tx';
/** Real transaction hash → the bookkeeping keys booked for it (JSON array), so a filter by hash finds them. */
export const REAL_KEYS_SPACE = 'evm-real-keys';

export interface RealTx {
  txId: string;
  block: number;
  /** The transaction left the chain in a reorg: the booking (and its reversal) are no longer listed. */
  vanished?: true;
}

const isRealTx = shapeOf<RealTx>({ txId: isString, block: isInteger, vanished: optional((v) => v === true) });
const isKeyList = arrayOf(isString);

export class RealTxMap {
  constructor(private readonly store: Pick<ActorStore, 'getKey' | 'putKey'>) {}

  /** The transaction booked under `key`, or null for a key booked only in the books (or not at all). */
  of(key: string): Promise<RealTx | null> {
    return getEntry(this.store, REAL_TX_SPACE, key, isRealTx);
  }

  /** The bookkeeping keys a transaction moved. */
  async keysOf(txId: string): Promise<string[]> {
    return (await getEntry(this.store, REAL_KEYS_SPACE, txId.toLowerCase(), isKeyList)) ?? [];
  }

  async remember(key: string, tx: RealTx): Promise<void> {
    await this.store.putKey(REAL_TX_SPACE, key, JSON.stringify(tx));
    const keys = await this.keysOf(tx.txId);
    if (!keys.includes(key)) await this.store.putKey(REAL_KEYS_SPACE, tx.txId.toLowerCase(), JSON.stringify([...keys, key]));
  }

  /** The key's transaction left the chain: its booking is no longer listed (the hash keeps listing the key). */
  async markVanished(key: string, tx: Omit<RealTx, 'vanished'>): Promise<void> {
    await this.store.putKey(REAL_TX_SPACE, key, JSON.stringify({ ...tx, vanished: true } satisfies RealTx));
  }
}
