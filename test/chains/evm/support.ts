// Shared fixture of the EVM tests: a real anvil node answering a registry chain's id, with DevToken placed at
// every registry ERC-20 address of that chain.
import type { Address } from 'viem';
import { getAddress } from 'viem';
import { CHAINS } from '../../../src/assets/chains.js';
import { findAsset } from '../../../src/assets/registry.js';
import type { ChainName } from '../../../src/assets/types.js';
import { ANVIL_ACCOUNTS, startAnvil, type AnvilNode, type StartAnvilOptions } from '../../../src/chains/evm/anvil.js';
import { mintDevToken, placeDevTokens } from '../../../src/chains/evm/dev-token.js';
import { startService, type RunningService } from '../../support/service.js';

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

/** anvil's dev accounts in the roles the EVM end-to-end tests give them. */
export const DEV_ROLES = {
  treasury: ANVIL_ACCOUNTS[0]!,
  gas: ANVIL_ACCOUNTS[1]!,
  user: ANVIL_ACCOUNTS[2]!,
  minter: ANVIL_ACCOUNTS[3]!,
} as const;

/**
 * The embedded service in-process with base on a real anvil node (tokens placed, the treasury holding a float of
 * base USDT, since venues are simulated and the payouts come from it); other chains stay simulated. Stop both in
 * afterAll with `stop()`.
 */
export async function startServiceOnBase(env: Record<string, string> = {}): Promise<{ node: AnvilNode; svc: RunningService; stop(): Promise<void> }> {
  const node = await startDevChain('base');
  try {
    await mintDevToken(node.url, tokenAddress('base', 'USDT'), DEV_ROLES.treasury.address as Address, 1_000_000n * 10n ** 6n, { from: DEV_ROLES.minter.address as Address });
    const svc = await startService({
      ROUTER_EVM_RPC_BASE: node.url,
      ROUTER_EVM_TREASURY_KEY: DEV_ROLES.treasury.privateKey,
      ROUTER_EVM_GAS_KEY: DEV_ROLES.gas.privateKey,
      ROUTER_DEPOSIT_POLL_MS: '100',
      ...env,
    });
    return { node, svc, stop: async () => { await svc.stop(); await node.stop(); } };
  } catch (e) {
    await node.stop();
    throw e;
  }
}

/** Polls Family A's GET /order/{id} until its status is one of `statuses` or `ms` passed; answers the last read. */
export async function untilOrderStatus(svc: RunningService, id: string, statuses: string[], ms: number): Promise<Record<string, any>> {
  const end = Date.now() + ms;
  for (;;) {
    const o = (await (await fetch(`${svc.url}/order/${id}`)).json()) as Record<string, any>;
    if (statuses.includes(o.status) || Date.now() > end) return o;
    await new Promise((r) => setTimeout(r, 50));
  }
}
