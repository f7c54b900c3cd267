// Fee bumping on a real anvil node: a send stuck without a receipt (its fees fell below the base fee) is replaced by
// the same transaction at higher fees for the same nonce, the replacement stored in the outbox before its broadcast;
// the receipt of whichever is mined settles the key, and the key still moves the money once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTransaction, type Hex } from 'viem';
import { NATIVE_EVM_ADDRESS } from '../../../src/assets/registry.js';
import type { AnvilNode } from '../../../src/chains/evm/anvil.js';
import { openEvmChain } from '../../../src/chains/evm/ledger.js';
import { OUTBOX_SPACE, outboxHashes, type OutboxEntry } from '../../../src/chains/evm/outbox.js';
import { waitFor } from '../../support/poll.js';
import { startDevChain } from './support.js';
import { client, fundedAccount, keyring, memStore, randomAddress, rpc } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;
const ETH = 10n ** 18n;

let node: AnvilNode;

beforeAll(async () => {
  node = await startDevChain('base');
});
afterAll(async () => {
  await node?.stop();
});

/** Reads until the answer is not null; throws after `ms`. */
const until = async <T>(read: () => T | null | Promise<T | null>, ms = 15_000): Promise<T> =>
  (await waitFor<T | null>(read, (v) => v !== null, 'a read that is not null', ms, 25))!;

/** Mines until `sent` settles. A replacement is stored before it is broadcast, so one block mined as soon as the store
 *  shows it may be mined before the node has it, and the send would then wait for a block that never comes. */
async function mineUntil<T>(sent: Promise<T>): Promise<T> {
  let settled: { value: T } | null = null;
  void sent.then((value) => {
    settled = { value };
  });
  const done = await until(async () => {
    if (settled !== null) return settled;
    await rpc(node, 'evm_mine');
    return null;
  });
  return done.value;
}

describe('fee bumping of a stuck send', () => {
  it('a send priced below the base fee is replaced at higher fees for its nonce; the replacement settles the key; one transfer on chain', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node, 100n * ETH);
    ring.add(sender);
    const to = randomAddress();
    const open = () =>
      openEvmChain({ chain: 'base', rpcUrl: node.url, store, signers: ring.signers, pollMs: 50, rebroadcastMs: 200, rpcTimeoutMs: 2_000, bumpAfterMs: 400 });
    const chain = open();
    const stored = () => {
      const raw = store.map.get(`${OUTBOX_SPACE}\nk-stuck`);
      return raw ? (JSON.parse(raw) as OutboxEntry) : null;
    };

    await rpc(node, 'evm_setAutomine', [false]);
    try {
      // Settled into a value, so a failure is reported by the assertion below rather than as an unhandled rejection.
      const sent = chain.send({ key: 'k-stuck', asset: NATIVE, from: sender.address, to, amount: ETH }).then(
        (t) => t,
        (e: unknown) => e,
      );
      const original = await until(stored);
      // The base fee jumps to 4× what the transaction offers at most: mined blocks leave it out from now on.
      const offered = parseTransaction(original.raw).maxFeePerGas!;
      await rpc(node, 'anvil_setNextBlockBaseFeePerGas', [`0x${(offered * 4n).toString(16)}`]);
      await rpc(node, 'evm_mine');
      await expect(client(node).getTransactionReceipt({ hash: original.hash })).rejects.toThrow();

      // Replaced (same nonce, fees above the new base fee), stored before its broadcast; then mined.
      const replaced = await until(() => ((stored()?.replacements?.length ?? 0) > 0 ? stored() : null));
      const replacement = parseTransaction(replaced.replacements![0]!.raw);
      expect(replacement.nonce).toBe(original.nonce);
      expect(replacement.maxFeePerGas!).toBeGreaterThan(offered * 4n);
      expect(replacement.to?.toLowerCase()).toBe(to);
      expect(replacement.value).toBe(ETH);
      const settled = await mineUntil(sent);
      expect(settled).toMatchObject({ key: 'k-stuck', amount: ETH });
      const t = settled as { txId: string; key: string };

      const hashes = outboxHashes(stored()!);
      expect(hashes.length).toBeGreaterThanOrEqual(2);
      expect(t.txId).not.toBe(original.hash);
      expect(hashes).toContain(t.txId);
      const receipt = await client(node).getTransactionReceipt({ hash: t.txId as Hex });
      expect(receipt.status).toBe('success');
      // Exactly once: the other transactions of the key were never mined, the nonce moved by one, `to` got ETH once.
      for (const h of hashes.filter((x) => x !== t.txId)) await expect(client(node).getTransactionReceipt({ hash: h })).rejects.toThrow();
      expect(await client(node).getTransactionCount({ address: sender.address })).toBe(1);
      expect(await chain.balanceOf(to, NATIVE)).toBe(ETH);
      // The key answers the replacement's transfer again, also from a fresh instance on the same store (a restart).
      expect(await chain.send({ key: 'k-stuck', asset: NATIVE, from: sender.address, to, amount: ETH })).toEqual(t);
      expect(await open().send({ key: 'k-stuck', asset: NATIVE, from: sender.address, to, amount: ETH })).toEqual(t);
      // The reconciliation sees the key once, with the mined transaction's gas.
      const signed = (await chain.signed()).filter((s) => s.entry.key === 'k-stuck');
      expect(signed).toHaveLength(1);
      expect(signed[0]!.mined).toEqual({ block: Number(receipt.blockNumber), success: true, fee: receipt.gasUsed * receipt.effectiveGasPrice });
    } finally {
      await rpc(node, 'evm_setAutomine', [true]);
    }
  }, 30_000);

  it('a send merely waiting (no block mined for it) is replaced once bumpAfterMs passed since its signing, and settles once', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node, 100n * ETH);
    ring.add(sender);
    const to = randomAddress();
    const chain = openEvmChain({ chain: 'base', rpcUrl: node.url, store, signers: ring.signers, pollMs: 50, rebroadcastMs: 200, rpcTimeoutMs: 2_000, bumpAfterMs: 300 });
    const entry = () => {
      const raw = store.map.get(`${OUTBOX_SPACE}\nk-waiting`);
      return raw ? (JSON.parse(raw) as OutboxEntry) : null;
    };
    await rpc(node, 'evm_setAutomine', [false]);
    try {
      const sent = chain.send({ key: 'k-waiting', asset: NATIVE, from: sender.address, to, amount: ETH }).then((t) => t, (e: unknown) => e);
      const original = await until(entry);
      const replaced = await until(() => ((entry()?.replacements?.length ?? 0) > 0 ? entry() : null));
      expect(replaced.replacements![0]!.at - original.at).toBeGreaterThanOrEqual(300);
      expect(parseTransaction(replaced.replacements![0]!.raw).maxPriorityFeePerGas!).toBeGreaterThan(parseTransaction(original.raw).maxPriorityFeePerGas!);
      const t = await mineUntil(sent);
      expect(t).toMatchObject({ key: 'k-waiting', amount: ETH });
      expect(outboxHashes(entry()!)).toContain((t as { txId: string }).txId);
      expect(await client(node).getTransactionCount({ address: sender.address })).toBe(1);
      expect(await chain.balanceOf(to, NATIVE)).toBe(ETH);
    } finally {
      await rpc(node, 'evm_setAutomine', [true]);
    }
  }, 30_000);
});
