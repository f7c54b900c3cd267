// Deposit watching for the actor host: scans each chain's mined blocks from durable cursors, finds the order a
// deposit address belongs to, and tells that order (at least once; the order deduplicates by txId).
// Two passes per chain: "seen" (every mined block, so `funded` shows as soon as a deposit is mined) and
// "confirmed" (blocks with the chain's required confirmations, so execution starts only on confirmed money).
// On a chain whose blocks can be replaced (a real one), every poll first asks whether the blocks read so far were: on
// a reorg both cursors rewind below the first replaced block, each order owning a deposit that left the chain hears
// `deposit.vanished` (at least once; the order deduplicates), and the passes scan the new blocks. After the passes
// the chain broadcasts again the router's own sends a reorg took off it.
// A cursor is stored at once when its pass told an order a deposit; otherwise it moves in memory and is stored every
// `cursorEveryMs` (and on stop), so an idle service makes a durable write every half minute instead of every poll. A
// restart, or another worker taking the feed over, scans again the blocks read since, which told nobody anything:
// nothing is told twice, and nothing is missed, since the stored cursor never passes a block it has not delivered.
import type { AssetId, ChainName } from '../src/assets/types.js';
import { CHAIN_NAMES } from '../src/assets/types.js';
import { chainsSharingAddresses } from '../src/assets/chains.js';
import { isEvmAddress } from '../src/chains/accounts.js';
import type { Deposit, DepositWatcher } from '../src/chains/types.js';
import { OrderNotFound, RouterError } from '../src/errors.js';
import type { Logger } from '../src/log.js';
import { isInternalAccount } from '../src/orders/money.js';
import type { OrderDeposit, OrderDepositVanished } from '../src/protocol/index.js';
import type { ActorStore, KeyEntry } from '../src/store/types.js';
import { isString, shapeOf } from '../src/checks.js';
import { getEntry } from '../src/store/stored-entry.js';

/** The entry of a deposit address: the order that owns it and the asset it expects. */
const isOwner = shapeOf<{ orderId: string; asset: AssetId }>({ orderId: isString, asset: isString });

const ADDRESSES = 'deposit-address';
const CURSORS = 'deposit-cursor';


export interface DepositFeedDeps {
  /** `checkReorg`, `vanished` and `restoreReorgedSends` only where blocks can be replaced (see DepositWatcher). */
  chains: Pick<DepositWatcher, 'scan' | 'requiredConfirmations' | 'checkReorg' | 'vanished' | 'restoreReorgedSends'> & { height(chain: ChainName): Promise<number> };
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  /** Delivers a deposit, or its vanishing, to its order (through the bus); a rejection leaves the cursor so it is
   *  retried. */
  tell(orderId: string, command: OrderDeposit | OrderDepositVanished): Promise<unknown>;
  logger: Logger;
  /** How long a cursor moved over empty blocks stays in memory before it is stored (default CURSOR_EVERY_MS). */
  cursorEveryMs?: number;
  /** Monotonic milliseconds (default performance.now); tests move it. */
  now?: () => number;
}

/** Empty blocks read since a cursor was last stored are scanned again after a restart: at most half a minute's. */
export const CURSOR_EVERY_MS = 30_000;

export interface DepositFeed {
  /** Records which order owns a deposit address and which asset it expects; durable before the address is shown. */
  register(chain: ChainName, address: string, orderId: string, asset: AssetId): Promise<void>;
  /** One pass over every chain; concurrent calls share the pass in progress. */
  poll(): Promise<void>;
  start(everyMs: number): void;
  stop(): Promise<void>;
}

const addressKey = (chain: ChainName, address: string) => `${chain}:${address.toLowerCase()}`;

/** The entry `register` writes, for a store write that saves it with the order's snapshot (same transaction). */
export function depositAddressEntry(chain: ChainName, address: string, orderId: string, asset: AssetId): KeyEntry {
  return { space: ADDRESSES, key: addressKey(chain, address), value: JSON.stringify({ orderId, asset }) };
}

/**
 * The log of the timer's polls. A poll that failed only for reasons the next poll retries (a chain moved under a
 * scan, a node behind its peers) is logged at warn when it starts a run of failures and at debug after that, so a node
 * lagging for minutes writes one line, not one a poll; any other failure at error every time. The poll that ends a run
 * says at info how many failed.
 */
function pollLog(logger: Logger) {
  let failedInARow = 0;
  return {
    failed(err: unknown): void {
      failedInARow++;
      const failures = err instanceof AggregateError ? (err.errors as unknown[]) : [err];
      const retried = failures.every((e) => e instanceof RouterError && e.retriable);
      if (!retried) logger.error({ err: String(err), failedInARow }, 'deposit scan failed');
      else if (failedInARow === 1) logger.warn({ err: String(err) }, 'deposit scan failed; retried on the next poll');
      else logger.debug({ err: String(err), failedInARow }, 'deposit scan failed again; retried on the next poll');
    },
    succeeded(): void {
      if (failedInARow > 0) logger.info({ failedPolls: failedInARow }, 'deposit scans succeed again');
      failedInARow = 0;
    },
  };
}

export function createDepositFeed(deps: DepositFeedDeps): DepositFeed {
  const { chains, store, logger } = deps;
  const cursorEveryMs = deps.cursorEveryMs ?? CURSOR_EVERY_MS;
  const now = deps.now ?? (() => performance.now());
  /** Per cursor key: the last block read, the block in the store, and when this feed stored it (-Infinity: not yet,
   *  so its first move is stored at once). */
  const cursors = new Map<string, { block: number; stored: number; storedAt: number }>();
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  /** Delivers deposits in order; answers the last block fully delivered (a failure stops before its block) and how
   *  many deposits were told to an order. */
  async function deliver(chain: ChainName, deposits: Deposit[], upTo: number, required: number): Promise<{ reached: number; told: number }> {
    let told = 0;
    for (const d of deposits) {
      const owner = await ownerOf(chain, d.to);
      if (!owner) {
        // A deposit address is the same on every EVM chain: money sent to it on another one than its order's is
        // not the order's to spend, but must not pass unseen.
        const elsewhere = await ownerOnAnotherEvmChain(chain, d.to);
        if (elsewhere) {
          logger.warn({ chain, txId: d.txId, orderId: elsewhere.orderId, orderChain: elsewhere.chain, asset: d.asset }, 'deposit on another chain than the order\'s; left for an operator');
        }
        continue; // otherwise a transfer between other accounts
      }
      const { orderId, asset } = owner;
      if (d.asset !== asset) {
        logger.warn({ chain, txId: d.txId, orderId, asset: d.asset }, 'deposit of another asset than the order expects; left for an operator');
        continue;
      }
      const fromRouter = d.fromRouter === true || (await isRouterAccount(chain, d.from));
      if (fromRouter) logger.warn({ chain, txId: d.txId, orderId, from: d.from }, 'deposit sent by one of the router\'s own accounts; it is never paid back to its sender');
      try {
        const command = { type: 'deposit', txId: d.txId, from: d.from, amount: d.amount, confirmations: d.confirmations, required } as const;
        await deps.tell(orderId, fromRouter ? { ...command, fromRouter } : command);
      } catch (err) {
        // An address registered without its order (the two are written in one transaction, so only a damaged or
        // hand-edited store) would hold back every later deposit of the chain if retried: named for an operator instead.
        if (err instanceof OrderNotFound) {
          logger.error({ chain, txId: d.txId, orderId, amount: String(d.amount) }, 'deposit to the address of an order that does not exist; left for an operator');
          continue;
        }
        logger.warn({ chain, txId: d.txId, orderId, err: String(err) }, 'deposit not delivered yet; retrying on the next pass');
        return { reached: d.block - 1, told };
      }
      told++;
    }
    return { reached: upTo, told };
  }

  /** The owner of a deposit address and the asset it expects, or null for an address no order owns. */
  async function ownerOf(chain: ChainName, address: string): Promise<{ orderId: string; asset: AssetId } | null> {
    return getEntry(store, ADDRESSES, addressKey(chain, address), isOwner);
  }

  /** The order owning `address` on another chain sharing `chain`'s addresses (another EVM chain for an EVM one). A scan
   *  lists every transfer of its blocks, most of them between internal accounts (fees, pools, holding accounts): only
   *  an EVM address, the form of a deposit address, is looked up. */
  async function ownerOnAnotherEvmChain(chain: ChainName, address: string): Promise<{ orderId: string; chain: ChainName } | null> {
    if (!isEvmAddress(address)) return null;
    for (const other of chainsSharingAddresses(chain)) {
      if (other === chain) continue;
      const owner = await ownerOf(other, address);
      if (owner) return { orderId: owner.orderId, chain: other };
    }
    return null;
  }

  /** Whether a sender is one of the router's own accounts: an internal one (holding, fees, pool) or any order's deposit
   *  address. Such a deposit is one order delivering or refunding into another's address. */
  async function isRouterAccount(chain: ChainName, address: string): Promise<boolean> {
    return isInternalAccount(address) || (await ownerOf(chain, address)) !== null;
  }

  /** The last block a pass has read: the stored cursor, read once after the feed starts, then kept in memory (every
   *  move goes through moveCursor). */
  async function cursorOf(key: string): Promise<number> {
    const known = cursors.get(key);
    if (known) return known.block;
    const stored = Number((await store.getKey(CURSORS, key)) ?? '0');
    cursors.set(key, { block: stored, stored, storedAt: -Infinity });
    return stored;
  }

  /** Moves a cursor (read by cursorOf first) to `block`: stored now when `durable` or when this feed last stored it
   *  cursorEveryMs ago or never. */
  async function moveCursor(key: string, block: number, durable: boolean): Promise<void> {
    const c = cursors.get(key)!;
    c.block = block;
    if (durable || now() - c.storedAt >= cursorEveryMs) {
      await store.putKey(CURSORS, key, String(block));
      c.stored = block;
      c.storedAt = now();
    }
  }

  /**
   * Whether the blocks the passes read up to `done` were replaced; if so, tells each owning order about its deposits
   * that left the chain, then rewinds both cursors below the first replaced block. The cursors move only after every
   * order has heard, so a failed telling is repeated on the next pass (the chain answers the vanished deposits until
   * they are scanned again).
   */
  async function rewindOnReorg(chain: ChainName, done: number): Promise<void> {
    if (!chains.checkReorg || done === 0) return;
    const reorg = await chains.checkReorg(chain, done);
    if (!reorg) return;
    logger.warn({ chain, ...reorg }, reorg.beyondWindow ? 'reorg reaching below the remembered blocks; rescanning from there' : 'reorg; rescanning the replaced blocks');
    for (const d of (await chains.vanished?.(chain, reorg.from)) ?? []) {
      const owner = await ownerOf(chain, d.to);
      if (!owner || d.asset !== owner.asset) continue; // never told to an order
      await deps.tell(owner.orderId, { type: 'deposit.vanished', txId: d.txId });
      logger.warn({ chain, txId: d.txId, orderId: owner.orderId }, 'deposit removed by a reorg; told to its order');
    }
    for (const name of ['seen', 'confirmed'] as const) {
      const key = `${chain}:${name}`;
      if ((await cursorOf(key)) >= reorg.from) await moveCursor(key, reorg.from - 1, true);
    }
  }

  async function pass(chain: ChainName, name: 'seen' | 'confirmed', upTo: number, required: number): Promise<void> {
    const cursorKey = `${chain}:${name}`;
    const done = await cursorOf(cursorKey);
    if (upTo <= done) return;
    const deposits = await chains.scan(chain, done + 1, upTo);
    const { reached, told } = await deliver(chain, deposits, upTo, required);
    if (reached > done) await moveCursor(cursorKey, reached, told > 0);
  }

  async function pollChain(chain: ChainName): Promise<void> {
    // The "seen" cursor is never behind the "confirmed" one: it is the last block either pass read.
    const seen = await cursorOf(`${chain}:seen`);
    const confirmed = await cursorOf(`${chain}:confirmed`);
    await rewindOnReorg(chain, Math.max(seen, confirmed));
    const height = await chains.height(chain);
    const required = chains.requiredConfirmations(chain);
    // A block at height h has 1 confirmation; it has `required` once the height reaches h + required - 1.
    if (required > 1) await pass(chain, 'seen', height, required);
    await pass(chain, 'confirmed', height - Math.max(required, 1) + 1, required);
    // After the passes, whose scans remember the hashes a send's block is judged by.
    await chains.restoreReorgedSends?.(chain, height);
  }

  // The chains are polled together: a slow or failing chain holds back no other, and their cursor writes of one poll
  // meet in the store's group commit (one durable transaction instead of one per chain and pass in a row, each
  // stopping the event loop for its fsync). A poll with failed chains rejects once every chain is done.
  async function pollOnce(): Promise<void> {
    const results = await Promise.allSettled(CHAIN_NAMES.map((chain) => pollChain(chain)));
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `Deposit scans of ${failures.length} chains failed.`);
  }

  const feed: DepositFeed = {
    async register(chain, address, orderId, asset) {
      const e = depositAddressEntry(chain, address, orderId, asset);
      await store.putKey(e.space, e.key, e.value);
    },
    poll() {
      running ??= pollOnce().finally(() => {
        running = null;
      });
      return running;
    },
    start(everyMs) {
      if (timer) return;
      const log = pollLog(logger);
      timer = setInterval(() => void feed.poll().then(log.succeeded, log.failed), everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      // What was read over empty blocks since the last write, so a restart does not scan it again.
      // Then forgotten: a feed started again (this worker holding the feed once more) reads the stored cursors.
      const ahead = [...cursors].filter(([, c]) => c.block !== c.stored);
      cursors.clear();
      await Promise.all(ahead.map(([key, c]) => store.putKey(CURSORS, key, String(c.block))));
    },
  };
  return feed;
}
