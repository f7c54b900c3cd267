// Signing for the accounts this process holds keys of, and storing each signed transaction in the outbox before
// anything broadcasts it: a send's transaction, a replacement of a stuck one at higher fees, and a self-transfer that
// takes a nonce nothing else will use.
import { keccak256, parseTransaction, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { AssetId, ChainName } from '../../assets/types.js';
import { ConfigError, InvalidAddress } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Broadcaster } from './broadcast.js';
import type { ChainReads } from './chain-reads.js';
import { latestRaw, outbidding, type Fees, type Outbox, type OutboxEntry } from './outbox.js';
import { lowerAddress, type BroadcastOutcome } from './rpc.js';

/** Gives the private key of an address this process may sign for, or null when it has none. */
export type Signers = (address: string) => Hex | null | Promise<Hex | null>;

/** A transfer to sign: its key, asset, sender, recipient and amount in base units. */
export interface SendToSign {
  key: string;
  asset: AssetId;
  from: string;
  to: string;
  amount: bigint;
}

export interface SigningOptions {
  client: Pick<PublicClient, 'estimateFeesPerGas' | 'getBalance'>;
  chain: ChainName;
  chainId: number;
  /** The chain's native coin, as the registry names it (a nonce filler's asset). */
  nativeId: AssetId;
  outbox: Outbox;
  reads: ChainReads;
  broadcast: Broadcaster;
  signers: Signers;
  logger?: Logger;
}

export class Signing {
  private readonly accounts = new Map<string, PrivateKeyAccount>();

  constructor(private readonly opts: SigningOptions) {}

  /** The account of `address`, from its signer; refused when there is none or it signs for another address. */
  async account(address: string): Promise<PrivateKeyAccount> {
    const a = lowerAddress(address);
    const known = this.accounts.get(a);
    if (known) return known;
    const pk = await this.opts.signers(a);
    if (!pk) throw new InvalidAddress(`No signer for ${address} on ${this.opts.chain}.`, 'from');
    const acct = privateKeyToAccount(pk);
    if (acct.address.toLowerCase() !== a) throw new ConfigError(`The signer given for ${address} signs for ${acct.address}.`);
    this.accounts.set(a, acct);
    return acct;
  }

  /** Signs the send at `nonce` and stores it. Listed first: a listed key without an entry was never broadcast, an
   *  entry is always listed. */
  async signSend(req: SendToSign, nonce: number, gas: bigint, fees: Fees): Promise<OutboxEntry> {
    const { chain, chainId, outbox, reads } = this.opts;
    const from = lowerAddress(req.from);
    const acct = await this.account(from);
    const raw = await acct.signTransaction({ chainId, type: 'eip1559', nonce, gas, ...fees, ...reads.call(req.asset, lowerAddress(req.to), req.amount) });
    const entry: OutboxEntry = {
      v: 1, chain, key: req.key, asset: req.asset, from, to: lowerAddress(req.to), amount: String(req.amount),
      nonce, hash: keccak256(raw), raw, at: Date.now(),
    };
    await outbox.listSigned(req.key);
    await outbox.put(entry);
    return entry;
  }

  /**
   * Takes `nonce` of `address` with a zero-value transfer to itself, so later transactions do not wait behind it and
   * nothing else is mined at it. Above `outbid`'s fees by REPLACEMENT_BUMP when given (a node holding that transaction
   * in its pool replaces it). Kept as any signed transaction is (`nonce-filler:…`), so its gas is accounted for in the
   * account's reconciliation.
   */
  async fillNonce(address: string, nonce: number, outbid?: Hex): Promise<BroadcastOutcome> {
    const { chain, chainId, nativeId, outbox, reads } = this.opts;
    const acct = await this.account(address);
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
    return this.opts.broadcast.entry(filler);
  }

  /**
   * Signs a replacement of the entry's latest transaction (same nonce, gas and call; fees the node suggests now, at
   * least REPLACEMENT_BUMP over the last) and stores it in the entry before anything broadcasts it. Answers the
   * entry unchanged when the sender cannot pay the higher fees: the transaction waits at its fees.
   */
  async replace(entry: OutboxEntry): Promise<OutboxEntry> {
    const { client, chain, chainId, outbox, logger } = this.opts;
    const last = parseTransaction(latestRaw(entry));
    if (last.type !== 'eip1559' || last.gas === undefined || last.maxFeePerGas === undefined || last.maxPriorityFeePerGas === undefined) return entry;
    const { maxFeePerGas, maxPriorityFeePerGas } = outbidding({ maxFeePerGas: last.maxFeePerGas, maxPriorityFeePerGas: last.maxPriorityFeePerGas }, await client.estimateFeesPerGas());
    const value = last.value ?? 0n;
    const eth = await client.getBalance({ address: lowerAddress(entry.from) });
    if (eth < last.gas * maxFeePerGas + value) {
      logger?.warn({ chain, key: entry.key, from: entry.from, balance: String(eth) }, 'a stuck send is not replaced: its sender cannot pay higher fees');
      return entry;
    }
    const acct = await this.account(entry.from);
    const raw = await acct.signTransaction({
      chainId, type: 'eip1559', nonce: entry.nonce, gas: last.gas, maxFeePerGas, maxPriorityFeePerGas, value,
      ...(last.to ? { to: last.to } : {}), ...(last.data ? { data: last.data } : {}),
    });
    const next: OutboxEntry = { ...entry, replacements: [...(entry.replacements ?? []), { hash: keccak256(raw), raw, at: Date.now() }] };
    await outbox.put(next);
    logger?.info({ chain, key: entry.key, nonce: entry.nonce, hash: keccak256(raw), maxFeePerGas: String(maxFeePerGas) }, 'stuck send replaced with higher fees');
    return next;
  }
}
