// The devnet's chains: one anvil node per devnet EVM chain answering the registry chain id, DevToken at every
// registry token address, and the router's treasury holding a float of every token (the payouts come from it, as
// venues stay simulated and nothing on chain swaps). Shared by `npm run devnet` and the tests that run its setup.
import { parseUnits, type Address, type Hex } from 'viem';
import { CHAINS } from '../../assets/chains.js';
import type { ChainName } from '../../assets/types.js';
import type { Logger } from '../../log.js';
import { COST_TABLE } from '../../routing/costing.js';
import { ANVIL_ACCOUNTS, startAnvil, type AnvilNode } from './anvil.js';
import { mintDevToken, placeDevTokens, registryTokens } from './dev-token.js';

/** The chains `npm run devnet` starts, with their default ports (anvil's usual 8545, then the next). */
export const DEVNET_CHAINS = [
  { chain: 'ethereum', port: 8545 },
  { chain: 'base', port: 8546 },
] as const satisfies readonly { chain: ChainName; port: number }[];

/** The treasury signs every payout; anvil's first dev account (10,000 ETH on a fresh node). */
export const DEVNET_TREASURY = ANVIL_ACCOUNTS[0];
/** The gas account tops up deposit addresses; anvil's second dev account. */
export const DEVNET_GAS = ANVIL_ACCOUNTS[1];
/** The default sender of `router devnet send`: an account that is neither the treasury nor the gas account. */
export const DEVNET_USER = ANVIL_ACCOUNTS[2];

/** Whole units of every registry token minted to the treasury: enough for any demo order, on a dev chain only. */
export const DEVNET_FLOAT_UNITS = '1000000';

/** `ROUTER_EVM_RPC_<CHAIN>` of a chain: the variable the service reads its node's URL from. */
export const rpcEnvName = (chain: ChainName): string => `ROUTER_EVM_RPC_${chain.toUpperCase()}`;

/** The default JSON-RPC URL of a devnet chain (its default port on loopback). */
export function devnetRpcUrl(chain: ChainName): string | null {
  const c = DEVNET_CHAINS.find((d) => d.chain === chain);
  return c ? `http://127.0.0.1:${c.port}` : null;
}

/** The devnet's chains make a block this often besides one per transaction (anvil's mixed mining). */
export const DEVNET_BLOCK_TIME_S = 2;

/**
 * Starts one dev chain: anvil on `port` (a free one when absent) with the registry chain id, DevToken placed, and the
 * treasury given `floatUnits` whole units of every registry token by real mint transactions (signed by the node
 * for the treasury, one of its dev accounts). A failure stops the node it started.
 */
export async function startDevnetChain(chain: ChainName, opts: { port?: number; floatUnits?: string; logger?: Logger; blockTimeSec?: number | null; mixedMining?: boolean } = {}): Promise<AnvilNode> {
  const chainId = CHAINS[chain].evmChainId;
  if (chainId === undefined) throw new Error(`devnet: ${chain} is not an EVM chain`);
  const priced = COST_TABLE.gasPriceWei[chain];
  const node = await startAnvil({
    chainId,
    // Fees as the quotes price them: the base fee starts at half the cost table's gas price (blocks with little in
    // them lower it from there), so the router's sends, capped at that price, are mined at what orders were charged.
    ...(priced !== undefined ? { baseFeePerGas: priced / 2n } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.blockTimeSec != null ? { blockTimeSec: opts.blockTimeSec, mixedMining: opts.mixedMining ?? false } : {}),
  });
  try {
    await placeDevTokens(node.url, chain);
    const units = opts.floatUnits ?? DEVNET_FLOAT_UNITS;
    for (const t of registryTokens(chain)) {
      await mintDevToken(node.url, t.address, DEVNET_TREASURY.address as Address, parseUnits(units, t.decimals), { from: DEVNET_TREASURY.address as Address });
    }
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/** The environment that wires the service (`src/main.ts`, embedded) to the devnet nodes. */
export function devnetServiceEnv(nodes: ReadonlyMap<ChainName, { url: string }>, treasuryKey: Hex = DEVNET_TREASURY.privateKey, gasKey: Hex = DEVNET_GAS.privateKey): Record<string, string> {
  const env: Record<string, string> = { ROUTER_EVM_TREASURY_KEY: treasuryKey, ROUTER_EVM_GAS_KEY: gasKey };
  for (const [chain, node] of nodes) env[rpcEnvName(chain)] = node.url;
  return env;
}
