// Outgoing transfers on a real anvil chain: one transaction per key across repeats and crashes, concurrent sends
// from one account, a node that stops answering mid-send, and refusals before signing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, type Address } from 'viem';
import { NATIVE_EVM_ADDRESS, findAsset } from '../../../src/assets/registry.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { NONCE_SPACE } from '../../../src/chains/evm/nonces.js';
import { InsufficientFunds } from '../../../src/chains/errors.js';
import type { AnvilNode } from '../../../src/chains/evm/anvil.js';
import { TransferPending, TransferReverted } from '../../../src/chains/evm/errors.js';
import { openEvmChain, type EvmChainOptions } from '../../../src/chains/evm/ledger.js';
import { OUTBOX_SPACE } from '../../../src/chains/evm/outbox.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { waitUntil } from '../../support/poll.js';
import { startDevChain } from './support.js';
import { client, fundedAccount, keyring, memStore, mine, randomAddress, rpc } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;
const ETH = 10n ** 18n;
const USDC = findAsset('base', 'USDC')!;
const USDC_ADDRESS = getAddress(USDC.address!);

let node: AnvilNode;

beforeAll(async () => {
  node = await startDevChain('base');
});
afterAll(async () => {
  await node?.stop();
});

function ledger(store: EvmChainOptions['store'], ring: ReturnType<typeof keyring>, extra: Partial<EvmChainOptions> = {}) {
  return openEvmChain({ chain: 'base', rpcUrl: node.url, store, signers: ring.signers, pollMs: 50, rebroadcastMs: 500, rpcTimeoutMs: 2_000, ...extra });
}

async function nonceOf(address: Address): Promise<number> {
  return client(node).getTransactionCount({ address });
}

describe('EVM transfers (anvil)', () => {
  it('the same key twice answers the same transaction and moves nothing more', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const to = randomAddress();
    const chain = ledger(store, ring);

    const first = await chain.send({ key: 'k-once', asset: NATIVE, from: sender.address, to, amount: ETH });
    expect(first).toMatchObject({ key: 'k-once', chain: 'base', asset: NATIVE, from: sender.address, to, amount: ETH });
    expect(first.txId).toMatch(/^0x[0-9a-f]{64}$/);
    const second = await chain.send({ key: 'k-once', asset: NATIVE, from: sender.address, to, amount: 5n * ETH });
    expect(second).toEqual(first);
    // A fresh instance on the same store answers it too.
    expect(await ledger(store, ring).send({ key: 'k-once', asset: NATIVE, from: sender.address, to, amount: ETH })).toEqual(first);
    expect(await chain.balanceOf(to, NATIVE)).toBe(ETH);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('a crash between signing and broadcast: a fresh instance broadcasts the stored bytes once; a later key of the account is not blocked', async () => {
    // A real SQLite store, closed and opened again as a restarted process would.
    const file = join(mkdtempSync(join(tmpdir(), 'evm-ledger-')), 'store.db');
    const store = openSqliteStore(file);
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const to = randomAddress();
    const crashing = ledger(store, ring, {
      beforeBroadcast: () => {
        throw new Error('crash before broadcast');
      },
    });
    await expect(crashing.send({ key: 'k-crash', asset: NATIVE, from: sender.address, to, amount: 2n * ETH })).rejects.toThrow('crash before broadcast');
    const entry = await crashing.outboxEntry('k-crash');
    expect(entry).toMatchObject({ key: 'k-crash', nonce: 0, from: sender.address, to, amount: String(2n * ETH) });
    expect(JSON.parse((await store.getKey(OUTBOX_SPACE, 'k-crash'))!).raw).toBe(entry!.raw);
    await expect(client(node).getTransaction({ hash: entry!.hash })).rejects.toThrow();
    expect(await crashing.balanceOf(to, NATIVE)).toBe(0n);

    await store.close();

    // After the restart the account's first send recovers nonce 0 by rebroadcasting the stored bytes, then takes 1.
    const reopened = openSqliteStore(file);
    const restarted = ledger(reopened, ring);
    const other = await restarted.send({ key: 'k-after', asset: NATIVE, from: sender.address, to, amount: 1n });
    expect((await restarted.outboxEntry('k-after'))?.nonce).toBe(1);
    const t = await restarted.send({ key: 'k-crash', asset: NATIVE, from: sender.address, to, amount: 2n * ETH });
    expect(t.txId).toBe(entry!.hash);
    expect(t.block).toBeLessThanOrEqual(other.block);
    expect(await restarted.balanceOf(to, NATIVE)).toBe(2n * ETH + 1n);
    expect(await nonceOf(sender.address)).toBe(2);
    await reopened.close();
    rmSync(dirname(file), { recursive: true, force: true });
  });

  it('a crash before the first broadcast with only the key given again: the same bytes, once', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const to = randomAddress();
    const crashing = ledger(store, ring, { beforeBroadcast: () => Promise.reject(new Error('crash')) });
    await expect(crashing.send({ key: 'k-crash2', asset: NATIVE, from: sender.address, to, amount: 7n })).rejects.toThrow('crash');
    const entry = await crashing.outboxEntry('k-crash2');

    const restarted = ledger(store, ring);
    const t = await restarted.send({ key: 'k-crash2', asset: NATIVE, from: sender.address, to, amount: 7n });
    expect(t.txId).toBe(entry!.hash);
    expect(await restarted.send({ key: 'k-crash2', asset: NATIVE, from: sender.address, to, amount: 7n })).toEqual(t);
    expect(await restarted.balanceOf(to, NATIVE)).toBe(7n);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('a crash between broadcast and receipt: a fresh instance finds the receipt and signs nothing', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const to = randomAddress();
    await rpc(node, 'evm_setAutomine', [false]);
    try {
      const first = ledger(store, ring, { receiptTimeoutMs: 300 });
      // Broadcast, then no receipt in time: the process "stops" here with the transaction in the node's pool.
      await expect(first.send({ key: 'k-inflight', asset: NATIVE, from: sender.address, to, amount: 3n })).rejects.toBeInstanceOf(TransferPending);
      const entry = await first.outboxEntry('k-inflight');
      expect((await client(node).getTransaction({ hash: entry!.hash })).blockNumber).toBeNull();
      await mine(node, 1);
    } finally {
      await rpc(node, 'evm_setAutomine', [true]);
    }
    const ring2 = keyring(); // knows no key: a signature would fail with InvalidAddress
    const restarted = ledger(store, ring2);
    const t = await restarted.send({ key: 'k-inflight', asset: NATIVE, from: sender.address, to, amount: 3n });
    expect(t.txId).toBe((await restarted.outboxEntry('k-inflight'))!.hash);
    expect(ring2.asked).toEqual([]);
    expect(await restarted.balanceOf(to, NATIVE)).toBe(3n);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('20 concurrent sends from one account all land with distinct nonces', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const chain = ledger(store, ring);
    const tos = Array.from({ length: 20 }, () => randomAddress());
    const sent = await Promise.all(tos.map((to, i) => chain.send({ key: `k-many-${i}`, asset: NATIVE, from: sender.address, to, amount: BigInt(i + 1) })));
    const nonces = await Promise.all(sent.map(async (t) => (await chain.outboxEntry(t.key))!.nonce));
    expect(new Set(nonces).size).toBe(20);
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(sent.map((t) => t.txId)).size).toBe(20);
    for (const [i, to] of tos.entries()) expect(await chain.balanceOf(to, NATIVE)).toBe(BigInt(i + 1));
    expect(await nonceOf(sender.address)).toBe(20);
  });

  it('anvil paused mid-send: send retries and completes after resume, with one signed transaction', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    const to = randomAddress();
    let resumed = false;
    const chain = ledger(store, ring, {
      rpcTimeoutMs: 500,
      beforeBroadcast: async () => {
        await node.pause();
        setTimeout(() => {
          resumed = true;
          node.resume();
        }, 3_000);
      },
    });
    const started = Date.now();
    const t = await chain.send({ key: 'k-paused', asset: NATIVE, from: sender.address, to, amount: 11n });
    expect(resumed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(t.txId).toBe((await chain.outboxEntry('k-paused'))!.hash);
    expect(ring.asked.length).toBe(1);
    expect(await chain.balanceOf(to, NATIVE)).toBe(11n);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('more than the balance is refused before signing, and the key stays free', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node, ETH);
    ring.add(sender);
    const chain = ledger(store, ring);
    const to = randomAddress();
    await expect(chain.send({ key: 'k-poor', asset: NATIVE, from: sender.address, to, amount: 2n * ETH })).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await chain.outboxEntry('k-poor')).toBeNull();
    // The same key goes through once the amount fits.
    const t = await chain.send({ key: 'k-poor', asset: NATIVE, from: sender.address, to, amount: ETH / 2n });
    expect(t.amount).toBe(ETH / 2n);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('an ERC-20 send is a transfer(to, amount) call: balances move once per key', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    await mintDevToken(node.url, USDC_ADDRESS, sender.address, 10_000_000n);
    const to = randomAddress();
    const chain = ledger(store, ring);
    const t = await chain.send({ key: 'k-usdc', asset: USDC.id, from: sender.address, to, amount: 4_000_000n });
    expect(t).toMatchObject({ asset: USDC.id, from: sender.address, to, amount: 4_000_000n });
    expect(await chain.send({ key: 'k-usdc', asset: USDC.id, from: sender.address, to, amount: 4_000_000n })).toEqual(t);
    expect(await chain.balanceOf(to, USDC.id)).toBe(4_000_000n);
    expect(await chain.balanceOf(sender.address, USDC.id)).toBe(6_000_000n);
    const receipt = await client(node).getTransactionReceipt({ hash: t.txId as `0x${string}` });
    expect(receipt.to?.toLowerCase()).toBe(USDC.address);
    expect(await nonceOf(sender.address)).toBe(1);
  });

  it('an ERC-20 transfer above the balance: refused before signing, and once mined (balance spent meanwhile) a TransferReverted', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    await mintDevToken(node.url, USDC_ADDRESS, sender.address, 1_000_000n);
    const to = randomAddress();
    // The node estimates gas against its pending state, so the second send's preflight must run before the first
    // transaction reaches the pool, or it is refused before signing and no revert is ever mined. The first broadcast
    // is held for a while (preflights run outside the account lock, so the second one completes meanwhile), and
    // the RPC timeout is generous for a loaded machine.
    let held = false;
    const chain = ledger(store, ring, {
      rpcTimeoutMs: 15_000,
      beforeBroadcast: async (entry) => {
        if (held || !entry.key.startsWith('k-')) return;
        held = true;
        await new Promise((r) => setTimeout(r, 3_000));
      },
    });
    await expect(chain.send({ key: 'k-over', asset: USDC.id, from: sender.address, to, amount: 1_000_001n })).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await chain.outboxEntry('k-over')).toBeNull();

    // Two sends of 60% each pass their checks against the same state; in one block the second one reverts.
    await rpc(node, 'evm_setAutomine', [false]);
    let results: PromiseSettledResult<unknown>[];
    try {
      const both = Promise.allSettled(['k-a', 'k-b'].map((key) => chain.send({ key, asset: USDC.id, from: sender.address, to, amount: 600_000n })));
      const pool = () => rpc<{ pending: Record<string, Record<string, unknown>> }>(node, 'txpool_content');
      await waitUntil(async () => Object.keys((await pool()).pending[sender.address] ?? {}).length >= 2, 'the two transfers to reach the pool', 30_000, 20);
      await mine(node, 1);
      results = await both;
    } finally {
      await rpc(node, 'evm_setAutomine', [true]);
    }
    // Which key got nonce 0 depends on which preflight finished first; the one at nonce 1 reverts.
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failed.map((r) => String(r.reason))).toHaveLength(1);
    const err = failed[0]!.reason as TransferReverted;
    expect(err).toBeInstanceOf(TransferReverted);
    expect(err.code).toBe('transfer_reverted');
    expect(err.details.nonce).toBe(1);
    const revertedKey = err.details.key;
    // The key answers the same failure again and signs nothing new.
    await expect(ledger(store, keyring()).send({ key: revertedKey, asset: USDC.id, from: sender.address, to, amount: 1n })).rejects.toBeInstanceOf(TransferReverted);
    expect(await chain.balanceOf(to, USDC.id)).toBe(600_000n);
    expect(await chain.balanceOf(sender.address, USDC.id)).toBe(400_000n);
    expect(await nonceOf(sender.address)).toBe(2);
  }, 60_000);

  it('a nonce reserved without a stored transaction (stopped before storing) is filled on restart and blocks nothing', async () => {
    const store = memStore();
    const ring = keyring();
    const sender = await fundedAccount(node);
    ring.add(sender);
    await store.putKey(NONCE_SPACE, `base:${sender.address}`, JSON.stringify({ next: 1, reserved: { 0: 'k-ghost' } }));
    const chain = ledger(store, ring);
    const to = randomAddress();
    const t = await chain.send({ key: 'k-next', asset: NATIVE, from: sender.address, to, amount: 9n });
    expect((await chain.outboxEntry('k-next'))?.nonce).toBe(1);
    expect(await chain.balanceOf(to, NATIVE)).toBe(9n);
    // Nonce 0 went to a zero-value transfer to itself; the ghost key was never signed, so it may be sent now.
    expect(await nonceOf(sender.address)).toBe(2);
    const ghost = await chain.send({ key: 'k-ghost', asset: NATIVE, from: sender.address, to, amount: 1n });
    expect(ghost.block).toBeGreaterThan(t.block);
    expect((await chain.outboxEntry('k-ghost'))?.nonce).toBe(2);
  });
});
