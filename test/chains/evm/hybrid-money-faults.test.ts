// The hybrid facade's books against the chain when things go wrong, on a real anvil node: a deposit mined again
// elsewhere in a block after a reorg keeps its booking and its ids; a reorg between the feed's check and its next
// scan is not written over; a native send never takes its amount from the gas account; a key signed before a crash is
// not booked to another recipient. Each describe runs its own node (a crash seam and reorgs leave state behind).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { findAsset } from '../../../src/assets/registry.js';
import { poolAccount } from '../../../src/chains/index.js';
import { ANVIL_ACCOUNTS, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devTokenAbi, mintDevToken } from '../../../src/chains/evm/dev-token.js';
import type { HybridChains } from '../../../src/chains/hybrid-chains.js';
import { ChainMoved } from '../../../src/chains/evm/errors.js';
import { InsufficientFunds } from '../../../src/chains/errors.js';
import { InvalidRequest } from '../../../src/errors.js';
import { holdingAccount } from '../../../src/orders/money.js';
import { client, fundedAccount, hybridOnBase, memStore, randomAddress, rpc, type KeyStore } from './ledger-support.js';
import { startDevChain, tokenAddress } from './support.js';

const TREASURY = ANVIL_ACCOUNTS[0]!;
const GAS = ANVIL_ACCOUNTS[1]!;
const MINTER = ANVIL_ACCOUNTS[3]!.address as Address;
const USDC = findAsset('base', 'USDC')!;

let node: AnvilNode;
let store: KeyStore;
let chains: HybridChains;
let depositAddress: () => Promise<Address>;
let crashOn: string | null = null;

/** A fresh node and facade for the tests of the enclosing describe block; a send whose key is `crashOn` stops once
 *  after it is signed and stored, before its broadcast, as a crash would. */
function useChains(): void {
  beforeAll(async () => {
    node = await startDevChain('base');
    store = memStore();
    ({ chains, depositAddress } = hybridOnBase(node, store, {
      receiptTimeoutMs: 3_000,
      bumpAfterMs: 0,
      beforeBroadcast: (e) => {
        if (e.key !== crashOn) return;
        crashOn = null;
        throw new Error('crash before broadcast');
      },
    }));
  }, 60_000);
  afterAll(async () => {
    await chains?.close();
    await node?.stop();
  });
}

const usdcOnChain = (a: Address) => client(node).readContract({ address: tokenAddress('base', 'USDC'), abi: erc20Abi, functionName: 'balanceOf', args: [a] });

/** Mines `raws` (signed txs, in this order of priority) into one block. */
async function oneBlock(raws: Hex[]): Promise<void> {
  await rpc(node, 'evm_setAutomine', [false]);
  try {
    for (const raw of raws) await rpc(node, 'eth_sendRawTransaction', [raw]);
    await rpc(node, 'anvil_mine', ['0x1']);
  } finally {
    await rpc(node, 'evm_setAutomine', [true]);
  }
}

async function signer(tipGwei: bigint) {
  const acct = await fundedAccount(node);
  const wallet = createWalletClient({ account: privateKeyToAccount(acct.key), transport: http(node.url) });
  const sign = async (to: Address, data: Hex) => {
    const req = await wallet.prepareTransactionRequest({ chain: null, to, data, maxPriorityFeePerGas: tipGwei * 10n ** 9n, maxFeePerGas: 100n * 10n ** 9n, gas: 200_000n });
    return wallet.signTransaction({ ...req, chain: null } as never) as Promise<Hex>;
  };
  return { address: acct.address, sign };
}

describe('a deposit mined again at another place in a block after a reorg', () => {
  useChains();
  it('is booked once (books = chain) and keeps its deposit ids', async () => {
    const token = tokenAddress('base', 'USDC');
    const dep = await depositAddress();
    const user = await signer(1n);
    const other = await signer(50n);
    await mintDevToken(node.url, token, user.address, 10_000_000n, { from: MINTER });
    const start = await chains.height('base');
    // The user's one transaction pays the deposit address twice (a batch payout); another transaction's log precedes it.
    const deposit = await user.sign(token, encodeFunctionData({ abi: devTokenAbi, functionName: 'transferBatch', args: [[dep, dep], [3_000_000n, 2_000_000n]] }));
    const noise = await other.sign(token, encodeFunctionData({ abi: devTokenAbi, functionName: 'mint', args: [randomAddress(), 1n] }));
    await oneBlock([noise, deposit]);
    const first = await chains.scan('base', start + 1);
    const idsBefore = first.filter((d) => d.to === dep).map((d) => d.txId);
    expect(await chains.balanceOf('base', dep, USDC.id)).toBe(5_000_000n);

    // A reorg drops the block; the same signed deposit is mined again, alone in its block (lower log indexes).
    await rpc(node, 'anvil_reorg', [1, []]);
    await rpc(node, 'eth_sendRawTransaction', [deposit]);
    await rpc(node, 'anvil_mine', ['0x1']);
    expect(await usdcOnChain(dep)).toBe(5_000_000n);

    // What the deposit feed does on its next poll: ask for vanished deposits, then scan the replaced blocks again.
    expect(await chains.vanished!('base', start + 1)).toEqual([]);
    const again = await chains.scan('base', start + 1);
    const idsAfter = again.filter((d) => d.to === dep).map((d) => d.txId);
    expect({ books: await chains.balanceOf('base', dep, USDC.id), ids: idsAfter }).toEqual({ books: 5_000_000n, ids: idsBefore });
  });
});

describe('a reorg between the feed\'s reorg check and its scan of the next blocks', () => {
  useChains();
  it('makes the scan refuse the blocks that do not extend the ones read, and the next check finds it', async () => {
    const dep = await depositAddress();
    const start = await chains.height('base');
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), dep, 3_000_000n, { from: MINTER });
    // Poll k: the feed scans up to D and books the deposit.
    await chains.scan('base', start + 1);
    const D = await chains.height('base');
    expect(await chains.balanceOf('base', dep, USDC.id)).toBe(3_000_000n);
    // Poll k+1: the reorg check finds nothing...
    expect(await chains.checkReorg!('base', D)).toBeNull();
    // ...the chain is reorganised (block D replaced, two more mined) before the pass reads D+1..
    await rpc(node, 'anvil_reorg', [1, []]);
    await rpc(node, 'anvil_mine', ['0x2']);
    expect(await usdcOnChain(dep)).toBe(0n);
    const H = await chains.height('base');
    await expect(chains.scan('base', D + 1, H)).rejects.toThrow(ChainMoved);
    // Poll k+2: the check from D (the feed's cursor did not move) sees the replaced block, and the deposit vanished.
    expect(await chains.checkReorg!('base', D)).toMatchObject({ from: D });
    expect((await chains.vanished!('base', start + 1)).map((d) => d.to)).toEqual([dep]);
  });
});

describe('a native send from a deposit address whose ETH the chain no longer has', () => {
  useChains();
  it('is refused: the gas account tops up gas only, never the amount itself', async () => {
    const dep = await depositAddress();
    const payer = await fundedAccount(node);
    const wallet = createWalletClient({ account: privateKeyToAccount(payer.key), transport: http(node.url) });
    const start = await chains.height('base');
    const hash = await wallet.sendTransaction({ chain: null, to: dep, value: 10n ** 16n });
    await client(node).waitForTransactionReceipt({ hash });
    await chains.scan('base', start + 1);
    const ETH = `evm:8453.0x0000000000000000000000000000000000000000` as const;
    expect(await chains.balanceOf('base', dep, ETH)).toBe(10n ** 16n);
    // A reorg removes the deposit before the feed's next check; the order (told it was confirmed) sweeps it.
    await rpc(node, 'anvil_reorg', [1, []]);
    expect(await client(node).getBalance({ address: dep })).toBe(0n);
    const gasBefore = await client(node).getBalance({ address: GAS.address as Address });
    await expect(chains.transfer({ key: 'f6-sweep', chain: 'base', asset: ETH, from: dep, to: poolAccount('aave'), amount: 10n ** 16n })).rejects.toThrow(InsufficientFunds);
    const gasSpent = gasBefore - (await client(node).getBalance({ address: GAS.address as Address }));
    // Gas for one 21 000-gas transfer at these fees is far below the 0.01 ETH deposit.
    expect(gasSpent).toBeLessThan(10n ** 15n);
  });
});

describe('a key signed before a crash, asked again with another recipient', () => {
  useChains();
  it('is refused, naming both recipients, and nothing is booked to the one the money did not reach', async () => {
    const a = randomAddress();
    const b = randomAddress();
    await mintDevToken(node.url, tokenAddress('base', 'USDC'), TREASURY.address as Address, 1_000_000n, { from: MINTER });
    await chains.transfer({ key: 'f3-fund', chain: 'base', asset: USDC.id, from: poolAccount('aave'), to: holdingAccount('f3'), amount: 700n });
    crashOn = 'f3-send';
    await expect(chains.transfer({ key: 'f3-send', chain: 'base', asset: USDC.id, from: holdingAccount('f3'), to: a, amount: 700n })).rejects.toThrow(/crash/);
    await expect(chains.transfer({ key: 'f3-send', chain: 'base', asset: USDC.id, from: holdingAccount('f3'), to: b, amount: 700n })).rejects.toThrow(InvalidRequest);
    expect(await chains.transfers({ key: 'f3-send' })).toEqual([]);
    // Asked as it was signed, it settles and is booked where the chain moved it.
    const t = await chains.transfer({ key: 'f3-send', chain: 'base', asset: USDC.id, from: holdingAccount('f3'), to: a, amount: 700n });
    expect({ a: await usdcOnChain(a), b: await usdcOnChain(b), bookedTo: t.to }).toEqual({ a: 700n, b: 0n, bookedTo: a });
  });
});
