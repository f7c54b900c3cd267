// Helpers of the EVM ledger tests: an in-memory key store (the ActorStore's putKey/getKey), raw RPC calls, and
// fresh accounts funded with anvil_setBalance so each test starts from known balances and nonces, and the hybrid
// facade over one node.
import { createPublicClient, http, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ActorStore } from '../../../src/store/types.js';
import { ANVIL_ACCOUNTS, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { openSimChains } from '../../../src/chains/index.js';
import { openHybridChains, type HybridChains, type HybridChainsOptions } from '../../../src/chains/hybrid-chains.js';
import { ManualClock } from '../../../src/clock.js';

export type KeyStore = Pick<ActorStore, 'getKey' | 'putKey'> & { map: Map<string, string> };

export function memStore(): KeyStore {
  const map = new Map<string, string>();
  return {
    map,
    async putKey(space, key, value) {
      map.set(`${space}\n${key}`, value);
    },
    async getKey(space, key) {
      return map.get(`${space}\n${key}`) ?? null;
    },
  };
}

export async function rpc<T = unknown>(node: AnvilNode, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export function client(node: AnvilNode): PublicClient {
  return createPublicClient({ transport: http(node.url) }) as PublicClient;
}

export const mine = (node: AnvilNode, blocks = 1) => rpc(node, 'anvil_mine', [`0x${blocks.toString(16)}`]);

/** A new key whose address holds `wei` (anvil_setBalance), plus a signers function knowing it. */
export async function fundedAccount(node: AnvilNode, wei = 10n ** 20n): Promise<{ address: Address; key: Hex }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address.toLowerCase() as Address;
  await rpc(node, 'anvil_setBalance', [address, `0x${wei.toString(16)}`]);
  return { address, key };
}

export function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address;
}

/** Signers over a growing set of keys. */
export function keyring(): { add(k: { address: string; key: Hex }): void; signers: (a: string) => Hex | null; asked: string[] } {
  const keys = new Map<string, Hex>();
  const asked: string[] = [];
  return {
    asked,
    add: (k) => void keys.set(k.address.toLowerCase(), k.key),
    signers: (a) => {
      asked.push(a);
      return keys.get(a.toLowerCase()) ?? null;
    },
  };
}

/** The hybrid facade with base on `node` (anvil's dev accounts 0 and 1 as treasury and gas account), every other
 *  chain simulated; its deposit addresses are the ones `depositAddress()` made (fresh keys holding no ETH). */
export function hybridOnBase(node: AnvilNode, store: KeyStore, evm: HybridChainsOptions['evm'] = {}): { chains: HybridChains; depositAddress(): Promise<Address> } {
  const depositKeys = new Map<string, Hex>();
  const chains = openHybridChains({
    sim: openSimChains({ file: ':memory:', clock: new ManualClock(), pollMs: 0 }),
    rpc: { base: node.url },
    store,
    treasuryKey: ANVIL_ACCOUNTS[0]!.privateKey as Hex,
    gasKey: ANVIL_ACCOUNTS[1]!.privateKey as Hex,
    depositAddresses: {
      has: async (a) => depositKeys.has(a.toLowerCase()),
      keyOf: async (a) => depositKeys.get(a.toLowerCase()) ?? null,
    },
    pollMs: 0,
    evm: { pollMs: 50, rpcTimeoutMs: 5_000, ...evm },
  });
  return {
    chains,
    async depositAddress() {
      const a = await fundedAccount(node, 0n);
      depositKeys.set(a.address, a.key);
      return a.address;
    },
  };
}
