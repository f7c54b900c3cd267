// Public names of the store: the port, the JSON codec, the SQLite (embedded) and MongoDB (cluster) adapters.
export type {
  ActorStore,
  ActorSummary,
  KeyEntry,
  OrderIndex,
  OrderListRow,
  OrderQuery,
  SaveActor,
  StoredActor,
  Transition,
} from './types.js';
export { HISTORY_LIMIT } from './types.js';
export { encodeJson, decodeJson, roundTrip } from './codec.js';
export { openSqliteStore, type SqliteStore, type SqliteWriteStats } from './sqlite-store.js';
export { openMongoStore } from './mongo-store.js';
export { StoreOutcomeUnknown } from '../errors.js';
