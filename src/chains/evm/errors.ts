// Typed failures of outgoing EVM transfers. The key of each is remembered with its signed transaction (the outbox), so
// every one of them answers again for a later `send` with the same key until its outcome changes; none re-signs.
import { RouterError } from '../../errors.js';

interface TxDetails {
  chain: string;
  key: string;
  txId: string;
  nonce: number;
  from: string;
}

/** Mined with status `reverted` (e.g. a token transfer above the balance that got past the gas estimate): final,
 *  the nonce and the gas are spent and nothing else moved. */
export class TransferReverted extends RouterError {
  override readonly code = 'transfer_reverted';
  constructor(message: string, override readonly details: TxDetails & { block: number }) {
    super(message, details);
  }
}

/** Signed and stored, but no receipt within the wait (node unreachable, fee too low, gap before its nonce). The same
 *  key later rebroadcasts the same bytes and waits again. */
export class TransferPending extends RouterError {
  override readonly code = 'transfer_pending';
  override readonly retriable = true;
  constructor(message: string, override readonly details: TxDetails) {
    super(message, details);
  }
}

/** The node refuses the stored transaction for a reason other than a duplicate (e.g. too little ETH for the gas).
 *  Retriable: the same key rebroadcasts the same bytes once the cause is fixed. */
export class TransferRejected extends RouterError {
  override readonly code = 'transfer_rejected';
  override readonly retriable = true;
  constructor(message: string, override readonly details: TxDetails & { reason: string }) {
    super(message, details);
  }
}

/** Another transaction was mined at the stored transaction's nonce, so it can never be mined: nothing moved for the
 *  key. Not retried on its own: signing anew could pay twice if that other transaction was ours, so an operator
 *  decides. */
export class TransferDropped extends RouterError {
  override readonly code = 'transfer_dropped';
  constructor(message: string, override readonly details: TxDetails) {
    super(message, details);
  }
}

/** The chain moved while a scan read it (a block's hash changed between reads); the scan is safe to repeat. */
export class ChainMoved extends RouterError {
  override readonly code = 'chain_moved';
  override readonly retriable = true;
}
