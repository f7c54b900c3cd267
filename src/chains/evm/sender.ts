// Outgoing transfers on one EVM chain, made exactly once per key across crashes: the signed transaction is stored in
// the outbox before it is broadcast, so a key is signed at most once; later calls, in this process or after a
// restart, rebroadcast the same bytes and answer the outcome of that one transaction. A send stuck without a receipt
// is replaced at higher fees (same nonce and call); a reorg that removes a mined send is watched (mined-sends.ts).
import { isAddress, keccak256, parseTransaction, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { assetById } from '../../assets/registry.js';
import type { AssetId, ChainName } from '../../assets/types.js';
import { ConfigError, InvalidAddress, InvalidAmount, InvalidRequest, RouterError, UnknownAsset, Unavailable } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import type { Transfer } from '../types.js';
import type { BlockHashes } from './block-hashes.js';
import type { ChainReads } from './chain-reads.js';
import { TransferDropped, TransferPending, TransferRejected, TransferReverted } from './errors.js';
import { MinedSends, type MinedAgain, type UnrestoredSend } from './mined-sends.js';
import { Locks, NonceManager } from './nonces.js';
import { latestRaw, MAX_REPLACEMENTS, outbidding, outboxHashes, type Outbox, type OutboxEntry, type SignedTx } from './outbox.js';
import { receiptL1Fee } from './l1-fee.js';
import { classifyBroadcastError, FEE_TOO_LOW, lowerAddress, mapLimit, receiptOrNull, rpcError, rpcReason, sleep, type BroadcastOutcome } from './rpc.js';

/** Gives the private key of an address this process may sign for, or null when it has none. */
export type Signers = (address: string) => Hex | null | Promise<Hex | null>;

export interface EvmSendRequest {
  key: string;
  asset: AssetId;
  from: string;
  to: string;
  amount: bigint;
  /** Native coin at `from` the send must leave in place (what the books hold there for an order beyond this send):
   *  the preflight refuses a send whose value and gas at its fee cap would reach into it. */
  keep?: bigint;
}

const MAX_KEY = 512;

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
  const { client, chain, chainId, nativeId, store, outbox, reads, hashes, height, checkChainId, receiptTimeoutMs, pollMs, rebroadcastMs, bumpAfterMs, logger } = opts;
  const keyLocks = new Locks();
  const accounts = new Map<string, PrivateKeyAccount>();
  const outboxEntry = (key: string) => outbox.entry(key);

  async function account(address: string): Promise<PrivateKeyAccount> {
    const a = lowerAddress(address);
    const known = accounts.get(a);
    if (known) return known;
    const pk = await opts.signers(a);
    if (!pk) throw new InvalidAddress(`No signer for ${address} on ${chain}.`, 'from');
    const acct = privateKeyToAccount(pk);
    if (acct.address.toLowerCase() !== a) throw new ConfigError(`The signer given for ${address} signs for ${acct.address}.`);
    accounts.set(a, acct);
    return acct;
  }

  function validate(req: EvmSendRequest): void {
    if (typeof req.key !== 'string' || req.key.length === 0 || req.key.length > MAX_KEY) {
      throw new InvalidRequest(`key must be a non-empty string of at most ${MAX_KEY} characters.`, 'key');
    }
    if (typeof req.asset !== 'string') throw new UnknownAsset('asset must be a canonical asset id.', 'asset');
    if (assetById(req.asset).chain !== chain) throw new UnknownAsset(`Asset ${req.asset} is not on chain ${chain}.`, 'asset');
    if (typeof req.from !== 'string' || !isAddress(req.from, { strict: false })) throw new InvalidAddress('from must be an EVM address.', 'from');
    if (typeof req.to !== 'string' || !isAddress(req.to, { strict: false })) throw new InvalidAddress('to must be an EVM address.', 'to');
    if (typeof req.amount !== 'bigint' || req.amount <= 0n) throw new InvalidAmount('amount must be a positive bigint of base units.', 'amount');
  }

  async function broadcastRaw(raw: Hex): Promise<BroadcastOutcome> {
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
      return { kind: 'accepted' };
    } catch (err) {
      return classifyBroadcastError(err);
    }
  }

  const broadcast = (entry: OutboxEntry): Promise<BroadcastOutcome> => broadcastRaw(latestRaw(entry));

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
        const r = await broadcast(entry);
        logger?.info({ chain, key, nonce, hash: keccak256(latestRaw(entry)), outcome: r.kind }, 'stored transaction rebroadcast on first use of its account');
        if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
        return;
      }
      // Reserved, then the process stopped before the signed transaction was stored: nothing was broadcast for this
      // nonce, so a zero-value transfer to itself takes it and later transactions do not wait behind a gap.
      const r = await fillNonce(address, nonce);
      logger?.warn({ chain, address, nonce, key, outcome: r.kind }, 'nonce reserved without a stored transaction filled with a self-transfer');
      if (r.kind === 'unreachable') throw new Unavailable(`${chain}: RPC unreachable: ${r.reason}`);
    },
  });

  /**
   * Takes `nonce` of `address` with a zero-value transfer to itself, so later transactions do not wait behind it and
   * nothing else is mined at it. Above `outbid`'s fees by REPLACEMENT_BUMP when given (a node holding that transaction
   * in its pool replaces it). Kept as any signed transaction is (`nonce-filler:…`), so its gas is accounted for in the
   * account's reconciliation.
   */
  async function fillNonce(address: string, nonce: number, outbid?: Hex): Promise<BroadcastOutcome> {
    const acct = await account(address);
    let fees = await reads.feesPerGas();
    const last = outbid ? parseTransaction(outbid) : null;
    if (last?.maxFeePerGas !== undefined && last.maxPriorityFeePerGas !== undefined) {
      fees = outbidding({ maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, fees);
    }
    const raw = await acct.signTransaction({ chainId, type: 'eip1559', nonce, to: acct.address, value: 0n, gas: 21_000n, ...fees });
    const fillerKey = `nonce-filler:${chain}:${lowerAddress(address)}:${nonce}`;
    const filler: OutboxEntry = {
      v: 1, chain, key: fillerKey, asset: nativeId, from: lowerAddress(address), to: lowerAddress(address), amount: '0', nonce, hash: keccak256(raw), raw, at: Date.now(),
    };
    await outbox.listSigned(fillerKey);
    await outbox.put(filler);
    return broadcast(filler);
  }

  /** Signs, stores, then broadcasts once; alone for the account, so nonces go out in order. */
  async function signAndStore(req: EvmSendRequest): Promise<{ entry: OutboxEntry; broadcast: BroadcastOutcome }> {
    const from = lowerAddress(req.from);
    const acct = await account(from);
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
        const raw = await acct.signTransaction({ chainId, type: 'eip1559', nonce, gas, ...fees, ...reads.call(req.asset, lowerAddress(req.to), req.amount) });
        entry = {
          v: 1, chain, key: req.key, asset: req.asset, from, to: lowerAddress(req.to), amount: String(req.amount),
          nonce, hash: keccak256(raw), raw, at: Date.now(),
        };
        // Listed first: a listed key without an entry was never broadcast, an entry is always listed.
        await outbox.listSigned(req.key);
        await outbox.put(entry);
      } catch (err) {
        // The nonce is reserved but may have no stored transaction: reloading the account recovers it (rebroadcast
        // if the entry was written after all, else a filler) instead of leaving a gap that blocks later nonces.
        nonces.forget(from);
        throw err;
      }
      await opts.beforeBroadcast?.(entry);
      return { entry, broadcast: await broadcast(entry) };
    });
  }

  const mined = new MinedSends({
    store, chain, hashes, height, outboxEntry, minedReceipt, broadcastRaw, reprice: replace, fillNonce, logger,
    ...(opts.sendFamily ? { family: opts.sendFamily } : {}),
  });

  /** The receipt of whichever of the key's transactions was mined, or null. */
  async function minedReceipt(entry: OutboxEntry): Promise<TransactionReceipt | null> {
    for (const hash of outboxHashes(entry)) {
      const r = await receiptOrNull(client, hash);
      if (r) return r;
    }
    return null;
  }

  /**
   * Signs a replacement of the entry's latest transaction (same nonce, gas and call; fees the node suggests now, at
   * least REPLACEMENT_BUMP over the last) and stores it in the entry before anything broadcasts it. Answers the
   * entry unchanged when the sender cannot pay the higher fees: the transaction waits at its fees.
   */
  async function replace(entry: OutboxEntry): Promise<OutboxEntry> {
    const last = parseTransaction(latestRaw(entry));
    if (last.type !== 'eip1559' || last.gas === undefined || last.maxFeePerGas === undefined || last.maxPriorityFeePerGas === undefined) return entry;
    const { maxFeePerGas, maxPriorityFeePerGas } = outbidding({ maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, await client.estimateFeesPerGas());
    const value = last.value ?? 0n;
    const eth = await client.getBalance({ address: lowerAddress(entry.from) });
    if (eth < last.gas * maxFeePerGas + value) {
      logger?.warn({ chain, key: entry.key, from: entry.from, balance: String(eth) }, 'a stuck send is not replaced: its sender cannot pay higher fees');
      return entry;
    }
    const acct = await account(entry.from);
    const raw = await acct.signTransaction({
      chainId, type: 'eip1559', nonce: entry.nonce, gas: last.gas, maxFeePerGas, maxPriorityFeePerGas, value,
      ...(last.to ? { to: last.to } : {}), ...(last.data ? { data: last.data } : {}),
    });
    const next: OutboxEntry = { ...entry, replacements: [...(entry.replacements ?? []), { hash: keccak256(raw), raw, at: Date.now() }] };
    await outbox.put(next);
    logger?.info({ chain, key: entry.key, nonce: entry.nonce, hash: keccak256(raw), maxFeePerGas: String(maxFeePerGas) }, 'stuck send replaced with higher fees');
    return next;
  }

  function transferOf(entry: OutboxEntry, receipt: TransactionReceipt): Transfer {
    return {
      txId: receipt.transactionHash, key: entry.key, chain, asset: entry.asset, from: entry.from, to: entry.to,
      amount: BigInt(entry.amount), block: Number(receipt.blockNumber), at: entry.at,
    };
  }

  /**
   * Waits for the stored transaction's receipt, rebroadcasting the same bytes while there is none. Transport errors
   * (a paused or unreachable node) are retried until the deadline; the answer is the one transaction's outcome.
   */
  async function settle(stored: OutboxEntry, first: BroadcastOutcome | null): Promise<Transfer> {
    let entry = stored;
    const details = { chain, key: entry.key, txId: entry.hash, nonce: entry.nonce, from: entry.from };
    const deadline = Date.now() + receiptTimeoutMs;
    let outcome = first;
    let lastBroadcast = first ? Date.now() : 0;
    for (;;) {
      let receipt: TransactionReceipt | null = null;
      try {
        receipt = await minedReceipt(entry);
      } catch (err) {
        logger?.debug({ ...details, err: rpcReason(err) }, 'receipt not readable yet');
      }
      if (receipt) {
        if (receipt.status === 'success') {
          await mined.record(entry.key, receipt);
          return transferOf(entry, receipt);
        }
        throw new TransferReverted(`${chain}: transaction ${receipt.transactionHash} of key ${entry.key} reverted in block ${receipt.blockNumber}.`, {
          ...details, block: Number(receipt.blockNumber),
        });
      }
      if (outcome?.kind === 'nonce-too-low') {
        // Our hash has no receipt and its nonce is used: another transaction took it, so this one can never be mined.
        nonces.forget(entry.from);
        throw new TransferDropped(`${chain}: nonce ${entry.nonce} of ${entry.from} was used by another transaction; ${entry.hash} (key ${entry.key}) will never be mined.`, details);
      }
      // Refused for its fees (the base fee rose above what it offers): replaced at once rather than failed.
      const underpriced = outcome?.kind === 'rejected' && FEE_TOO_LOW.test(outcome.reason);
      const lastSigned = entry.replacements?.at(-1)?.at ?? entry.at;
      const stuck = outcome?.kind !== 'unreachable' && Date.now() - lastSigned >= bumpAfterMs;
      if (bumpAfterMs > 0 && (underpriced || stuck) && (entry.replacements?.length ?? 0) < MAX_REPLACEMENTS) {
        try {
          const replaced = await replace(entry);
          if (replaced !== entry) {
            entry = replaced;
            outcome = await broadcast(entry);
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
        throw new TransferPending(`${chain}: no receipt for ${entry.hash} (key ${entry.key}) within ${receiptTimeoutMs} ms; the same key waits for it again.`, details);
      }
      if (Date.now() - lastBroadcast >= rebroadcastMs || outcome === null || outcome.kind === 'unreachable') {
        outcome = await broadcast(entry);
        lastBroadcast = Date.now();
        // A rebroadcast that finds the nonce used may just mean our own transaction was mined meanwhile: read again.
        if (outcome.kind === 'nonce-too-low' || outcome.kind === 'accepted' || outcome.kind === 'known') continue;
        if (outcome.kind === 'unreachable') logger?.debug({ ...details, err: outcome.reason }, 'broadcast did not reach the node; retrying');
      }
      await sleep(pollMs);
    }
  }

  async function send(req: EvmSendRequest): Promise<Transfer> {
    validate(req);
    await checkChainId();
    // One call per key at a time in this process: the second reads the outbox the first wrote.
    return keyLocks.run(req.key, async () => {
      const stored = await outboxEntry(req.key);
      if (stored) {
        if (stored.chain !== chain) throw new InvalidRequest(`key ${req.key} was used on ${stored.chain}.`, 'key');
        return settle(stored, null);
      }
      const { entry, broadcast: first } = await signAndStore(req);
      return settle(entry, first);
    });
  }

  async function signed(): Promise<SignedTx[]> {
    return mapLimit(await outbox.signedEntries(), 8, async (entry) => {
      const r = await minedReceipt(entry);
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
