// Which shard an actor lives in: FNV-1a (32 bit) of its id modulo the shard count. Every process of a cluster must
// compute the same value for the same id and shard count, so this function and ROUTER_SHARDS must never differ
// between an edge and a worker; changing either moves every actor.
export function shardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** The NATS subject of a shard. */
export const shardSubject = (shard: number) => `router.shard.${shard}`;
