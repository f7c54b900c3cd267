// Deposits read from a real anvil chain: native value transfers and registry-token Transfer logs by block range,
// confirmations from block numbers, and a reorg that drops a deposit's transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { openEvmChain, type EvmChain } from '../../../src/chains/evm/ledger.js';
import { NATIVE_EVM_ADDRESS } from '../../../src/assets/registry.js';
import { client, fundedAccount, memStore, mine, randomAddress, rpc } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;

let node: AnvilNode;
let chain: EvmChain;

beforeAll(async () => {
  node = await startAnvil({ chainId: 8453 });
  chain = openEvmChain({ chain: 'base', rpcUrl: node.url, store: memStore(), signers: () => null });
});
afterAll(async () => {
  await node?.stop();
});

async function payNative(to: Address, value: bigint): Promise<{ hash: `0x${string}`; from: Address; block: number }> {
  const sender = await fundedAccount(node);
  const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
  const hash = await wallet.sendTransaction({ to, value, chain: null });
  const receipt = await client(node).waitForTransactionReceipt({ hash });
  return { hash, from: sender.address, block: Number(receipt.blockNumber) };
}

describe('EVM deposits (anvil)', () => {
  it('a native transfer shows in scan with asset, sender, amount and block; confirmations grow with mined blocks', async () => {
    const to = randomAddress();
    const paid = await payNative(to, 123_456_789n);
    const found = (await chain.scan(paid.block, paid.block)).filter((d) => d.to === to);
    expect(found).toEqual([
      {
        txId: paid.hash, chain: 'base', asset: NATIVE, from: paid.from, to, amount: 123_456_789n,
        block: paid.block, confirmations: 1, blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), logIndex: null,
      },
    ]);
    await mine(node, 2);
    const [again] = (await chain.scan(paid.block)).filter((d) => d.to === to);
    expect(again?.confirmations).toBe(3);
    expect(await chain.confirmations({ block: paid.block })).toBe(3);
    expect(await chain.height()).toBe(paid.block + 2);
    // Blocks above the height are not scanned yet: nothing, and no error.
    expect(await chain.scan(paid.block + 3, paid.block + 10)).toEqual([]);
  });

  it('a reorg of depth 2 that drops a deposit is detected, the deposit reported as vanished, and a rescan omits it', async () => {
    const keep = randomAddress();
    const kept = await payNative(keep, 1_000n);
    await mine(node, 1);
    const drop = randomAddress();
    const dropped = await payNative(drop, 2_000n);
    await mine(node, 1);
    const top = await chain.height();
    expect(top).toBe(dropped.block + 1);
    const seen = await chain.scan(kept.block, top);
    const ours = seen.filter((d) => d.to === keep || d.to === drop);
    expect(ours.map((d) => d.to)).toEqual([keep, drop]);
    expect(await chain.checkReorg(top)).toBeNull();

    // Replace the last two blocks (the dropped deposit's block and the one after) with empty ones.
    await rpc(node, 'anvil_reorg', [2, []]);
    await expect(client(node).getTransactionReceipt({ hash: dropped.hash })).rejects.toThrow();

    const reorg = await chain.checkReorg(top);
    expect(reorg).toEqual({ from: dropped.block, upTo: top, depth: 2, beyondWindow: false });
    expect(await chain.vanished(ours)).toEqual(ours.filter((d) => d.to === drop));

    // The caller rewinds its cursor to reorg.from - 1 and scans again: the dropped deposit is not there any more.
    const rescanned = await chain.scan(reorg!.from, await chain.height());
    expect(rescanned.filter((d) => d.to === drop)).toEqual([]);
    expect(await chain.checkReorg(await chain.height())).toBeNull();
  });
});
