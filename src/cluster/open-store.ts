// The store a cluster process uses: MongoDB when configured (MONGODB_URL), else the SQLite file of the data dir,
// shared by the processes of one host (WAL; every save is one IMMEDIATE transaction with the version check).
import { join } from 'node:path';
import type { Config } from '../config.js';
import { openMongoStore, openSqliteStore } from '../store/index.js';
import type { ActorStore } from '../store/types.js';

export async function openConfiguredStore(config: Config): Promise<ActorStore> {
  if (config.store.kind === 'mongodb') return openMongoStore(config.store.mongodbUrl!);
  return openSqliteStore(join(config.dataDir, 'router.sqlite'));
}
