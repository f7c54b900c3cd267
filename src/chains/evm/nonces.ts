// Nonces of the accounts this process signs for, and the lock that serialises each account's signing.
// The next nonce is durable (store.putKey) and reserved before a transaction is signed, so a restart knows which
// nonces were handed out: one whose transaction was stored is rebroadcast, one that never got a stored transaction
// (the process stopped between reserving and storing) is filled, and no later transaction waits behind a gap.
import { ConfigError } from '../../errors.js';
import type { ActorStore } from '../../store/types.js';
import { isInteger, isString, mapOf, shapeOf } from '../../checks.js';
import { getEntry } from '../../store/stored-entry.js';

export const NONCE_SPACE = 'evm-nonce';
/** Reservations older than this many nonces are dropped from the record: they were mined long ago. */
const KEEP = 1024;
/** A restart finds at most this many handed-out nonces the node does not know; more means the chain was reset. */
const MAX_RECOVER = 64;

interface NonceRecord {
  /** Next nonce to hand out. */
  next: number;
  /** nonce → idempotency key of the transfer it was reserved for. */
  reserved: Record<string, string>;
}

const isNonceRecord = shapeOf<NonceRecord>({ next: isInteger, reserved: mapOf(isString) });

export interface NonceDeps {
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  /** Distinguishes the accounts of one address on several chains. */
  scope: string;
  /** `eth_getTransactionCount(address, 'pending')`. */
  pendingCount(address: string): Promise<number>;
  /** Makes the node know a handed-out nonce again: rebroadcast its stored transaction (key given and stored) or fill it. */
  recover(address: string, nonce: number, key: string | null): Promise<void>;
}

/** Serialises async work per name; a failure does not block the next one. */
export class Locks {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(name) ?? Promise.resolve();
    const result = prev.catch(() => undefined).then(fn);
    const tail = result.catch(() => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return result;
  }
}

export interface AccountSession {
  /** Reserves the next nonce for `key`, durably, before anything is signed with it. */
  reserve(key: string): Promise<number>;
}

export class NonceManager {
  private readonly locks = new Locks();
  private readonly records = new Map<string, NonceRecord>();

  constructor(private readonly deps: NonceDeps) {}

  /** Runs `fn` alone for the account (signing and the first broadcast), with nonces loaded and recovered. */
  withAccount<T>(address: string, fn: (session: AccountSession) => Promise<T>): Promise<T> {
    const account = address.toLowerCase();
    return this.locks.run(account, async () => {
      const record = this.records.get(account) ?? (await this.load(account));
      return fn({ reserve: (key) => this.reserve(account, record, key) });
    });
  }

  /** Forgets the local view: the next use reads the node again (after another signer used a nonce). */
  forget(address: string): void {
    this.records.delete(address.toLowerCase());
  }

  private storeKey(account: string): string {
    return `${this.deps.scope}:${account}`;
  }

  private async load(account: string): Promise<NonceRecord> {
    const stored = (await getEntry(this.deps.store, NONCE_SPACE, this.storeKey(account), isNonceRecord)) ?? { next: 0, reserved: {} };
    const pending = await this.deps.pendingCount(account);
    if (stored.next - pending > MAX_RECOVER) {
      throw new ConfigError(
        `The store has handed out nonces up to ${stored.next - 1} for ${account} (${this.deps.scope}) but the node knows ${pending} transactions: the chain was reset behind the store.`,
      );
    }
    // Nonces handed out before a restart that the node does not know (never broadcast, or dropped from its pool).
    for (let n = pending; n < stored.next; n++) {
      await this.deps.recover(account, n, stored.reserved[String(n)] ?? null);
    }
    const record: NonceRecord = { next: Math.max(pending, stored.next), reserved: stored.reserved };
    this.records.set(account, record);
    return record;
  }

  private async reserve(account: string, record: NonceRecord, key: string): Promise<number> {
    const nonce = record.next;
    const reserved: Record<string, string> = {};
    for (const [n, k] of Object.entries(record.reserved)) if (Number(n) > nonce - KEEP) reserved[n] = k;
    reserved[String(nonce)] = key;
    const next: NonceRecord = { next: nonce + 1, reserved };
    await this.deps.store.putKey(NONCE_SPACE, this.storeKey(account), JSON.stringify(next));
    // Local state moves only once the reservation is durable.
    record.next = next.next;
    record.reserved = next.reserved;
    return nonce;
  }
}
