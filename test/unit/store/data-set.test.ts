// A data set keeps the shard count it was written under and the vault seed its deposit addresses derive from: both
// recorded on its first open, and a process configured with another refuses to start rather than leave its actors'
// durable wake-ups unfired or its deposit addresses unsignable. A data set from before the shard record is judged by
// its stored actors' shards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../../src/bus/shard.js';
import { ConfigError } from '../../../src/errors.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { META_SPACE, checkSeedFingerprint, checkShardCount, withShardCount } from '../../../src/store/data-set.js';
import type { ActorStore } from '../../../src/store/types.js';
import { startService } from '../../support/service.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'router-shards-'));
  file = join(dir, 'router.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function withStore<T>(fn: (store: ActorStore) => Promise<T>): Promise<T> {
  const store = openSqliteStore(file);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const saveOrder = (store: ActorStore, id: string, shards: number) =>
  store.save({ kind: 'order', id, snapshot: { id }, expectedVersion: 0, epoch: 0, wakeAt: 1, updatedAt: 1, status: 'awaiting_deposit', shard: shardOf(id, shards) });

describe('the shard count of a data set', () => {
  it('is recorded on the first open; the same count opens again, another is refused naming both', async () => {
    await withStore((s) => checkShardCount(s, 128));
    expect(await withStore((s) => s.getKey(META_SPACE, 'shards'))).toBe('128');
    await withStore((s) => checkShardCount(s, 128));
    const refused = await withStore((s) => checkShardCount(s, 64).then(() => null, (e: unknown) => e));
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/ROUTER_SHARDS is 64, but this data set was written under 128 shards/);
  });

  it('a data set from before the record is judged by its actors: written under 128 shards, 64 is refused and 128 recorded', async () => {
    await withStore(async (s) => {
      for (let i = 0; i < 20; i++) await saveOrder(s, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 128);
    });
    const refused = await withStore((s) => checkShardCount(s, 64).then(() => null, (e: unknown) => e));
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/ROUTER_SHARDS is 64, but order 0{8}-.* is stored in shard \d+, where 64 shards would place it in \d+/);
    expect(await withStore((s) => s.getKey(META_SPACE, 'shards'))).toBeNull();
    await withStore((s) => checkShardCount(s, 128));
    expect(await withStore((s) => s.getKey(META_SPACE, 'shards'))).toBe('128');
  });

  it('withShardCount closes the store it refuses', async () => {
    await withStore((s) => checkShardCount(s, 16));
    let closed = false;
    const store = openSqliteStore(file);
    const spy = Object.assign(Object.create(store) as ActorStore, {
      close: async () => {
        closed = true;
        await store.close();
      },
    });
    await expect(withShardCount(spy, 8)).rejects.toBeInstanceOf(ConfigError);
    expect(closed).toBe(true);
  });

  it('the embedded service refuses to start on a data dir written under another ROUTER_SHARDS', async () => {
    const first = await startService({ ROUTER_SHARDS: '32' }, dir);
    await first.stop();
    await expect(startService({ ROUTER_SHARDS: '16' }, dir)).rejects.toThrow(/ROUTER_SHARDS is 16, but this data set was written under 32 shards/);
    const again = await startService({ ROUTER_SHARDS: '32' }, dir);
    await again.stop();
  });
});

describe('the vault seed of a data set', () => {
  it('its fingerprint is recorded on the first open; the same seed opens again, another is refused naming both', async () => {
    await withStore((s) => checkSeedFingerprint(s, '0a1b2c3d'));
    await withStore((s) => checkSeedFingerprint(s, '0a1b2c3d'));
    await expect(withStore((s) => checkSeedFingerprint(s, 'ffffffff'))).rejects.toThrow(/fingerprint ffffffff\) is not this data set's \(0a1b2c3d\)/);
  });

  it('the embedded service refuses to start on a data dir with another ROUTER_VAULT_SEED', async () => {
    const first = await startService({ ROUTER_VAULT_SEED: '11'.repeat(64) }, dir);
    await first.stop();
    await expect(startService({ ROUTER_VAULT_SEED: '22'.repeat(64) }, dir)).rejects.toBeInstanceOf(ConfigError);
    const again = await startService({ ROUTER_VAULT_SEED: '11'.repeat(64) }, dir);
    await again.stop();
  });
});
