// Outgoing transfers on a real anvil chain: one transaction per key across repeats and crashes, concurrent sends
// from one account, a node that stops answering mid-send, and refusals before signing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { NATIVE_EVM_ADDRESS } from '../../../src/assets/registry.js';
import { InsufficientFunds } from '../../../src/chains/errors.js';
import { startAnvil, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { TransferPending } from '../../../src/chains/evm/errors.js';
import { OUTBOX_SPACE, openEvmChain, type EvmChainOptions } from '../../../src/chains/evm/ledger.js';
import { client, fundedAccount, keyring, memStore, mine, randomAddress, rpc, type KeyStore } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;
const ETH = 10n ** 18n;

let node: AnvilNode;

beforeAll(async () => {
  node = await startAnvil({ chainId: 8453 });
});
afterAll(async () => {
  await node?.stop();
});

function ledger(store: KeyStore, ring: ReturnType<typeof keyring>, extra: Partial<EvmChainOptions> = {}) {
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
    const store = memStore();
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
    expect(JSON.parse(store.map.get(`${OUTBOX_SPACE}\nk-crash`)!).raw).toBe(entry!.raw);
    await expect(client(node).getTransaction({ hash: entry!.hash })).rejects.toThrow();
    expect(await crashing.balanceOf(to, NATIVE)).toBe(0n);

    // After the restart the account's first send recovers nonce 0 by rebroadcasting the stored bytes, then takes 1.
    const restarted = ledger(store, ring);
    const other = await restarted.send({ key: 'k-after', asset: NATIVE, from: sender.address, to, amount: 1n });
    expect((await restarted.outboxEntry('k-after'))?.nonce).toBe(1);
    const t = await restarted.send({ key: 'k-crash', asset: NATIVE, from: sender.address, to, amount: 2n * ETH });
    expect(t.txId).toBe(entry!.hash);
    expect(t.block).toBeLessThanOrEqual(other.block);
    expect(await restarted.balanceOf(to, NATIVE)).toBe(2n * ETH + 1n);
    expect(await nonceOf(sender.address)).toBe(2);
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
      beforeBroadcast: () => {
        node.pause();
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
});
