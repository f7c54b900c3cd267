// Typed errors of the chains module.
import { RouterError } from '../errors.js';

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
