// The one contract every ActorStore adapter passes (SQLite now, MongoDB with the cluster issue).
import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { SnapshotConflict } from '../../../src/errors.js';
import type { ActorStore } from '../../../src/store/types.js';

export function storeContract(name: string, open: () => Promise<ActorStore>): void {
  describe(`ActorStore contract: ${name}`, () => {
    let store: ActorStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const base = { kind: 'quote' as const, epoch: 0, wakeAt: null, updatedAt: 1 };

    it('an actor never saved loads as null', async () => {
      expect(await store.load('quote', 'nope')).toBeNull();
    });

    it('a saved snapshot loads back equal, bigints included, at version 1', async () => {
      const snapshot = { value: 'quoted', context: { amount: 123456789012345678901234567890n, list: [1n, 'x'] } };
      expect(await store.save({ ...base, id: 'a', snapshot, expectedVersion: 0 })).toBe(1);
      const got = await store.load('quote', 'a');
      expect(got).toMatchObject({ kind: 'quote', id: 'a', version: 1, epoch: 0, wakeAt: null });
      expect(got!.snapshot).toEqual(snapshot);
    });

    it('each save increases the version by one (compare-and-set on the version read)', async () => {
      await store.save({ ...base, id: 'a', snapshot: { n: 1 }, expectedVersion: 0 });
      expect(await store.save({ ...base, id: 'a', snapshot: { n: 2 }, expectedVersion: 1 })).toBe(2);
      expect((await store.load('quote', 'a'))!.snapshot).toEqual({ n: 2 });
    });

    it('a save with a stale version is refused with SnapshotConflict and changes nothing', async () => {
      await store.save({ ...base, id: 'a', snapshot: { n: 1 }, expectedVersion: 0 });
      await store.save({ ...base, id: 'a', snapshot: { n: 2 }, expectedVersion: 1 });
      await expect(store.save({ ...base, id: 'a', snapshot: { n: 3 }, expectedVersion: 1 })).rejects.toBeInstanceOf(
        SnapshotConflict,
      );
      await expect(store.save({ ...base, id: 'a', snapshot: { n: 3 }, expectedVersion: 0 })).rejects.toBeInstanceOf(
        SnapshotConflict,
      );
      expect((await store.load('quote', 'a'))!).toMatchObject({ version: 2, snapshot: { n: 2 } });
    });

    it('creating an actor twice is refused (expected version 0 on an existing actor)', async () => {
      await store.save({ ...base, id: 'a', snapshot: { n: 1 }, expectedVersion: 0 });
      await expect(store.save({ ...base, id: 'a', snapshot: { n: 9 }, expectedVersion: 0 })).rejects.toBeInstanceOf(
        SnapshotConflict,
      );
    });

    it('fencing: a writer with an older epoch than the stored one is refused', async () => {
      await store.save({ ...base, id: 'a', epoch: 5, snapshot: { n: 1 }, expectedVersion: 0 });
      await expect(
        store.save({ ...base, id: 'a', epoch: 4, snapshot: { n: 2 }, expectedVersion: 1 }),
      ).rejects.toBeInstanceOf(SnapshotConflict);
      expect(await store.save({ ...base, id: 'a', epoch: 6, snapshot: { n: 2 }, expectedVersion: 1 })).toBe(2);
      expect((await store.load('quote', 'a'))!.epoch).toBe(6);
    });

    it('of many concurrent saves from one version exactly one wins', async () => {
      await store.save({ ...base, id: 'a', snapshot: { n: 0 }, expectedVersion: 0 });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.save({ ...base, id: 'a', snapshot: { n: i }, expectedVersion: 1 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('kinds are separate namespaces', async () => {
      await store.save({ ...base, id: 'same', snapshot: { k: 'q' }, expectedVersion: 0 });
      await store.save({ ...base, kind: 'order', id: 'same', snapshot: { k: 'o' }, expectedVersion: 0 });
      expect((await store.load('quote', 'same'))!.snapshot).toEqual({ k: 'q' });
      expect((await store.load('order', 'same'))!.snapshot).toEqual({ k: 'o' });
    });

    it('a named sequence hands out 0, 1, 2, ... and never the same value twice, even when asked concurrently', async () => {
      expect(await store.nextSequence('vault:evm')).toBe(0);
      expect(await store.nextSequence('vault:evm')).toBe(1);
      expect(await store.nextSequence('vault:bitcoin')).toBe(0);
      const many = await Promise.all(Array.from({ length: 50 }, () => store.nextSequence('vault:evm')));
      expect(new Set(many).size).toBe(50);
      expect(Math.min(...many)).toBe(2);
    });

    it('keyed values: absent is null, put stores, a second put overwrites, spaces are separate', async () => {
      expect(await store.getKey('deposit', '0xabc')).toBeNull();
      await store.putKey('deposit', '0xabc', 'o1');
      await store.putKey('cursor', '0xabc', '7');
      expect(await store.getKey('deposit', '0xabc')).toBe('o1');
      await store.putKey('deposit', '0xabc', 'o2');
      expect(await store.getKey('deposit', '0xabc')).toBe('o2');
      expect(await store.getKey('cursor', '0xabc')).toBe('7');
    });

    it('durable wake-ups: due() lists actors whose wakeAt has passed, oldest first, and a cleared wakeAt leaves the list', async () => {
      await store.save({ ...base, id: 'late', wakeAt: 300, snapshot: {}, expectedVersion: 0 });
      await store.save({ ...base, id: 'early', wakeAt: 100, snapshot: {}, expectedVersion: 0 });
      await store.save({ ...base, id: 'never', wakeAt: null, snapshot: {}, expectedVersion: 0 });
      expect(await store.due(50, 10)).toEqual([]);
      expect(await store.due(300, 10)).toEqual([
        { kind: 'quote', id: 'early', wakeAt: 100 },
        { kind: 'quote', id: 'late', wakeAt: 300 },
      ]);
      expect(await store.due(300, 1)).toHaveLength(1);
      await store.save({ ...base, id: 'early', wakeAt: null, snapshot: {}, expectedVersion: 1 });
      expect((await store.due(1000, 10)).map((d) => d.id)).toEqual(['late']);
    });
  });
}
