// Transaction ids that look like the chain's own: derived from (chain, key), so a key always names the same transaction.
import { createHash } from 'node:crypto';
import { CHAINS } from '../assets/chains.js';
import type { ChainName } from '../assets/types.js';

/** sha256 of chain and key: `0x` + 64 hex on EVM and Hyperliquid, 64 hex on Bitcoin (its txids have no prefix). */
export function simTxId(chain: ChainName, key: string): string {
  const hex = createHash('sha256').update(`${chain}\n${key}`).digest('hex');
  return CHAINS[chain].kind === 'bitcoin' ? hex : `0x${hex}`;
}
