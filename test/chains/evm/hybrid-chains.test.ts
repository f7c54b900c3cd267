// The hybrid chains facade on a real anvil node: which transfers are real transactions and which are bookings,
// deposits booked before they are answered, the router's own sends never booked as deposits and told only when they
// pay into a deposit address, ETH a contract pays inside its transaction, gas top-ups of deposit addresses (token and
// native sends), and the simulated chains untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { NATIVE_EVM_ADDRESS, findAsset } from '../../../src/assets/registry.js';
import { MINT_ACCOUNT, poolAccount } from '../../../src/chains/index.js';
import { InsufficientFunds } from '../../../src/chains/errors.js';
import { ChainMoved } from '../../../src/chains/evm/errors.js';
import { ANVIL_ACCOUNTS, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { OUTBOX_SPACE } from '../../../src/chains/evm/outbox.js';
import type { HybridChains } from '../../../src/chains/hybrid-chains.js';
import { InvalidRequest } from '../../../src/errors.js';
import { FEES_ACCOUNT, holdingAccount } from '../../../src/orders/money.js';
import { client, deployCode, fundedAccount, hybridOnBase, memStore, payerCalldata, payerCode, randomAddress, rpc, type KeyStore } from './ledger-support.js';
import { startDevChain, tokenAddress } from './support.js';

const TREASURY = ANVIL_ACCOUNTS[0]!;
const MINTER = ANVIL_ACCOUNTS[3]!.address as Address;
const USDC = findAsset('base', 'USDC')!;
const ETH = `evm:8453.${NATIVE_EVM_ADDRESS}` as const;

let node: AnvilNode;
let store: KeyStore;
let chains: HybridChains;
let depositAddress: () => Promise<Address>;

beforeAll(async () => {
  node = await startDevChain('base');
  store = memStore();
  ({ chains, depositAddress } = hybridOnBase(node, store));
}, 60_000);

afterAll(async () => {
  await chains?.close();
  await node?.stop();
});

const sent = async (key: string) => (await store.getKey(OUTBOX_SPACE, key)) !== null;

describe('hybrid chains: deposits on a real chain', () => {
  it('a token transfer into a deposit address is booked as mint → address once, however often it is scanned; the router\'s own sends are no deposits', async () => {
    const dep = await depositAddress();
    const from = await chains.height('base');
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 7_000_000n, { from: MINTER });
    // A send of the treasury (as a payout is) to an outside address: not a deposit.
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), TREASURY.address as Address, 1_000_000n, { from: MINTER });
    await chains.transfer({ key: 'payout-like', chain: 'base', asset: USDC.id, from: poolAccount('aave'), to: randomAddress(), amount: 1n });
    for (let i = 0; i < 2; i++) {
      const found = await chains.scan('base', from + 1);
      expect(found.filter((d) => d.to === dep)).toHaveLength(1);
      expect(found.some((d) => d.from === TREASURY.address.toLowerCase())).toBe(false);
    }
    expect(await chains.balanceOf('base', dep, USDC.id)).toBe(7_000_000n);
    const booked = (await chains.transfers({ address: dep })).filter((t) => t.from === MINT_ACCOUNT);
    expect(booked).toHaveLength(1);
    // The booking answers the real transaction: its hash finds it, its block is the node's.
    const [d] = (await chains.scan('base', from + 1)).filter((x) => x.to === dep);
    expect(booked[0]!.txId).toBe(d!.txId);
    expect(booked[0]!.block).toBe(d!.block);
    expect((await chains.transfers({ txId: d!.txId })).map((t) => t.key)).toEqual([booked[0]!.key]);
    expect(booked[0]!.key).toMatch(/^deposit:base:0x[0-9a-f]{64}:\d+$/);
  });

  it('a payout of the treasury into a deposit address (one order delivering into another\'s) is told with the holding account the books moved it from, flagged fromRouter, and booked once', async () => {
    const dep = await depositAddress();
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), TREASURY.address as Address, 1_000_000n, { from: MINTER });
    await chains.transfer({ key: 'chain-fund', chain: 'base', asset: USDC.id, from: poolAccount('aave'), to: holdingAccount('first'), amount: 400_000n });
    const from = await chains.height('base');
    const payout = await chains.transfer({ key: 'chain-payout', chain: 'base', asset: USDC.id, from: holdingAccount('first'), to: dep, amount: 400_000n });
    for (let i = 0; i < 2; i++) {
      const found = (await chains.scan('base', from + 1)).filter((d) => d.to === dep);
      expect(found).toEqual([expect.objectContaining({ txId: payout.txId, from: holdingAccount('first'), fromRouter: true, amount: 400_000n })]);
    }
    expect(await chains.balanceOf('base', dep, USDC.id)).toBe(400_000n);
    expect((await chains.transfers({ address: dep })).filter((t) => t.from === MINT_ACCOUNT)).toEqual([]);
  });

  it('a send from one deposit address into another (a refund into another order\'s address) is told with its sender and booked once', async () => {
    const first = await depositAddress();
    const second = await depositAddress();
    const start = await chains.height('base');
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), first, 2_000_000n, { from: MINTER });
    await chains.scan('base', start + 1);
    const from = await chains.height('base');
    const refund = await chains.transfer({ key: 'chain-refund', chain: 'base', asset: USDC.id, from: first, to: second, amount: 2_000_000n });
    for (let i = 0; i < 2; i++) {
      const found = (await chains.scan('base', from + 1)).filter((d) => d.to === second);
      expect(found).toEqual([expect.objectContaining({ txId: refund.txId, from: first, amount: 2_000_000n })]);
      expect(found[0]!.fromRouter).toBeUndefined();
    }
    expect(await chains.balanceOf('base', second, USDC.id)).toBe(2_000_000n);
    expect(await chains.balanceOf('base', first, USDC.id)).toBe(0n);
  });

  it('heights and confirmations come from the node; simulateDeposit is refused there and works on simulated chains', async () => {
    const h = Number(await client(node).getBlockNumber());
    expect(await chains.height('base')).toBe(h);
    expect(await chains.confirmations({ chain: 'base', block: h })).toBe(1);
    await expect(chains.simulateDeposit({ chain: 'base', asset: USDC.id, from: randomAddress(), to: randomAddress(), amount: 1n })).rejects.toThrow(InvalidRequest);
    await expect(chains.simulateDeposit({ chain: 'base', asset: USDC.id, from: randomAddress(), to: randomAddress(), amount: 1n })).rejects.toThrow(/real transaction/);
    const arbUsdc = findAsset('arbitrum', 'USDC')!;
    const t = await chains.simulateDeposit({ chain: 'arbitrum', asset: arbUsdc.id, from: randomAddress(), to: randomAddress(), amount: 5n });
    expect(t.txId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chains.transfers({ txId: t.txId })).toHaveLength(1);
  });
});

describe('hybrid chains: transfers on a real chain', () => {
  it('between internal accounts (all the treasury) only the books move; a sweep is real with its gas topped up; the same key moves nothing again', async () => {
    const dep = await depositAddress();
    const from = await chains.height('base');
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 3_000_000n, { from: MINTER });
    await chains.scan('base', from + 1);

    const booking = await chains.transfer({ key: 'b1', chain: 'base', asset: USDC.id, from: poolAccount('aave'), to: holdingAccount('o1'), amount: 10n });
    expect(await sent('b1')).toBe(false);
    expect(await chains.balanceOf('base', holdingAccount('o1'), USDC.id)).toBe(10n);
    expect((await chains.transfers({ key: 'b1' }))[0]!.txId).toBe(booking.txId);

    const sweep = await chains.transfer({ key: 's1', chain: 'base', asset: USDC.id, from: dep, to: FEES_ACCOUNT, amount: 3_000_000n });
    expect(await sent('s1')).toBe(true);
    expect(await sent('s1:gas')).toBe(true);
    const receipt = await client(node).getTransactionReceipt({ hash: sweep.txId as Hex });
    expect(receipt.status).toBe('success');
    expect(await client(node).readContract({ address: tokenAddress('base', 'USDC'), abi: erc20Abi, functionName: 'balanceOf', args: [dep] })).toBe(0n);
    expect(await chains.balanceOf('base', dep, USDC.id)).toBe(0n);
    expect(await chains.balanceOf('base', FEES_ACCOUNT, USDC.id)).toBe(3_000_000n);

    const again = await chains.transfer({ key: 's1', chain: 'base', asset: USDC.id, from: dep, to: FEES_ACCOUNT, amount: 999n });
    expect(again).toEqual(sweep);
    expect((await chains.transfers({ txId: sweep.txId })).map((t) => t.key)).toEqual(['s1']);
  });

  it('a native send from a deposit address gets its gas on top of the amount; everything deposited reaches the treasury', async () => {
    const dep = await depositAddress();
    const sender = await fundedAccount(node);
    const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
    const from = await chains.height('base');
    const hash = await wallet.sendTransaction({ chain: null, to: dep, value: 10n ** 16n });
    await client(node).waitForTransactionReceipt({ hash });
    await chains.scan('base', from + 1);
    expect(await chains.balanceOf('base', dep, ETH)).toBe(10n ** 16n);
    const treasuryBefore = await client(node).getBalance({ address: TREASURY.address as Address });
    await chains.transfer({ key: 'n1', chain: 'base', asset: ETH, from: dep, to: poolAccount('aave'), amount: 10n ** 16n });
    expect(await sent('n1:gas')).toBe(true);
    expect((await client(node).getBalance({ address: TREASURY.address as Address })) - treasuryBefore).toBe(10n ** 16n);
    expect(await client(node).getBalance({ address: dep })).toBeLessThan(10n ** 15n);
  });

  it('a holding the books say is short refuses before anything is signed, and the key stays free', async () => {
    const to = randomAddress();
    await expect(chains.transfer({ key: 'short', chain: 'base', asset: USDC.id, from: holdingAccount('nobody'), to, amount: 5n })).rejects.toThrow(InsufficientFunds);
    expect(await sent('short')).toBe(false);
    expect(await chains.transfers({ key: 'short' })).toEqual([]);
    await expect(chains.transfer({ key: 'bad', chain: 'base', asset: USDC.id, from: 'someone', to, amount: 5n })).rejects.toThrow(/from must be an EVM address/);
  });
});

describe('hybrid chains: depositsTo reads the blocks since its last call, and a reorg makes it read again', () => {
  it('a deposit in blocks a reorg replaced is gone from depositsTo; one made after it is seen', async () => {
    const dep = await depositAddress();
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 3_000_000n, { from: MINTER });
    await rpc(node, 'anvil_mine', ['0x1']);
    const before = await chains.depositsTo('base', dep);
    expect(before.map((d) => d.amount)).toEqual([3_000_000n]);
    expect(before[0]!.confirmations).toBe(2);
    // One more block: the deposit read before is answered again with its confirmations of now.
    await rpc(node, 'anvil_mine', ['0x1']);
    expect((await chains.depositsTo('base', dep)).map((d) => d.confirmations)).toEqual([3]);

    // The deposit's block and the two after it replaced by empty ones: same height, other hashes.
    await rpc(node, 'anvil_reorg', [3, []]);
    expect(await chains.depositsTo('base', dep)).toEqual([]);

    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 4_000_000n, { from: MINTER });
    expect((await chains.depositsTo('base', dep)).map((d) => d.amount)).toEqual([4_000_000n]);
  });

  it('ETH a contract pays into deposit addresses inside its transaction is booked once per payment, keyed by its place; a reorg that drops it books it back', async () => {
    const [dep, other] = [await depositAddress(), await depositAddress()];
    const from = await chains.height('base');
    const payer = await deployCode(node, payerCode(3));
    const sender = await fundedAccount(node);
    const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
    const pays = [{ to: dep, value: 100n }, { to: other, value: 50n }, { to: dep, value: 200n }];
    const hash = await wallet.sendTransaction({ to: payer, value: 350n, data: payerCalldata(pays), gas: 300_000n, chain: null });
    const block = Number((await client(node).waitForTransactionReceipt({ hash })).blockNumber);
    for (let i = 0; i < 2; i++) {
      const found = (await chains.scan('base', from + 1)).filter((d) => d.to === dep || d.to === other);
      expect(found.map((d) => [d.to, d.from, d.amount, d.txId])).toEqual([
        [dep, payer, 100n, hash], [other, payer, 50n, hash], [dep, payer, 200n, `${hash}:call2`],
      ]);
    }
    expect(await chains.balanceOf('base', dep, ETH)).toBe(300n);
    expect(await chains.balanceOf('base', other, ETH)).toBe(50n);
    const keys = (await chains.transfers({ address: dep })).filter((t) => t.from === MINT_ACCOUNT).map((t) => t.key);
    expect(keys).toEqual([`deposit:base:${hash}:call0`, `deposit:base:${hash}:call2`]);

    await rpc(node, 'anvil_reorg', [(await chains.height('base')) - block + 1, []]);
    const gone = await chains.vanished!('base', block);
    expect(gone.filter((d) => d.to === dep || d.to === other).map((d) => d.amount).sort((x, y) => Number(x - y))).toEqual([50n, 100n, 200n]);
    expect(await chains.balanceOf('base', dep, ETH)).toBe(0n);
    expect(await chains.balanceOf('base', other, ETH)).toBe(0n);
  });

  it('a node answering a height below the blocks read before is refused with ChainMoved, not read again from block 0; once it is past them again, a replaced block is found', async () => {
    const dep = await depositAddress();
    const snapshot = await rpc(node, 'evm_snapshot', []);
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 5_000_000n, { from: MINTER });
    await rpc(node, 'anvil_mine', ['0x2']);
    expect((await chains.depositsTo('base', dep)).map((d) => d.amount)).toEqual([5_000_000n]);
    // The node goes back three blocks, as one behind its peers would answer.
    await rpc(node, 'evm_revert', [snapshot]);
    await expect(chains.depositsTo('base', dep)).rejects.toThrow(ChainMoved);
    // Past them again on another branch: the block read last has another hash, and everything is read again.
    await rpc(node, 'anvil_mine', ['0x4']);
    expect(await chains.depositsTo('base', dep)).toEqual([]);
  });
});
