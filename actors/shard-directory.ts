// What the cluster knows about shards and workers, as the lease manager (actors/leases.ts) keeps it in the JetStream
// KV bucket `router_leases`: keys `shard.<n>` (the owner's lease; its revision at acquisition is the fencing epoch)
// and `worker.<id>` (a live worker's heartbeat). The admin service reads it; nothing else writes it.

export interface ShardLease {
  shard: number;
  /** Worker id holding the lease, or null when no live lease exists. */
  owner: string | null;
  /** KV revision at which the owner acquired the lease: the fencing epoch written with every snapshot. */
  epoch: number | null;
  /** When the lease was last renewed (epoch ms), or null. */
  renewedAt: number | null;
}

export interface WorkerInfo {
  id: string;
  /** Last heartbeat (epoch ms). */
  seenAt: number;
  pid: number;
  host: string;
}

export interface ShardDirectory {
  shards(): Promise<ShardLease[]>;
  workers(): Promise<WorkerInfo[]>;
}
