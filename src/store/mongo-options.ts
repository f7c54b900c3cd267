// What the MongoDB adapter pins whatever MONGODB_URL says, read against the driver's own source (mongodb 7:
// src/connection_string.ts parseOptions, src/write_concern.ts, src/db.ts):
// - The driver merges the URL and the client options key by key: for one key the client option wins (it comes first
//   in the value list); different keys are applied in the order of its OPTIONS table, each spreading over the write
//   concern built so far. `j` comes before `writeConcern`, and a plain `{ journal: true }` spreads over `j: false`
//   without replacing it (WriteConcern.fromOptions reads `j ?? journal`): a URL with `j=false` turned journaling off.
//   A WriteConcern instance carries both `j` and `journal`, so its spread replaces them.
// - Keys applied after `writeConcern` (`wtimeout`, `wtimeoutMS`) and `readConcernLevel` still change the client's
//   concerns; `client.db(name, options)` builds the Db's concerns from `{...client.options, ...options}` and nothing
//   else, so concerns given there hold against any URL. The adapter pins them on the client (what every handle
//   inherits) and again on its Db (what its operations use).
// - `timeoutMS` has no effect in this driver (marked ignored and deprecated), so the bound on a write is the write
//   concern's `wtimeoutMS`, enforced by the server.
import { ReadConcern, ReadPreference, WriteConcern, type MongoClientOptions } from 'mongodb';

/** How long a write waits for a journaled majority before the server answers with a write-concern error. Above a
 *  replica set election (seconds), far below the edge's request timeout, so a stuck write fails while its caller
 *  still waits. */
export const WRITE_TIMEOUT_MS = 10_000;

export interface PinnedConcerns {
  /** Journaled majority: a snapshot the runtime answered on survives a primary's failover. */
  writeConcern: WriteConcern;
  /** Majority: never read a write a failover can roll back (an order acting on a deposit that then vanishes). */
  readConcern: ReadConcern;
  /** Primary: a secondary lags, so `load` would read a stale version (a false SnapshotConflict stops the actor),
   *  `due` would fire timers already cleared, and `getKey` would miss a deposit address just stored. */
  readPreference: ReadPreference;
}

export function pinnedConcerns(writeTimeoutMs: number = WRITE_TIMEOUT_MS): PinnedConcerns {
  if (!Number.isSafeInteger(writeTimeoutMs) || writeTimeoutMs < 1) {
    // 0 would mean "wait forever" to the server.
    throw new RangeError(`The MongoDB write timeout must be a positive integer of ms, not ${writeTimeoutMs}.`);
  }
  return {
    writeConcern: new WriteConcern('majority', writeTimeoutMs, true),
    readConcern: new ReadConcern('majority'),
    readPreference: ReadPreference.primary,
  };
}

/** The options of the store's MongoClient; they win over the same settings in the URL. */
export function mongoClientOptions(writeTimeoutMs: number = WRITE_TIMEOUT_MS): MongoClientOptions {
  return {
    ...pinnedConcerns(writeTimeoutMs),
    // A write lost to a failover or a dropped connection is retried once by the driver, under the same transaction
    // number, so the server applies it at most once; a URL saying retryWrites=false must not turn that off.
    retryWrites: true,
    retryReads: true,
  };
}
