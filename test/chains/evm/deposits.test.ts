// Deposits read from a real anvil chain: native value transfers and registry-token Transfer logs by block range,
// confirmations from block numbers, and a reorg that drops a deposit's transaction.
import { describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, getAddress, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AnvilNode } from '../../../src/chains/evm/anvil.js';
import { ChainMoved } from '../../../src/chains/evm/errors.js';
import type { EvmChain } from '../../../src/chains/evm/ledger.js';
import { NATIVE_EVM_ADDRESS, findAsset } from '../../../src/assets/registry.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { useLedgerOnBase } from './support.js';
import { client, fundedAccount, mine, randomAddress, rpc } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;
const USDC = findAsset('base', 'USDC')!;
const USDC_ADDRESS = getAddress(USDC.address!);

let node: AnvilNode;
let chain: EvmChain;

useLedgerOnBase((s) => ({ node, chain } = s));

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
        block: paid.block, confirmations: 1, blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), transferIndex: null,
      },
    ]);
    await mine(node, 2);
    const [again] = (await chain.scan(paid.block)).filter((d) => d.to === to);
    expect(again?.confirmations).toBe(3);
    expect(await chain.confirmations({ block: paid.block })).toBe(3);
    expect(await chain.height()).toBe(paid.block + 2);
  });

  it('a scan up to a block above the height the node answers is refused with ChainMoved, not answered short: a cursor kept at toBlock would step over the blocks mined after', async () => {
    const h = await chain.height();
    await expect(chain.scan(h, h + 1)).rejects.toThrow(ChainMoved);
    await expect(chain.scan(h + 3, h + 10)).rejects.toThrow(ChainMoved);
    // Block h + 1 mined afterwards with a deposit in it: the scan asked again finds it.
    const to = randomAddress();
    const paid = await payNative(to, 7n);
    expect(paid.block).toBe(h + 1);
    expect((await chain.scan(h, h + 1)).filter((d) => d.to === to).map((d) => d.txId)).toEqual([paid.hash]);
  });

  it('an ERC-20 transfer of a registry token shows with the token asset, its sender and its place in the transaction', async () => {
    const sender = await fundedAccount(node);
    await mintDevToken(node.url, USDC_ADDRESS, sender.address, 5_000_000n);
    const to = randomAddress();
    const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
    const hash = await wallet.writeContract({ address: USDC_ADDRESS, abi: erc20Abi, functionName: 'transfer', args: [to, 1_250_000n], chain: null });
    const receipt = await client(node).waitForTransactionReceipt({ hash });
    const block = Number(receipt.blockNumber);
    const found = (await chain.scan(block - 1, block)).filter((d) => d.to === to || d.to === sender.address);
    expect(found).toEqual([
      // The mint, one block earlier, is a transfer from the zero address like any ERC-20 mint.
      expect.objectContaining({ asset: USDC.id, from: NATIVE_EVM_ADDRESS, to: sender.address, amount: 5_000_000n, block: block - 1, confirmations: 2 }),
      {
        txId: hash, chain: 'base', asset: USDC.id, from: sender.address, to, amount: 1_250_000n, block, confirmations: 1,
        blockHash: receipt.blockHash, transferIndex: 0,
      },
    ]);
    await mine(node, 4);
    expect((await chain.scan(block, block)).find((d) => d.txId === hash)?.confirmations).toBe(5);
  });

  it('a value transaction that reverts moves nothing and is no deposit', async () => {
    const sender = await fundedAccount(node);
    const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
    // The token contract has no payable fallback: the value transfer reverts (a fixed gas skips the estimate).
    const hash = await wallet.sendTransaction({ to: USDC_ADDRESS, value: 1_000n, gas: 100_000n, chain: null });
    const receipt = await client(node).waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    const block = Number(receipt.blockNumber);
    expect((await chain.scan(block, block)).filter((d) => d.txId === hash)).toEqual([]);
  });

  it('a reorg of depth 2 that drops deposits is detected, the deposits reported as vanished, and a rescan omits them', async () => {
    const tokenSender = await fundedAccount(node);
    await mintDevToken(node.url, USDC_ADDRESS, tokenSender.address, 1_000n);
    const keep = randomAddress();
    const kept = await payNative(keep, 1_000n);
    await mine(node, 1);
    const drop = randomAddress();
    const dropped = await payNative(drop, 2_000n);
    const wallet = createWalletClient({ account: privateKeyToAccount(tokenSender.key), transport: http(node.url) });
    const tokenHash = await wallet.writeContract({ address: USDC_ADDRESS, abi: erc20Abi, functionName: 'transfer', args: [drop, 300n], chain: null });
    await client(node).waitForTransactionReceipt({ hash: tokenHash });
    const top = await chain.height();
    expect(top).toBe(dropped.block + 1);
    const seen = await chain.scan(kept.block, top);
    const ours = seen.filter((d) => d.to === keep || d.to === drop);
    expect(ours.map((d) => [d.to, d.asset])).toEqual([[keep, NATIVE], [drop, NATIVE], [drop, USDC.id]]);
    expect(await chain.checkReorg(top)).toBeNull();

    // Replace the last two blocks (the native and the token deposit to `drop`) with empty ones.
    await rpc(node, 'anvil_reorg', [2, []]);
    await expect(client(node).getTransactionReceipt({ hash: dropped.hash })).rejects.toThrow();
    await expect(client(node).getTransactionReceipt({ hash: tokenHash })).rejects.toThrow();

    const reorg = await chain.checkReorg(top);
    expect(reorg).toEqual({ from: dropped.block, upTo: top, depth: 2, beyondWindow: false });
    expect(await chain.vanished(ours)).toEqual(ours.filter((d) => d.to === drop));

    // The caller rewinds its cursor to reorg.from - 1 and scans again: the dropped deposits are not there any more.
    const rescanned = await chain.scan(reorg!.from, await chain.height());
    expect(rescanned.filter((d) => d.to === drop)).toEqual([]);
    expect(await chain.checkReorg(await chain.height())).toBeNull();
  });

  it('a node behind the one read before is no reorg: checkReorg above its height, and vanished for a deposit whose block it lacks or still has, are refused with ChainMoved', async () => {
    const to = randomAddress();
    const paid = await payNative(to, 5_000n);
    const top = await chain.height();
    const [d] = (await chain.scan(paid.block, top)).filter((x) => x.to === to);
    expect(d).toBeDefined();
    // A node that answers a lower height than the block scanned last (behind its peers, or replacing blocks).
    await expect(chain.checkReorg(top + 2)).rejects.toThrow(ChainMoved);
    // A receipt the node lacks while the block it was in is missing, or still the very same block: not proof.
    const unknownTx = `0x${'ab'.repeat(32)}` as const;
    await expect(chain.vanished([{ ...d!, txId: unknownTx, block: top + 5 }])).rejects.toThrow(ChainMoved);
    await expect(chain.vanished([{ ...d!, txId: unknownTx }])).rejects.toThrow(ChainMoved);
    // The deposit itself, on the chain: not vanished.
    expect(await chain.vanished([d!])).toEqual([]);
  });
});
