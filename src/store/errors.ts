// Errors of the store port beyond the version compare-and-set (SnapshotConflict, in src/errors.ts).

// Defined beside the other typed errors so it crosses the bus as itself (the codec's class table is there).
export { StoreOutcomeUnknown } from '../errors.js';
