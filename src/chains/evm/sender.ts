// Outgoing transfers on one EVM chain, made exactly once per key across crashes: the signed transaction is stored in
// the outbox before it is broadcast, so a key is signed at most once; later calls, in this process or after a
// restart, rebroadcast the same bytes and answer the outcome of that one transaction (settle.ts). A send stuck without
// a receipt is replaced at higher fees (same nonce and call; signing.ts); a reorg that removes a mined send is watched
// (mined-sends.ts).
import { isAddress, keccak256, type Address, type PublicClient } from 'viem';
import { assetById } from '../../assets/registry.js';
import type { AssetId, ChainName } from '../../assets/types.js';
import { InvalidAddress, InvalidAmount, InvalidRequest, RouterError, UnknownAsset, Unavailable } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import type { Transfer } from '../types.js';
import type { BlockHashes } from './block-hashes.js';
import { broadcaster } from './broadcast.js';
import type { ChainReads } from './chain-reads.js';
import { MinedSends, type MinedAgain, type UnrestoredSend } from './mined-sends.js';
import { Locks, NonceManager } from './nonces.js';
import { latestRaw, type Outbox, type OutboxEntry, type SignedTx } from './outbox.js';
import { receiptL1Fee } from './l1-fee.js';
import { lowerAddress, mapLimit, rpcError, rpcReason, type BroadcastOutcome } from './rpc.js';
import { settle, type SettleOptions } from './settle.js';
import { Signing, type SendToSign, type Signers } from './signing.js';

export type { Signers } from './signing.js';

export interface EvmSendRequest extends SendToSign {
  /** Native coin at `from` the send must leave in place (what the books hold there for an order beyond this send):
   *  the preflight refuses a send whose value and gas at its fee cap would reach into it. */
  keep?: bigint;
}

const MAX_KEY = 512;

/** Refuses a request this chain cannot send before anything is read or signed. */
export function checkSendRequest(req: EvmSendRequest, chain: ChainName): void {
  if (typeof req.key !== 'string' || req.key.length === 0 || req.key.length > MAX_KEY) {
    throw new InvalidRequest(`key must be a non-empty string of at most ${MAX_KEY} characters.`, 'key');
  }
  if (typeof req.asset !== 'string') throw new UnknownAsset('asset must be a canonical asset id.', 'asset');
  if (assetById(req.asset).chain !== chain) throw new UnknownAsset(`Asset ${req.asset} is not on chain ${chain}.`, 'asset');
  if (typeof req.from !== 'string' || !isAddress(req.from, { strict: false })) throw new InvalidAddress('from must be an EVM address.', 'from');
  if (typeof req.to !== 'string' || !isAddress(req.to, { strict: false })) throw new InvalidAddress('to must be an EVM address.', 'to');
  if (typeof req.amount !== 'bigint' || req.amount <= 0n) throw new InvalidAmount('amount must be a positive bigint of base units.', 'amount');
}

export interface SenderOptions {
  client: PublicClient;
  chain: ChainName;
  chainId: number;
  /** The chain's native coin, as the registry names it (a nonce filler's asset). */
  nativeId: AssetId;
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  outbox: Outbox;
  reads: ChainReads;
  hashes: BlockHashes;
  height(): Promise<number>;
  /** Refuses a node of another chain id before anything is signed. */
  checkChainId(): Promise<void>;
  signers: Signers;
  receiptTimeoutMs: number;
  pollMs: number;
  rebroadcastMs: number;
  bumpAfterMs: number;
  logger?: Logger;
  /** See EvmChainOptions. */
  beforeBroadcast?: (entry: OutboxEntry) => void | Promise<void>;
  sendFamily?: (key: string) => string;
}

export interface Sender {
  /** Moves `amount` once per key, one call per key at a time in this process; a mined revert throws TransferReverted. */
  send(req: EvmSendRequest): Promise<Transfer>;
  watchSends(height?: number): Promise<MinedAgain[]>;
  unrestoredSends(): Promise<UnrestoredSend[]>;
  signed(): Promise<SignedTx[]>;
}

export function createSender(opts: SenderOptions): Sender {
  const { client, chain, store, outbox, reads, logger } = opts;
  const keyLocks = new Locks();
  const outboxEntry = (key: string) => outbox.entry(key);
  const broadcast = broadcaster(client);
  const signing = new Signing({ client, chain, chainId: opts.chainId, nativeId: opts.nativeId, outbox, reads, broadcast, signers: opts.signers, ...(logger ? { logger } : {}) });

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
        const r = await broadcast.entry(entry);
        logger?.info({ chain, key, nonce, hash: keccak256(latestRaw(entry)), outcome: r.kind }, 'stored transaction rebroadcast on first use of its account');
        if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
        return;
      }
      // Reserved, then the process stopped before the signed transaction was stored: nothing was broadcast for this
      // nonce, so a zero-value transfer to itself takes it and later transactions do not wait behind a gap.
      const r = await signing.fillNonce(address, nonce);
      logger?.warn({ chain, address, nonce, key, outcome: r.kind }, 'nonce reserved without a stored transaction filled with a self-transfer');
      if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
    },
  });

  /** Signs, stores, then broadcasts once; alone for the account, so nonces go out in order. */
  async function signAndStore(req: EvmSendRequest): Promise<{ entry: OutboxEntry; broadcast: BroadcastOutcome }> {
    const from = lowerAddress(req.from);
    // Before any nonce is reserved: an address without a signer is refused with nothing to recover.
    await signing.account(from);
    let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    let gas: bigint;
    try {
      fees = await reads.feesPerGas();
      gas = await reads.preflight(req, fees);
    } catch (err) {
      // Nothing is signed yet: an unreachable node is a plain retriable failure, the key stays free.
      if (err instanceof RouterError || rpcError(err)) throw err;
      throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
    }
    return nonces.withAccount(from, async (session) => {
      const nonce = await session.reserve(req.key);
      let entry: OutboxEntry;
      try {
        entry = await signing.signSend(req, nonce, gas, fees);
      } catch (err) {
        // The nonce is reserved but may have no stored transaction: reloading the account recovers it (rebroadcast
        // if the entry was written after all, else a filler) instead of leaving a gap that blocks later nonces.
        nonces.forget(from);
        throw err;
      }
      await opts.beforeBroadcast?.(entry);
      return { entry, broadcast: await broadcast.entry(entry) };
    });
  }

  const mined = new MinedSends({
    store, chain, hashes: opts.hashes, height: opts.height, outboxEntry, minedReceipt: broadcast.minedReceipt, broadcastRaw: broadcast.raw,
    reprice: (entry) => signing.replace(entry), fillNonce: (address, nonce, raw) => signing.fillNonce(address, nonce, raw), logger,
    ...(opts.sendFamily ? { family: opts.sendFamily } : {}),
  });

  const settling: SettleOptions = {
    chain, minedReceipt: broadcast.minedReceipt, broadcast: broadcast.entry,
    record: (key, receipt) => mined.record(key, receipt),
    replace: (entry) => signing.replace(entry),
    forgetNonces: (address) => nonces.forget(address),
    receiptTimeoutMs: opts.receiptTimeoutMs, pollMs: opts.pollMs, rebroadcastMs: opts.rebroadcastMs, bumpAfterMs: opts.bumpAfterMs,
    ...(logger ? { logger } : {}),
  };

  async function send(req: EvmSendRequest): Promise<Transfer> {
    checkSendRequest(req, chain);
    await opts.checkChainId();
    // One call per key at a time in this process: the second reads the outbox the first wrote.
    return keyLocks.run(req.key, async () => {
      const stored = await outboxEntry(req.key);
      if (stored) {
        if (stored.chain !== chain) throw new InvalidRequest(`key ${req.key} was used on ${stored.chain}.`, 'key');
        return settle(settling, stored, null);
      }
      const { entry, broadcast: first } = await signAndStore(req);
      return settle(settling, entry, first);
    });
  }

  async function signed(): Promise<SignedTx[]> {
    return mapLimit(await outbox.signedEntries(), 8, async (entry) => {
      const r = await broadcast.minedReceipt(entry);
      return { entry, mined: r ? { block: Number(r.blockNumber), success: r.status === 'success', fee: r.gasUsed * r.effectiveGasPrice + receiptL1Fee(r) } : null };
    });
  }

  return {
    send,
    watchSends: (h) => mined.watch(h),
    unrestoredSends: () => mined.unrestored(),
    signed,
  };
}
