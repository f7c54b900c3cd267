// One chain's view of a Chains facade: every adapter answers `ledger(chain)` with the same calls bound to the chain.
import type { ChainName } from '../assets/types.js';
import type { ChainLedger, Chains } from './types.js';

export function boundLedger(chains: Omit<Chains, 'ledger'>, chain: ChainName, blockMs: number): ChainLedger {
  return {
    chain,
    blockMs,
    height: () => chains.height(chain),
    transfer: (t) => chains.transfer({ ...t, chain }),
    balanceOf: (address, asset) => chains.balanceOf(chain, address, asset),
    transfers: (filter) => chains.transfers({ ...filter, chain }),
    confirmations: (tx) => chains.confirmations({ chain, block: tx.block }),
  };
}
