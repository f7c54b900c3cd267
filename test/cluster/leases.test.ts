// Shard leases in a real nats-server's JetStream KV: fair shares as workers join and leave, failover after the TTL,
// and fencing of a stale owner (its lease epoch is older, so the store refuses its snapshot writes).
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseManager, type LeaseManager } from '../../actors/index.js';
import { SnapshotConflict } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/index.js';
import { startTestNats, type TestNats } from '../support/cluster.js';
import { waitUntil } from '../support/poll.js';

const SHARDS = 16;
const TTL = 1500;
let nats: TestNats;
const conns: NatsConnection[] = [];

beforeAll(async () => {
  nats = await startTestNats('leases');
});
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  await nats?.stop();
});

async function manager(id: string, events: string[] = [], bucketTtl = TTL, wrap = (nc: NatsConnection) => nc): Promise<LeaseManager> {
  const nc = await nats.connectAs('worker');
  conns.push(nc);
  return createLeaseManager({
    nc: wrap(nc),
    workerId: id,
    shards: SHARDS,
    ttlMs: bucketTtl,
    logger: createLogger('silent'),
    onAcquire: async (s, epoch) => void events.push(`+${s}@${epoch}`),
    onRelease: async (s) => void events.push(`-${s}`),
  });
}

describe('Shard leases: each worker aims for its fair share; shards move when workers come and go', () => {
  it('a lone worker takes every shard; a second one gets half; when it leaves, the first takes them back', async () => {
    const a = await manager('w-a');
    await a.start();
    expect(a.ownedShards()).toHaveLength(SHARDS);
    const b = await manager('w-b');
    await b.start();
    await waitUntil(async () => {
      await a.tick();
      await b.tick();
      return a.ownedShards().length === SHARDS / 2 && b.ownedShards().length === SHARDS / 2;
    }, 'each worker to hold half the shards', 10_000);
    expect(new Set([...a.ownedShards(), ...b.ownedShards()]).size).toBe(SHARDS);
    // The directory (what `router admin shards` shows) follows the bucket through a watcher.
    await waitUntil(
      async () => (await a.shards()).filter((s) => s.owner === 'w-b').length === b.ownedShards().length,
      "the directory to show w-b's shards",
      10_000,
    );
    expect((await a.shards()).filter((s) => s.owner === 'w-b').map((s) => s.shard)).toEqual(b.ownedShards());
    expect((await a.workers()).map((w) => w.id)).toEqual(['w-a', 'w-b']);
    await b.stop(); // gives its shards back at once
    await waitUntil(async () => {
      await a.tick();
      return a.ownedShards().length === SHARDS;
    }, 'w-a to take every shard back', 10_000);
    await a.stop();
  }, 30_000);

  it('a round sends the renewals of all its leases at once, and keeps every lease and epoch', async () => {
    // Counts the KV requests for shard keys in flight together on the worker's connection.
    let inFlight = 0;
    let most = 0;
    const counting = (nc: NatsConnection) =>
      new Proxy(nc, {
        get(target, prop) {
          const v: unknown = Reflect.get(target, prop, target);
          if (prop !== 'request' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
          return async (subject: string, ...rest: unknown[]) => {
            const lease = subject.includes('router_leases.shard.');
            if (lease) most = Math.max(most, ++inFlight);
            try {
              return await (v as (...a: unknown[]) => Promise<unknown>).call(target, subject, ...rest);
            } finally {
              if (lease) inFlight -= 1;
            }
          };
        },
      });
    const a = await manager('w-burst', [], TTL, counting);
    await a.start();
    expect(a.ownedShards()).toHaveLength(SHARDS);
    const epochs = a.ownedShards().map((s) => a.epochOf(s));
    most = 0;
    await a.tick();
    expect(most).toBe(SHARDS);
    expect(a.ownedShards().map((s) => a.epochOf(s))).toEqual(epochs);
    await a.stop();
  }, 30_000);

  it('a worker that stops renewing (crashed) loses its shards after the TTL; the new owner has a newer epoch', async () => {
    const events: string[] = [];
    const a = await manager('w-crash', events);
    await a.start();
    const epochA = a.epochOf(3)!;
    expect(epochA).toBeGreaterThan(0);
    // "Crash": no more renewals (the timer is stopped by closing its connection without giving shards back).
    await conns.at(-1)!.close();
    expect(a.epochOf(3)).toBe(epochA);
    const b = await manager('w-next');
    await b.start();
    await waitUntil(async () => {
      await b.tick();
      return b.ownedShards().length === SHARDS;
    }, 'w-next to take every shard', 15_000);
    expect(b.epochOf(3)!).toBeGreaterThan(epochA);
    // The stale owner no longer claims an epoch past 80 % of the TTL without a renewal.
    expect(a.epochOf(3)).toBeNull();
    await b.stop();
  }, 30_000);
});

describe('Fencing: a stale owner\'s snapshot write is refused', () => {
  it('after the new owner wrote under its newer epoch, the old owner\'s write fails with SnapshotConflict', async () => {
    const store = openSqliteStore(':memory:');
    const old = 7;
    const fresh = 12;
    await store.save({ kind: 'order', id: 'o', snapshot: { n: 1 }, expectedVersion: 0, epoch: old, wakeAt: null, updatedAt: 1 });
    await store.save({ kind: 'order', id: 'o', snapshot: { n: 2 }, expectedVersion: 1, epoch: fresh, wakeAt: null, updatedAt: 2 });
    // Even with the right version, an older epoch is refused.
    await expect(
      store.save({ kind: 'order', id: 'o', snapshot: { n: 3 }, expectedVersion: 2, epoch: old, wakeAt: null, updatedAt: 3 }),
    ).rejects.toBeInstanceOf(SnapshotConflict);
    expect((await store.load('order', 'o'))!.snapshot).toEqual({ n: 2 });
    await store.close();
  });
});
