// Shared fixture of the EVM tests: a real anvil node answering a registry chain's id, with DevToken placed at
// every registry ERC-20 address of that chain.
import type { Address } from 'viem';
import { getAddress } from 'viem';
import { CHAINS } from '../../../src/assets/chains.js';
import { findAsset } from '../../../src/assets/registry.js';
import type { ChainName } from '../../../src/assets/types.js';
import { startAnvil, type AnvilNode, type StartAnvilOptions } from '../../../src/chains/evm/anvil.js';
import { placeDevTokens } from '../../../src/chains/evm/dev-token.js';

/** Starts anvil with the chain's registry chain id and places the chain's tokens; stop it in afterAll. */
export async function startDevChain(chain: ChainName, opts: Omit<StartAnvilOptions, 'chainId'> = {}): Promise<AnvilNode> {
  const chainId = CHAINS[chain].evmChainId;
  if (chainId === undefined) throw new Error(`startDevChain: ${chain} is not an EVM chain`);
  const node = await startAnvil({ ...opts, chainId });
  try {
    await placeDevTokens(node.url, chain);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/** The checksummed registry address of a token of the chain (throws for an unknown symbol or a native coin). */
export function tokenAddress(chain: ChainName, symbol: string): Address {
  const a = findAsset(chain, symbol);
  if (!a || a.native || a.address === null) throw new Error(`tokenAddress: no ERC-20 ${symbol} on ${chain} in the registry`);
  return getAddress(a.address);
}
