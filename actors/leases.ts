// Shard leases in the JetStream KV bucket `router_leases` (README "A local cluster"). A worker announces
// itself with `worker.<id>` and holds shard n while it holds `shard.<n>`: acquired with `create` (absent key only),
// renewed with `update(key, value, revision)` every third of the TTL; the bucket's max age is the TTL, so the keys
// of a dead worker vanish and its shards are taken by the others. The revision at acquisition is the lease epoch,
// written with every snapshot of the shard (fencing: a stale owner's write is refused by the store). Each worker aims
// for its fair share, ceil(shards / live workers), releasing extra shards and acquiring free ones.
import { hostname } from 'node:os';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { Logger } from '../src/log.js';
import type { ShardDirectory, ShardLease, WorkerInfo } from './shard-directory.js';

export const LEASE_BUCKET = 'router_leases';

export interface LeaseManagerDeps {
  nc: NatsConnection;
  workerId: string;
  shards: number;
  ttlMs: number;
  logger: Logger;
  /** The lease is ours: start serving the shard. Called before the shard counts as owned by epochOf. */
  onAcquire(shard: number, epoch: number): Promise<void>;
  /** The lease is gone or given up: stop serving and drop the shard's actors. */
  onRelease(shard: number): Promise<void>;
  /** Told after each renewal attempt of a held lease (metrics count them). */
  onRenewal?: (ok: boolean) => void;
}

export interface LeaseManager extends ShardDirectory {
  start(): Promise<void>;
  /** Gives every shard back (so others take them at once) and removes this worker's announcement. */
  stop(): Promise<void>;
  /** One round: heartbeat, renew, rebalance. The timer calls it; tests call it to step. */
  tick(): Promise<void>;
  epochOf(shard: number): number | null;
  ownedShards(): number[];
}

interface Held {
  epoch: number;
  revision: number;
  renewedAt: number;
}

interface LeaseValue {
  owner: string;
  epoch: number | null;
}

const shardKey = (n: number) => `shard.${n}`;
const workerKey = (id: string) => `worker.${id}`;

/** Opens (or creates) the lease bucket with the TTL as its max age. */
export async function openLeaseBucket(nc: NatsConnection, ttlMs: number): Promise<KV> {
  return new Kvm(nc).create(LEASE_BUCKET, { ttl: ttlMs, history: 1 });
}

export function createLeaseManager(deps: LeaseManagerDeps): LeaseManager {
  const { workerId, shards, ttlMs, logger } = deps;
  const held = new Map<number, Held>();
  // Mirror of the bucket from a watcher; expiry by max age sends no event, so ages are checked against `created`.
  const mirror = new Map<string, KvEntry>();
  let kv: KV | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let ticking: Promise<void> | null = null;
  // A worker-specific starting point, so workers that start together try different shards first.
  const offset = [...workerId].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % shards;

  const alive = (e: KvEntry | undefined, now: number) => !!e && e.operation === 'PUT' && e.created.getTime() + ttlMs > now;
  const encode = (v: unknown) => JSON.stringify(v);
  const sameLease = (e: KvEntry, epoch: number) => {
    const v = e.json<LeaseValue>();
    return v.owner === workerId && (v.epoch ?? e.revision) === epoch;
  };

  async function watch(bucket: KV): Promise<void> {
    const it = await bucket.watch({ key: '>' });
    void (async () => {
      for await (const e of it) mirror.set(e.key, e);
    })().catch((err) => logger.warn({ err: String(err) }, 'lease watcher ended'));
  }

  async function lose(shard: number, why: string): Promise<void> {
    if (!held.delete(shard)) return;
    logger.warn({ shard, why }, 'shard lease lost');
    await deps.onRelease(shard).catch((err) => logger.error({ shard, err: String(err) }, 'shard release failed'));
  }

  async function give(shard: number): Promise<void> {
    const h = held.get(shard);
    if (!h) return;
    held.delete(shard);
    await deps.onRelease(shard).catch((err) => logger.error({ shard, err: String(err) }, 'shard release failed'));
    await kv!.delete(shardKey(shard), { previousSeq: h.revision }).catch(() => undefined);
    logger.info({ shard }, 'shard given up');
  }

  async function round(): Promise<void> {
    const bucket = kv!;
    const now = Date.now();
    await bucket
      .put(workerKey(workerId), encode({ id: workerId, pid: process.pid, host: hostname() }))
      .catch((err) => logger.warn({ err: String(err) }, 'worker heartbeat failed'));
    // All renewals go out at once and their answers are read in shard order: one burst of messages per round costs
    // this process and nats-server far less CPU than a round trip per shard (128 per round on one worker). A lease
    // counts as renewed from when its update was sent, which is no later than the server's own renewal time.
    const sentAt = Date.now();
    const renewing = [...held].map(([shard, h]) => ({
      shard,
      h,
      outcome: bucket.update(shardKey(shard), encode({ owner: workerId, epoch: h.epoch } satisfies LeaseValue), h.revision).then(
        (revision) => ({ ok: true as const, revision }),
        (err: unknown) => ({ ok: false as const, err }),
      ),
    }));
    for (const { shard, h, outcome } of renewing) {
      const r = await outcome;
      if (r.ok) {
        h.revision = r.revision;
        h.renewedAt = sentAt;
        deps.onRenewal?.(true);
        continue;
      }
      deps.onRenewal?.(false);
      const msg = String(r.err);
      // A renewal the server applied while our connection dropped leaves us one revision behind: the entry still
      // names us with our epoch, so it is ours; adopt its revision.
      const current = /wrong last sequence/i.test(msg) ? await bucket.get(shardKey(shard)).catch(() => null) : null;
      if (current && alive(current, Date.now()) && sameLease(current, h.epoch)) {
        h.revision = current.revision;
        continue;
      }
      // Not renewed: someone else holds it now, or NATS is unreachable. Past 80 % of the TTL we cannot be sure
      // nobody else has it, so we stop before anyone else can start (the store's fencing backs this up).
      if (/wrong last sequence/i.test(msg) || Date.now() - h.renewedAt > ttlMs * 0.8) await lose(shard, msg);
    }
    if (stopped) return;
    const live = new Set([workerId, ...[...mirror.values()].filter((e) => e.key.startsWith('worker.') && alive(e, now)).map((e) => e.key.slice(7))]);
    const fair = Math.ceil(shards / live.size);
    if (held.size > fair) {
      const extra = [...held.keys()].sort((a, b) => b - a).slice(0, held.size - fair);
      for (const s of extra) await give(s);
      return;
    }
    for (let i = 0; i < shards && held.size < fair && !stopped; i++) {
      const shard = (offset + i) % shards;
      if (held.has(shard) || alive(mirror.get(shardKey(shard)), now)) continue;
      let revision: number;
      try {
        revision = await bucket.create(shardKey(shard), encode({ owner: workerId, epoch: null } satisfies LeaseValue));
      } catch {
        continue; // taken by another worker first, or its expiry has not reached the server yet
      }
      try {
        await deps.onAcquire(shard, revision);
        held.set(shard, { epoch: revision, revision, renewedAt: Date.now() });
        logger.info({ shard, epoch: revision }, 'shard acquired');
      } catch (err) {
        logger.error({ shard, err: String(err) }, 'shard could not be served; lease given back');
        await bucket.delete(shardKey(shard), { previousSeq: revision }).catch(() => undefined);
      }
    }
  }

  const mgr: LeaseManager = {
    async start() {
      kv = await openLeaseBucket(deps.nc, ttlMs);
      await watch(kv);
      await mgr.tick();
      timer = setInterval(() => void mgr.tick(), Math.max(200, Math.floor(ttlMs / 3)));
      timer.unref();
    },
    tick() {
      if (!kv || stopped) return Promise.resolve();
      ticking ??= round()
        .catch((err) => logger.error({ err: String(err) }, 'lease round failed'))
        .finally(() => {
          ticking = null;
        });
      return ticking;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      for (const s of [...held.keys()]) await give(s);
      await kv?.delete(workerKey(workerId)).catch(() => undefined);
    },
    epochOf(shard) {
      const h = held.get(shard);
      // Past 80 % of the TTL without a renewal another worker may soon hold it: write nothing more under it.
      if (!h || Date.now() - h.renewedAt > ttlMs * 0.8) return null;
      return h.epoch;
    },
    ownedShards: () => [...held.keys()].sort((a, b) => a - b),
    async shards(): Promise<ShardLease[]> {
      const now = Date.now();
      return Array.from({ length: shards }, (_, shard) => {
        const e = mirror.get(shardKey(shard));
        if (!alive(e, now)) return { shard, owner: null, epoch: null, renewedAt: null };
        const v = e!.json<LeaseValue>();
        return { shard, owner: v.owner, epoch: v.epoch ?? e!.revision, renewedAt: e!.created.getTime() };
      });
    },
    async workers(): Promise<WorkerInfo[]> {
      const now = Date.now();
      return [...mirror.values()]
        .filter((e) => e.key.startsWith('worker.') && alive(e, now))
        .map((e) => ({ ...e.json<Omit<WorkerInfo, 'seenAt'>>(), seenAt: e.created.getTime() }))
        .sort((a, b) => a.id.localeCompare(b.id));
    },
  };
  return mgr;
}
