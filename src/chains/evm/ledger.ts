// One EVM chain over JSON-RPC (viem), as the router's chains use it: deposits read from mined blocks
// (deposit-scan.ts), reorgs detected from remembered block hashes (block-hashes.ts), and outgoing transfers made
// exactly once per key across crashes (sender.ts, over the outbox of outbox.ts and the reads of chain-reads.ts). This
// file checks the node's chain id, reads the height, and puts the parts together.
import { createPublicClient, http, type Address, type Hex, type PublicClient } from 'viem';
import { CHAINS } from '../../assets/chains.js';
import { NATIVE_EVM_ADDRESS, assetsOn } from '../../assets/registry.js';
import type { AssetId, ChainName } from '../../assets/types.js';
import { ConfigError, Unavailable } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ActorStore } from '../../store/types.js';
import { REQUIRED_CONFIRMATIONS, confirmationsAt } from '../blocks.js';
import type { Transfer } from '../types.js';
import { BlockHashes, findReorg, type Reorg } from './block-hashes.js';
import { chainReads } from './chain-reads.js';
import { createDepositScanner, vanishedDeposits, type EvmDeposit } from './deposit-scan.js';
import { ChainMoved } from './errors.js';
import type { MinedAgain, UnrestoredSend } from './mined-sends.js';
import { openOutbox, type OutboxEntry, type SignedTx } from './outbox.js';
import { rpcReason } from './rpc.js';
import { createSender, type EvmSendRequest, type Signers } from './sender.js';

export interface EvmChainOptions {
  chain: ChainName;
  rpcUrl: string;
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  signers: Signers;
  /** Default: the chain's row of REQUIRED_CONFIRMATIONS. */
  requiredConfirmations?: number;
  logger?: Logger;
  /** Per JSON-RPC request; default 10 s. A paused or hung node costs this much per attempt. */
  rpcTimeoutMs?: number;
  /** How long `send` waits for a receipt before answering TransferPending; default 120 s. */
  receiptTimeoutMs?: number;
  /** Receipt polling interval; default 500 ms. */
  pollMs?: number;
  /** While no receipt exists, the stored bytes are broadcast again this often; default 10 s. */
  rebroadcastMs?: number;
  /** A send still without a receipt this long after its last signing is replaced by one with higher fees (same
   *  nonce, same call); default 60 s, 0 = never. At most MAX_REPLACEMENTS per key. */
  bumpAfterMs?: number;
  /** The price per gas the router's quotes charge on this chain (the cost table's `gasPriceWei`). Sends then offer
   *  at most this much per gas while the node's base fee allows it (`fees()`); absent: the node's suggestion. */
  pricedGasWei?: bigint;
  /** Test seam: runs after the signed transaction is stored and before its first broadcast; a throw stands for a crash. */
  beforeBroadcast?: (entry: OutboxEntry) => void | Promise<void>;
  /** The sends that stand or fall together after a reorg (one order's, told apart by their keys); default each alone. */
  sendFamily?: (key: string) => string;
}

export interface EvmChain {
  readonly chain: ChainName;
  readonly chainId: number;
  readonly client: PublicClient;
  readonly requiredConfirmations: number;
  /** The chain's native coin (ETH), as the registry names it. */
  readonly nativeAsset: AssetId;
  /** Latest block number. */
  height(): Promise<number>;
  /** Native value transfers (successful transactions with value > 0) and registry-token Transfer logs in the blocks
   *  (inclusive; `toBlock` defaults to the height), by block then position; remembers the blocks' hashes. A `toBlock`
   *  above the height the node answers now is refused with ChainMoved (see `scan` in DepositWatcher). */
  scan(fromBlock: number, toBlock?: number): Promise<EvmDeposit[]>;
  /** Whether blocks up to `upTo` (the caller's last scanned block) were replaced since they were scanned: a block now
   *  has another hash. A node that answers a lower height or lacks such a block proves nothing (a node behind the one
   *  read before, or one replacing blocks right now) and is refused with ChainMoved: ask again. */
  checkReorg(upTo: number): Promise<Reorg | null>;
  /** The deposits (as `scan` reported them) whose transfer is no longer on the canonical chain. A missing receipt
   *  counts only once the deposit's block is replaced; see `vanishedDeposits`. */
  vanished(deposits: readonly EvmDeposit[]): Promise<EvmDeposit[]>;
  /** Moves `amount` once per key (see file header); a mined revert throws TransferReverted. */
  send(req: EvmSendRequest): Promise<Transfer>;
  /** Broadcasts again the sends a reorg removed after their receipt was read (`mined-sends.ts`); answers those mined
   *  again since the last call, at their new blocks. `height`: the chain's, when the caller has just read it. */
  watchSends(height?: number): Promise<MinedAgain[]>;
  /** The sends a reorg removed that the router gave up or holds (`mined-sends.ts`): in the books, not on chain. */
  unrestoredSends(): Promise<UnrestoredSend[]>;
  /** The outbox entry of a key, or null. */
  outboxEntry(key: string): Promise<OutboxEntry | null>;
  /** Every transaction signed on this chain through this adapter (nonce fillers included), with its receipt if mined. */
  signed(): Promise<SignedTx[]>;
  /** The L1 data fee an OP Stack chain charges such a transaction beside its gas (`l1-fee.ts`); 0 on other chains. */
  l1Fee(tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint>;
  /** The fees a send signed now offers per gas (see `feesPerGas`): what a gas top-up must cover. */
  fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  balanceOf(address: string, asset: AssetId): Promise<bigint>;
  confirmations(tx: { block: number }): Promise<number>;
}

export function openEvmChain(opts: EvmChainOptions): EvmChain {
  const { chain, store, logger } = opts;
  const evmChainId = CHAINS[chain]?.evmChainId;
  if (evmChainId === undefined) throw new ConfigError(`${chain} is not an EVM chain of the registry.`);
  const chainId: number = evmChainId;
  // No transport retries: `send` retries itself with the same bytes, and a failed read is retried by its caller.
  const client = createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.rpcTimeoutMs ?? 10_000, retryCount: 0 }) }) as PublicClient;
  const nativeId: AssetId = `evm:${chainId}.${NATIVE_EVM_ADDRESS}`;
  const hashes = new BlockHashes(store, chain);
  let checkedChainId: Promise<void> | null = null;

  /** The node must serve the registry's chain id: transactions are signed for it. */
  function checkChainId(): Promise<void> {
    checkedChainId ??= client.getChainId().then(
      (id) => {
        if (id !== chainId) throw new ConfigError(`${opts.rpcUrl} serves chain id ${id}, but ${chain} is ${chainId}.`);
      },
      (err: unknown) => {
        checkedChainId = null;
        throw new Unavailable(`${chain}: RPC unreachable: ${rpcReason(err)}`);
      },
    );
    return checkedChainId;
  }

  async function height(): Promise<number> {
    return Number(await client.getBlockNumber({ cacheTime: 0 }));
  }

  const scanner = createDepositScanner({
    client, chain, nativeId, tokens: assetsOn(chain).filter((a) => !a.native && a.address), hashes, height, checkChainId, rpcUrl: opts.rpcUrl, logger,
  });
  const reads = chainReads({ client, chain, chainId, pricedGasWei: opts.pricedGasWei, logger });
  const outbox = openOutbox(store, chain);
  const sender = createSender({
    client, chain, chainId, nativeId, store, outbox, reads, hashes, height, checkChainId, signers: opts.signers, logger,
    receiptTimeoutMs: opts.receiptTimeoutMs ?? 120_000, pollMs: opts.pollMs ?? 500, rebroadcastMs: opts.rebroadcastMs ?? 10_000,
    bumpAfterMs: opts.bumpAfterMs ?? 60_000, beforeBroadcast: opts.beforeBroadcast, sendFamily: opts.sendFamily,
  });

  return {
    chain,
    chainId,
    client,
    requiredConfirmations: opts.requiredConfirmations ?? REQUIRED_CONFIRMATIONS[chain],
    nativeAsset: nativeId,
    height,
    scan: scanner.scan,
    async checkReorg(upTo) {
      await checkChainId();
      const tip = await height();
      if (tip < upTo) throw new ChainMoved(`${chain}: the node answers height ${tip}, below block ${upTo} read before (a node behind, or one replacing blocks); check again.`);
      return findReorg(hashes, upTo, scanner.canonicalHash);
    },
    vanished: (deposits) => vanishedDeposits(client, deposits),
    send: sender.send,
    watchSends: sender.watchSends,
    unrestoredSends: sender.unrestoredSends,
    outboxEntry: outbox.entry,
    signed: sender.signed,
    fees: reads.feesPerGas,
    l1Fee: reads.l1Fee,
    balanceOf: reads.balanceOf,
    async confirmations(tx) {
      return confirmationsAt(await height(), tx.block);
    },
  };
}
