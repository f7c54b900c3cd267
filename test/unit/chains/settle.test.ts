// Settling one stored EVM send, alone against a scripted node: each outcome of the key's stored transactions is
// answered as that transaction's, and only a stuck or underpriced one is replaced.
import type { TransactionReceipt } from 'viem';
import { describe, expect, it } from 'vitest';
import { TransferDropped, TransferPending, TransferRejected, TransferReverted } from '../../../src/chains/evm/errors.js';
import type { OutboxEntry } from '../../../src/chains/evm/outbox.js';
import type { BroadcastOutcome } from '../../../src/chains/evm/rpc.js';
import { settle, type SettleOptions } from '../../../src/chains/evm/settle.js';

const entry = (over: Partial<OutboxEntry> = {}): OutboxEntry => ({
  v: 1, chain: 'base', key: 'order-1:step-0', asset: 'evm:8453.0x0000000000000000000000000000000000000000', from: '0xa', to: '0xb',
  amount: '5', nonce: 7, hash: '0x01', raw: '0x02', at: Date.now(), ...over,
});

const receipt = (status: 'success' | 'reverted', hash: `0x${string}` = '0x01'): TransactionReceipt =>
  ({ status, transactionHash: hash, blockNumber: 12n, blockHash: '0xbb' }) as unknown as TransactionReceipt;

/** A node that answers the scripted receipts in turn (null: none yet) and the scripted broadcast outcomes in turn
 *  (the last repeats); what the loop asked of it is recorded. */
function node(receipts: Array<TransactionReceipt | null | Error>, broadcasts: BroadcastOutcome[], over: Partial<SettleOptions> = {}) {
  const seen = { broadcasts: 0, recorded: [] as string[], replaced: 0, forgotten: [] as string[] };
  let r = 0;
  let b = 0;
  const opts: SettleOptions = {
    chain: 'base',
    async minedReceipt() {
      const next = receipts[Math.min(r++, receipts.length - 1)] ?? null;
      if (next instanceof Error) throw next;
      return next;
    },
    async record(key) {
      seen.recorded.push(key);
    },
    async broadcast() {
      seen.broadcasts++;
      return broadcasts[Math.min(b++, broadcasts.length - 1)]!;
    },
    async replace(e) {
      seen.replaced++;
      return { ...e, replacements: [...(e.replacements ?? []), { hash: '0x03', raw: '0x04', at: Date.now() }] };
    },
    forgetNonces: (address) => void seen.forgotten.push(address),
    receiptTimeoutMs: 2_000, pollMs: 1, rebroadcastMs: 1_000, bumpAfterMs: 0,
    ...over,
  };
  return { opts, seen };
}

describe('settling a stored send: the answer is the outcome of the transactions stored for its key', () => {
  it('a receipt read after a rebroadcast of the same bytes is the transfer, and its block is recorded', async () => {
    const { opts, seen } = node([null, receipt('success')], [{ kind: 'accepted' }]);
    const transfer = await settle(opts, entry(), null);
    expect(transfer).toMatchObject({ txId: '0x01', key: 'order-1:step-0', chain: 'base', amount: 5n, block: 12, from: '0xa', to: '0xb' });
    expect(seen.broadcasts).toBe(1);
    expect(seen.recorded).toEqual(['order-1:step-0']);
  });

  it('a receipt not readable yet (the node paused) is read again, not a failure', async () => {
    const { opts } = node([new Error('socket hang up'), receipt('success')], [{ kind: 'known' }]);
    await expect(settle(opts, entry(), { kind: 'accepted' })).resolves.toMatchObject({ block: 12 });
  });

  it('a mined revert is TransferReverted with its block, and nothing is recorded', async () => {
    const { opts, seen } = node([receipt('reverted')], [{ kind: 'accepted' }]);
    const err = await settle(opts, entry(), { kind: 'accepted' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransferReverted);
    expect((err as TransferReverted).details).toMatchObject({ block: 12, nonce: 7 });
    expect(seen.recorded).toEqual([]);
  });

  it('a nonce taken by another transaction is TransferDropped, and the account\'s nonces are read again', async () => {
    const { opts, seen } = node([null], [{ kind: 'nonce-too-low', reason: 'nonce too low' }]);
    await expect(settle(opts, entry(), { kind: 'nonce-too-low', reason: 'nonce too low' })).rejects.toBeInstanceOf(TransferDropped);
    expect(seen.forgotten).toEqual(['0xa']);
  });

  it('a nonce found used on a rebroadcast is read once more: it may be the send\'s own, just mined', async () => {
    const { opts, seen } = node([null, receipt('success')], [{ kind: 'nonce-too-low', reason: 'nonce too low' }]);
    await expect(settle(opts, entry(), null)).resolves.toMatchObject({ txId: '0x01' });
    expect(seen.forgotten).toEqual([]);
  });

  it('a node that refuses the transaction for another reason than its fees is TransferRejected, not replaced', async () => {
    const { opts, seen } = node([null], [{ kind: 'rejected', reason: 'insufficient funds for gas * price + value' }], { bumpAfterMs: 60_000 });
    await expect(settle(opts, entry(), { kind: 'rejected', reason: 'insufficient funds for gas * price + value' })).rejects.toBeInstanceOf(TransferRejected);
    expect(seen.replaced).toBe(0);
  });

  it('a transaction refused as underpriced is replaced at once and the replacement broadcast', async () => {
    const { opts, seen } = node([null, receipt('success', '0x03')], [{ kind: 'accepted' }], { bumpAfterMs: 60_000 });
    const transfer = await settle(opts, entry(), { kind: 'rejected', reason: 'replacement transaction underpriced' });
    expect(seen.replaced).toBe(1);
    expect(seen.broadcasts).toBe(1);
    expect(transfer.txId).toBe('0x03');
  });

  it('a send stuck past bumpAfterMs is replaced; with replacements off it is only rebroadcast', async () => {
    const stuck = entry({ at: Date.now() - 10_000 });
    const bumped = node([null, receipt('success')], [{ kind: 'accepted' }], { bumpAfterMs: 5_000 });
    await settle(bumped.opts, stuck, { kind: 'accepted' });
    expect(bumped.seen.replaced).toBe(1);
    const off = node([null, null, receipt('success')], [{ kind: 'accepted' }], { bumpAfterMs: 0, rebroadcastMs: 0 });
    await settle(off.opts, stuck, { kind: 'accepted' });
    expect(off.seen.replaced).toBe(0);
    expect(off.seen.broadcasts).toBeGreaterThan(0);
  });

  it('a replacement the sender cannot pay for leaves the transaction waiting at its fees', async () => {
    const { opts, seen } = node([null, receipt('success')], [{ kind: 'accepted' }], { bumpAfterMs: 1, replace: async (e) => e });
    await expect(settle(opts, entry({ at: Date.now() - 1_000 }), { kind: 'accepted' })).resolves.toMatchObject({ txId: '0x01' });
    expect(seen.replaced).toBe(0);
  });

  it('no receipt by the deadline is TransferPending: the same key waits for the same transaction again', async () => {
    const { opts, seen } = node([null], [{ kind: 'unreachable', reason: 'ECONNREFUSED' }], { receiptTimeoutMs: 30 });
    const err = await settle(opts, entry(), null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransferPending);
    expect((err as TransferPending).message).toContain('the same key waits for it again');
    // An unreachable node is asked again at each poll, not only every rebroadcastMs.
    expect(seen.broadcasts).toBeGreaterThan(1);
  });
});
