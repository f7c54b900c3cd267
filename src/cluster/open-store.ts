// The store a cluster process uses: MongoDB when configured (MONGODB_URL), else the SQLite file of the data dir,
// shared by the processes of one host (WAL; every save is one IMMEDIATE transaction with the version check).
import { join } from 'node:path';
import type { Config } from '../config.js';
import { openMongoStore, openSqliteStore } from '../store/index.js';
import { withShardCount } from '../store/data-set.js';
import type { ActorStore } from '../store/types.js';

/** Opens the store, checking the data set's shard count against the configuration (`checkShardCount`). */
export async function openConfiguredStore(config: Config): Promise<ActorStore> {
  const store = config.store.kind === 'mongodb' ? await openMongoStore(config.store.mongodbUrl!) : openSqliteStore(join(config.dataDir, 'router.sqlite'));
  return withShardCount(store, config.shards);
}
