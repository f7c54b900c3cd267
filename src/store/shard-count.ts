// A data set's shard count (ROUTER_SHARDS) is fixed for its life: each stored actor keeps the shard it was written
// under, and its durable wake-ups (deposit deadlines, step and refund retries) are read by that shard. A process
// configured with another count would send requests to other shards and never fire those wake-ups: orders holding
// money would wait unseen. So the count is recorded on the data set's first open and every process opening it after
// (the embedded service, a worker, an edge) must be configured with the same one.
import { shardOf } from '../bus/shard.js';
import { ConfigError } from '../errors.js';
import { ACTOR_KINDS } from '../protocol/kinds.js';
import type { ActorStore } from './types.js';

export const META_SPACE = 'router-meta';
const SHARDS_KEY = 'shards';
/** Actors of each kind read from a data set that predates the record, to tell the count it was written under. */
const SAMPLE = 100;

/** Records the shard count on a data set's first open; refuses (ConfigError) a count other than the recorded one. */
export async function checkShardCount(store: Pick<ActorStore, 'getKey' | 'putKey' | 'list'>, shards: number): Promise<void> {
  const recorded = await store.getKey(META_SPACE, SHARDS_KEY);
  if (recorded !== null) {
    if (Number(recorded) !== shards) throw changed(`this data set was written under ${recorded} shards`, shards);
    return;
  }
  // A data set from before the count was recorded: each actor was saved with shardOf(id, count), so its actors tell.
  for (const kind of ACTOR_KINDS) {
    for (const a of await store.list({ kind, limit: SAMPLE })) {
      if (a.shard !== shardOf(a.id, shards)) {
        throw changed(`${kind} ${a.id} of this data set is stored in shard ${a.shard}, where ${shards} shards would place it in ${shardOf(a.id, shards)}`, shards);
      }
    }
  }
  await store.putKey(META_SPACE, SHARDS_KEY, String(shards));
}

/** The store once its shard count is checked (`checkShardCount`); closed when the check refuses. */
export async function withShardCount<S extends Pick<ActorStore, 'getKey' | 'putKey' | 'list' | 'close'>>(store: S, shards: number): Promise<S> {
  try {
    await checkShardCount(store, shards);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

function changed(why: string, shards: number): ConfigError {
  return new ConfigError(
    `ROUTER_SHARDS is ${shards}, but ${why}: its actors' durable wake-ups would never fire. Start with the data set's own shard count.`,
  );
}
