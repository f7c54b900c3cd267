// The outbox of one EVM chain: per key, the signed transaction stored before its broadcast (and any replacement at
// higher fees, stored before its own), and the list of every key signed on the chain, which the money audit reads.
// What is stored here is what makes a send happen at most once across crashes (see ledger.ts).
import type { Hex } from 'viem';
import type { AssetId, ChainName } from '../../assets/types.js';
import { arrayOf, isInteger, isString, isUnits, optional, shapeOf } from '../../checks.js';
import { getEntry } from '../../store/stored-entry.js';
import type { ActorStore } from '../../store/types.js';
import { Locks } from './nonces.js';

export const OUTBOX_SPACE = 'evm-outbox';
/** Per chain, every outbox key signed on it, in signing order (`<chain>|n` → count, `<chain>|<i>` → key): what the
 *  audit reads to reconcile the router's accounts' on-chain balances. */
export const SIGNED_SPACE = 'evm-signed';

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

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Fees that replace `last` in a node's pool: `now`'s, and at least REPLACEMENT_BUMP over `last`'s. */
export function outbidding(last: Fees, now: Fees): Fees {
  const bump = (v: bigint) => (v * REPLACEMENT_BUMP + 999n) / 1000n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const maxPriorityFeePerGas = max(now.maxPriorityFeePerGas, bump(last.maxPriorityFeePerGas));
  return { maxPriorityFeePerGas, maxFeePerGas: max(max(now.maxFeePerGas, bump(last.maxFeePerGas)), maxPriorityFeePerGas) };
}

/** The bytes to broadcast: the last signed (highest fees). */
export const latestRaw = (entry: OutboxEntry): Hex => entry.replacements?.at(-1)?.raw ?? entry.raw;

/** One transaction signed on the chain and what became of it. */
export interface SignedTx {
  entry: OutboxEntry;
  /** Its receipt: mined in `block`, `success` or reverted, `fee` (gas used × effective gas price) paid in either
   *  case; null while it is not mined. */
  mined: { block: number; success: boolean; fee: bigint } | null;
}

export interface Outbox {
  /** The entry of a key, checked as stored; null when the key was never signed. */
  entry(key: string): Promise<OutboxEntry | null>;
  /** Stores the entry under its key (a new one, or one with a replacement added). */
  put(entry: OutboxEntry): Promise<void>;
  /** Appends a key to the chain's signed list, one append at a time (accounts sign concurrently). Listed before its
   *  entry is stored: a listed key without an entry was never broadcast, an entry is always listed. */
  listSigned(key: string): Promise<void>;
  /** The entries of every key signed on the chain, in signing order. */
  signedEntries(): Promise<OutboxEntry[]>;
}

export function openOutbox(store: Pick<ActorStore, 'getKey' | 'putKey'>, chain: ChainName): Outbox {
  const listLock = new Locks();
  const entry = (key: string) => getEntry(store, OUTBOX_SPACE, key, isOutboxEntry);
  return {
    entry,
    async put(e) {
      await store.putKey(OUTBOX_SPACE, e.key, JSON.stringify(e));
    },
    listSigned(key) {
      return listLock.run(chain, async () => {
        const n = Number((await store.getKey(SIGNED_SPACE, `${chain}|n`)) ?? '0');
        await store.putKey(SIGNED_SPACE, `${chain}|${n}`, key);
        await store.putKey(SIGNED_SPACE, `${chain}|n`, String(n + 1));
      });
    },
    async signedEntries() {
      const n = Number((await store.getKey(SIGNED_SPACE, `${chain}|n`)) ?? '0');
      const keys = new Set<string>();
      for (let i = 0; i < n; i++) {
        const key = await store.getKey(SIGNED_SPACE, `${chain}|${i}`);
        if (key !== null) keys.add(key);
      }
      const entries: OutboxEntry[] = [];
      for (const key of keys) {
        const e = await entry(key);
        if (e) entries.push(e);
      }
      return entries;
    },
  };
}
