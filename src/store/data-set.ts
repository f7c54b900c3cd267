// What a data set is bound to for its life, recorded in the store on its first open and checked by every process
// opening it after (the embedded service, a worker, an edge):
// - its shard count (ROUTER_SHARDS): each stored actor keeps the shard it was written under, and its durable wake-ups
//   (deposit deadlines, step and refund retries) are read by that shard. A process configured with another count would
//   send requests to other shards and never fire those wake-ups: orders holding money would wait unseen;
// - its vault seed (named by its public fingerprint): every deposit address issued derives from it, and a process on
//   another seed would issue addresses the others cannot sign for, and could not sweep the ones already issued.
import { shardOf } from '../bus/shard.js';
import { ConfigError } from '../errors.js';
import { ACTOR_KINDS } from '../protocol/kinds.js';
import type { ActorStore } from './types.js';

export const META_SPACE = 'router-meta';
const SHARDS_KEY = 'shards';
const SEED_KEY = 'seed-fingerprint';
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
  await record(store, SHARDS_KEY, String(shards), (other) => changed(`another process recorded ${other} shards for this data set`, shards));
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

/**
 * Records the vault seed's fingerprint on a data set's first open; refuses (ConfigError) another seed. A data set from
 * before the record takes the seed it is opened with.
 */
export async function checkSeedFingerprint(store: Pick<ActorStore, 'getKey' | 'putKey'>, fingerprint: string): Promise<void> {
  const recorded = await store.getKey(META_SPACE, SEED_KEY);
  const otherSeed = (other: string) =>
    new ConfigError(
      `The vault seed in use (fingerprint ${fingerprint}) is not this data set's (${other}): its deposit addresses derive from that seed, and money sent to them could not be moved. Start with the data set's seed (ROUTER_VAULT_SEED, or the data dir's seed file).`,
    );
  if (recorded === null) await record(store, SEED_KEY, fingerprint, otherSeed);
  else if (recorded !== fingerprint) throw otherSeed(recorded);
}

/** Writes the first record, then reads it back: of processes opening a new data set together with different values,
 *  the ones whose value was overwritten refuse. */
async function record(store: Pick<ActorStore, 'getKey' | 'putKey'>, key: string, value: string, refuse: (other: string) => Error): Promise<void> {
  await store.putKey(META_SPACE, key, value);
  const kept = await store.getKey(META_SPACE, key);
  if (kept !== value) throw refuse(kept ?? 'nothing');
}

function changed(why: string, shards: number): ConfigError {
  return new ConfigError(
    `ROUTER_SHARDS is ${shards}, but ${why}: its actors' durable wake-ups would never fire. Start with the data set's own shard count.`,
  );
}
