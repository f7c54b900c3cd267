// Public names of the store: the port, the JSON codec, the SQLite adapter (MongoDB joins with the cluster issue).
export type { ActorStore, SaveActor, StoredActor } from './types.js';
export { encodeJson, decodeJson, roundTrip } from './codec.js';
export { openSqliteStore } from './sqlite-store.js';
