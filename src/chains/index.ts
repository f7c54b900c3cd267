// Public names of the chains module: the port, its special accounts and policies, the simulated adapter.
export type {
  Balance,
  ChainLedger,
  Chains,
  Deposit,
  DepositWatch,
  DepositWatcher,
  OnDeposit,
  Reorg,
  SimChains,
  SimulatedDeposit,
  Transfer,
  TransferFilter,
  TransferRequest,
  WatchOptions,
} from './types.js';
export { MINT_ACCOUNT, POOL_PREFIX, accountKey, isMintAccount, isPoolAccount, isUnbounded, poolAccount } from './accounts.js';
export { BLOCK_MS, REQUIRED_CONFIRMATIONS, confirmationsAt, heightAt } from './blocks.js';
export { InsufficientFunds, simulatedDepositOnRealChain } from './errors.js';
export { simTxId } from './tx-id.js';
export { WatchHub } from './watch-hub.js';
export type { WatchSource } from './watch-hub.js';
export { openSimChains } from './sim-chains.js';
export type { SimChainsOptions } from './sim-chains.js';
