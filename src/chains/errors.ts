// Typed errors of the chains module.
import { InvalidRequest, RouterError } from '../errors.js';

/**
 * A bounded account was asked to send more than it holds. Nothing moved and the key is not remembered.
 * Not retriable as such: the same transfer fails again until the account is funded. Amounts in `details` are
 * decimal strings so the error survives any JSON logger.
 */
export class InsufficientFunds extends RouterError {
  override readonly code = 'insufficient_funds';
  constructor(
    message: string,
    override readonly details: { chain: string; asset: string; address: string; balance: string; amount: string },
  ) {
    super(message, details);
  }
}

/**
 * A simulated deposit asked for on a chain wired to a real node (ROUTER_EVM_RPC_<CHAIN>): refused, since minting it
 * into the books would credit money the chain never received. The user's money must come on chain.
 */
export function simulatedDepositOnRealChain(chain: string): InvalidRequest {
  return new InvalidRequest(`${chain} is a real chain here: a simulated deposit is refused; send a real transaction to the deposit address instead.`, 'chain');
}
