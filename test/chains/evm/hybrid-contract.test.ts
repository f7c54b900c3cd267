// The chains port's contract suite against the hybrid facade: base real (an anvil node, DevToken at the registry's
// token addresses, anvil's dev accounts as treasury and gas keys), every other chain simulated. Each case gets a
// fresh facade (books, key store) and fresh user accounts whose keys the facade holds as deposit addresses, so a
// transfer from a user account is a real, signed transaction; the node is shared and started once.
import { afterAll, beforeAll } from 'vitest';
import { createWalletClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { assetById } from '../../../src/assets/registry.js';
import type { ChainName } from '../../../src/assets/types.js';
import { BLOCK_MS, openSimChains } from '../../../src/chains/index.js';
import { ANVIL_ACCOUNTS, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { mintDevToken } from '../../../src/chains/evm/dev-token.js';
import { openHybridChains } from '../../../src/chains/hybrid-chains.js';
import { ManualClock } from '../../../src/clock.js';
import { chainsContract } from '../../unit/chains/chains-contract.js';
import { client, fundedAccount, memStore, rpc } from './ledger-support.js';
import { startDevChain, tokenAddress } from './support.js';

const TREASURY = ANVIL_ACCOUNTS[0]!;
const GAS = ANVIL_ACCOUNTS[1]!;
const MINTER = ANVIL_ACCOUNTS[3]!.address as Address;
const REAL: readonly ChainName[] = ['base'];

let node: AnvilNode;

beforeAll(async () => {
  node = await startDevChain('base');
  // What the mint and the pools pay out on base is the treasury's own money: give it plenty of every base token.
  for (const symbol of ['USDC', 'USDT']) {
    await mintDevToken(node.url, tokenAddress('base', symbol), TREASURY.address as Address, 10n ** 30n, { from: MINTER });
  }
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

chainsContract('hybrid facade (base on anvil, the rest simulated)', async () => {
  // Held still between `advance` calls: the simulated chains' heights follow this clock, so a clock running with the
  // system's would add a block whenever a case takes longer than a block of a fast chain (hyperliquid: 1 s).
  const clock = new ManualClock(undefined, Date.now());
  const keys = new Map<string, Hex>();
  const account = async (): Promise<string> => {
    // No ETH: the facade tops a user account's gas up from the gas account before it sends, as for a deposit address.
    const a = await fundedAccount(node, 0n);
    keys.set(a.address, a.key);
    return a.address;
  };
  const chains = openHybridChains({
    sim: openSimChains({ file: ':memory:', clock, pollMs: 0 }),
    rpc: { base: node.url },
    store: memStore(),
    treasuryKey: TREASURY.privateKey as Hex,
    gasKey: GAS.privateKey as Hex,
    depositAddresses: {
      has: async (a) => keys.has(a.toLowerCase()),
      keyOf: async (a) => keys.get(a.toLowerCase()) ?? null,
    },
    pollMs: 0,
    evm: { pollMs: 20, rpcTimeoutMs: 5_000 },
  });
  let carry = 0;
  return {
    chains,
    realChains: REAL,
    accounts: { alice: await account(), bob: await account(), carol: getAddress(await account()) },
    async advance(ms) {
      clock.advance(ms);
      // base's node: one block per nominal interval of time passed (the remainder carried to the next call).
      carry += ms;
      const blocks = Math.floor(carry / BLOCK_MS.base);
      carry -= blocks * BLOCK_MS.base;
      if (blocks > 0) {
        await rpc(node, 'evm_increaseTime', [`0x${Math.floor((blocks * BLOCK_MS.base) / 1000).toString(16)}`]);
        await rpc(node, 'anvil_mine', [`0x${blocks.toString(16)}`]);
      }
    },
    async deposit(d) {
      if (!REAL.includes(d.chain)) {
        const from = await account();
        const t = await chains.simulateDeposit({ ...d, from });
        return { txId: t.txId, block: t.block, from };
      }
      // A real ERC-20 transfer from a funded dev account outside the router.
      const sender = await fundedAccount(node);
      const token = assetById(d.asset).address as Address;
      await mintDevToken(node.url, token, sender.address, d.amount, { from: MINTER });
      const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
      const hash = await wallet.writeContract({ chain: null, address: token, abi: erc20Abi, functionName: 'transfer', args: [d.to as Address, d.amount] });
      // Polled as often as the facade polls its own sends: viem's default (4 s) made each payment take seconds.
      const receipt = await client(node).waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return { txId: hash, block: Number(receipt.blockNumber), from: sender.address };
    },
    close: () => chains.close(),
  };
});
