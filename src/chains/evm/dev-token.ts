// DevToken (DevToken.sol) on local anvil chains: compiled by `npm run build:contracts` with the npm solc (no
// download, no network) into DevToken.artifact.json, which this module reads; placed with anvil_setCode at the registry's real ERC-20 addresses, its metadata written with anvil_setStorageAt.
// The router then reads and moves tokens at the addresses it uses in production.
import { readFileSync } from 'node:fs';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  numberToHex,
  pad,
  stringToBytes,
  toEventSelector,
  toFunctionSelector,
  toHex,
  type Abi,
  type Address,
  type Hash,
  type Hex,
} from 'viem';
import { assetsOn } from '../../assets/registry.js';
import { CHAINS } from '../../assets/chains.js';
import type { ChainName } from '../../assets/types.js';

/** The ABI of DevToken for viem: viem's erc20Abi (the same parameter names as the source) plus the dev-only mint and
 *  transferBatch. */
export const devTokenAbi = [
  ...erc20Abi,
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferBatch',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'recipients', type: 'address[]' },
      { name: 'amounts', type: 'uint256[]' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

export type DevTokenAbi = typeof devTokenAbi;

/** Storage slots of DevToken's state variables (the layout documented in DevToken.sol). */
export const DEV_TOKEN_SLOTS = { balanceOf: 0n, allowance: 1n, totalSupply: 2n, name: 3n, symbol: 4n, decimals: 5n } as const;

export interface CompiledDevToken {
  /** devTokenAbi, once the compiled ABI was checked to hold every entry of it. */
  abi: DevTokenAbi;
  /** Runtime code: what anvil_setCode places (no constructor runs at a placed address). */
  deployedBytecode: Hex;
}

export interface DevTokenMeta {
  name: string;
  symbol: string;
  decimals: number;
}

/** Where `npm run build:contracts` writes DevToken's compiled form, next to its source; committed. */
export const DEV_TOKEN_ARTIFACT = new URL('./DevToken.artifact.json', import.meta.url);

/** What the artifact holds: the compiler and settings it was built with, solc's ABI and the runtime code. */
export interface DevTokenArtifact {
  compiler: string;
  settings: unknown;
  abi: Abi;
  deployedBytecode: Hex;
}

let loaded: CompiledDevToken | undefined;

/** One ABI entry's identity for comparison: selector, mutability, indexed flags. */
export function signatureOf(item: Abi[number]): string | null {
  if (item.type === 'function') return `f${toFunctionSelector(item)}:${item.stateMutability}`;
  if (item.type === 'event') return `e${toEventSelector(item)}:${item.inputs.map((i) => (i.indexed ? 1 : 0)).join('')}`;
  return null;
}

const isHex = (v: unknown): v is Hex => typeof v === 'string' && /^0x([0-9a-f]{2})+$/.test(v);
const isAbiItem = (v: unknown): v is Abi[number] => v !== null && typeof v === 'object' && 'type' in v && typeof v.type === 'string';

/** The artifact's fields, checked: its ABI must hold every entry of devTokenAbi. */
export function readDevTokenArtifact(text: string): DevTokenArtifact {
  const v: unknown = JSON.parse(text);
  if (v === null || typeof v !== 'object') throw new Error('DevToken.artifact.json is not an object');
  const abi: unknown = 'abi' in v ? v.abi : undefined;
  const code: unknown = 'deployedBytecode' in v ? v.deployedBytecode : undefined;
  const compiler: unknown = 'compiler' in v ? v.compiler : undefined;
  if (!Array.isArray(abi) || !abi.every(isAbiItem)) throw new Error('DevToken.artifact.json: abi is not an ABI');
  if (!isHex(code)) throw new Error('DevToken.artifact.json: deployedBytecode is not hex');
  if (typeof compiler !== 'string') throw new Error('DevToken.artifact.json: compiler is not a string');
  const have = new Set(abi.map(signatureOf));
  for (const item of devTokenAbi) {
    if (!have.has(signatureOf(item))) throw new Error(`DevToken.artifact.json: the ABI lacks ${item.type} ${item.name} of devTokenAbi`);
  }
  return { compiler, settings: 'settings' in v ? v.settings : null, abi, deployedBytecode: code };
}

/**
 * DevToken as built by `npm run build:contracts` (DevToken.artifact.json, read once per process): nothing compiles
 * at run time. A test compiles the source again and checks the artifact is what it gives.
 */
export function devToken(): CompiledDevToken {
  if (loaded) return loaded;
  const artifact = readDevTokenArtifact(readFileSync(DEV_TOKEN_ARTIFACT, 'utf8'));
  loaded = { abi: devTokenAbi, deployedBytecode: artifact.deployedBytecode };
  return loaded;
}

const word = (n: bigint): Hex => pad(numberToHex(n), { size: 32 });

/** The storage words of a Solidity `string` at `slot`: [slot, value] pairs (short and long encodings). */
export function stringStorage(slot: bigint, value: string): [Hex, Hex][] {
  const bytes = stringToBytes(value);
  const len = BigInt(bytes.length);
  if (bytes.length < 32) {
    const inSlot = new Uint8Array(32);
    inSlot.set(bytes);
    inSlot[31] = bytes.length * 2;
    return [[word(slot), toHex(inSlot)]];
  }
  const words: [Hex, Hex][] = [[word(slot), word(len * 2n + 1n)]];
  const base = BigInt(keccak256(word(slot)));
  for (let i = 0; i * 32 < bytes.length; i++) {
    const chunk = new Uint8Array(32);
    chunk.set(bytes.subarray(i * 32, i * 32 + 32));
    words.push([word(base + BigInt(i)), toHex(chunk)]);
  }
  return words;
}

function testClient(rpcUrl: string) {
  return createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
}

/**
 * Places DevToken's runtime code at `address` and writes its name, symbol and decimals. Balances, allowances and
 * the total supply already in storage stay (placing again only rewrites the code and the metadata).
 */
export async function placeDevToken(rpcUrl: string, address: Address, meta: DevTokenMeta): Promise<void> {
  if (!Number.isInteger(meta.decimals) || meta.decimals < 0 || meta.decimals > 255) throw new Error(`DevToken decimals ${meta.decimals} is not a uint8`);
  const { deployedBytecode } = devToken();
  const client = testClient(rpcUrl);
  await client.setCode({ address, bytecode: deployedBytecode });
  const writes = [
    ...stringStorage(DEV_TOKEN_SLOTS.name, meta.name),
    ...stringStorage(DEV_TOKEN_SLOTS.symbol, meta.symbol),
    [word(DEV_TOKEN_SLOTS.decimals), word(BigInt(meta.decimals))] as [Hex, Hex],
  ];
  for (const [index, value] of writes) await client.setStorageAt({ address, index, value });
}

/** The registry's ERC-20s of an EVM chain: every asset with a contract address that is not the native coin. */
export function registryTokens(chain: ChainName): { symbol: string; decimals: number; address: Address }[] {
  return assetsOn(chain)
    .filter((a) => a.address !== null && !a.native)
    .map((a) => ({ symbol: a.symbol, decimals: a.decimals, address: getAddress(a.address!) }));
}

/**
 * Places DevToken at every registry ERC-20 address of `chain`, with the registry's symbol and decimals (name:
 * "<symbol> (dev)"). The node must answer the chain's registry chain id: the registry's addresses are per chain,
 * and tokens placed on the wrong node would pass unnoticed.
 */
export async function placeDevTokens(rpcUrl: string, chain: ChainName): Promise<void> {
  const { kind, evmChainId } = CHAINS[chain];
  if (kind !== 'evm' || evmChainId === undefined) throw new Error(`placeDevTokens: ${chain} is not an EVM chain`);
  const nodeChainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  if (nodeChainId !== evmChainId) throw new Error(`placeDevTokens: the node at ${rpcUrl} is chain ${nodeChainId}, ${chain} is ${evmChainId}`);
  for (const t of registryTokens(chain)) await placeDevToken(rpcUrl, t.address, { name: `${t.symbol} (dev)`, symbol: t.symbol, decimals: t.decimals });
}

/**
 * Mints `amount` (base units) of the DevToken at `token` to `to` with a real transaction, so it emits Transfer
 * from the zero address like any mint, and waits for its receipt. `from` is an account the node signs for
 * (eth_accounts); the node's first account when absent.
 */
export async function mintDevToken(rpcUrl: string, token: Address, to: Address, amount: bigint, opts: { from?: Address } = {}): Promise<Hash> {
  const transport = http(rpcUrl);
  const pub = createPublicClient({ transport, pollingInterval: 50 });
  const from = opts.from ?? (await createWalletClient({ transport }).getAddresses())[0];
  if (!from) throw new Error(`mintDevToken: the node at ${rpcUrl} signs for no account`);
  const wallet = createWalletClient({ account: from, transport });
  const hash = await wallet.writeContract({ address: token, abi: devTokenAbi, functionName: 'mint', args: [to, amount], chain: null });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`mintDevToken: mint of ${amount} at ${token} reverted (${hash})`);
  return hash;
}
