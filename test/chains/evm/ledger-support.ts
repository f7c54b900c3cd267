// Helpers of the EVM ledger tests: an in-memory key store (the ActorStore's putKey/getKey), raw RPC calls, and
// fresh accounts funded with anvil_setBalance so each test starts from known balances and nonces, the hybrid
// facade over one node, and small hand-assembled contracts that move ETH inside a transaction.
import { createPublicClient, createWalletClient, http, type Address, type Hex, type PublicClient } from 'viem';
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

/** Deploys `runtime` (hex EVM bytecode, no 0x) as a contract's code, from a fresh funded account. */
export async function deployCode(node: AnvilNode, runtime: string): Promise<Address> {
  const size = runtime.length / 2;
  if (!Number.isInteger(size) || size > 0xff) throw new Error('deployCode takes up to 255 bytes of runtime code.');
  const len = size.toString(16).padStart(2, '0');
  // PUSH1 len, PUSH1 12, PUSH1 0, CODECOPY (the runtime, after these 12 bytes, to memory 0); PUSH1 len, PUSH1 0, RETURN.
  const data = `0x60${len}600c60003960${len}6000f3${runtime}` as Hex;
  const deployer = await fundedAccount(node);
  const hash = await createWalletClient({ account: privateKeyToAccount(deployer.key), transport: http(node.url) }).sendTransaction({ data, chain: null });
  const receipt = await client(node).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deployCode: the deployment failed.');
  return receipt.contractAddress.toLowerCase() as Address;
}

/** Runtime code that makes `calls` CALLs in a row, the i-th to the address in calldata word i with the value in
 *  calldata word calls + i, going on past a failed one; then `end`: STOP, or REVERT (the whole transaction fails). */
export function payerCode(calls: number, end: 'stop' | 'revert' = 'stop'): string {
  const word = (i: number) => `60${(i * 32).toString(16).padStart(2, '0')}35`; // PUSH1 offset, CALLDATALOAD
  // retSize, retOffset, argsSize, argsOffset = 0; value; address; GAS; CALL; POP (the success flag).
  const call = (i: number) => `6000600060006000${word(calls + i)}${word(i)}5af150`;
  return Array.from({ length: calls }, (_, i) => call(i)).join('') + (end === 'stop' ? '00' : '60006000fd');
}

/** Runtime code of a wallet that pays as payerCode(calls) when called with calldata, and reverts a plain transfer to
 *  it (empty calldata), as a contract without a payable receive function does. */
export function payerRejectingCode(calls: number): string {
  const pays = payerCode(calls);
  // CALLDATASIZE, ISZERO, PUSH1 <the JUMPDEST after the payments>, JUMPI; the payments (ending in STOP); JUMPDEST, REVERT.
  const dest = (5 + pays.length / 2).toString(16).padStart(2, '0');
  return `361560${dest}57${pays}5b60006000fd`;
}

/** Runtime code that selfdestructs to the address in calldata word 0, sending it the contract's whole balance. */
export const SELFDESTRUCT_CODE = '600035ff';
/** Runtime code that reverts whatever it is sent. */
export const REVERT_CODE = '60006000fd';

/** Calldata of a payerCode(n) call: the n addresses, then the n values. */
export function payerCalldata(pays: readonly { to: Address; value: bigint }[]): Hex {
  const w = (v: bigint) => v.toString(16).padStart(64, '0');
  return `0x${pays.map((p) => w(BigInt(p.to))).join('')}${pays.map((p) => w(p.value)).join('')}`;
}
