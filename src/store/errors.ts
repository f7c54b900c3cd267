// Errors of the store port beyond the version compare-and-set (SnapshotConflict, in src/errors.ts).
import { RouterError } from '../errors.js';

/**
 * A write whose outcome is unknown: the server may have applied it or not (a write concern not met within its time
 * limit, a connection lost after the write was sent). It is not a SnapshotConflict: a conflict says the write was
 * refused and nothing changed, and here the new snapshot may be stored. The runtime treats any failed save by
 * stopping the actor; its next message or wake-up reloads the stored snapshot and continues from whichever version
 * is there, which is the only safe answer to "unknown": reload and decide. Retrying blindly could not tell a lost
 * write from an applied one, and the version compare-and-set refuses whichever of the two is stale.
 */
export class StoreOutcomeUnknown extends RouterError {
  override readonly code = 'store_outcome_unknown';
  override readonly retriable = true;
}
