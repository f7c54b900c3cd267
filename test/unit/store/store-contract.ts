// The one contract every ActorStore adapter passes (SQLite, MongoDB).
import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { SnapshotConflict } from '../../../src/errors.js';
import { LIST_STATUSES, type ListStatus } from '../../../src/orders/summary.js';
import { HISTORY_LIMIT, type ActorStore, type OrderIndex, type OrderQuery, type SaveActor } from '../../../src/store/types.js';
import { WriteTicket } from '../../../src/store/write-ticket.js';
import { orderIndex, orderSummary, settledSummary } from './order-fixtures.js';

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

    // Helpers for the cluster-era fields: save a fresh actor, or save again over what is stored.
    const create = (a: Partial<SaveActor> & { id: string }) =>
      store.save({ ...base, snapshot: {}, expectedVersion: 0, ...a });
    const resave = async (a: Partial<SaveActor> & { id: string; kind: SaveActor['kind'] }) => {
      const cur = (await store.load(a.kind, a.id))!;
      return store.save({ ...base, snapshot: {}, ...a, expectedVersion: cur.version });
    };
    const idx = orderIndex;
    const order = (id: string, index: OrderIndex | null, status = 'awaiting_deposit') =>
      create({ kind: 'order', id, status, index });

    describe('shard, status and history are stored beside the snapshot', () => {
      it('an actor saved without a shard is in shard 0; one saved with a shard keeps it', async () => {
        await create({ id: 'a' });
        await create({ id: 'b', shard: 77 });
        expect((await store.load('quote', 'a'))!.shard).toBe(0);
        expect((await store.load('quote', 'b'))!.shard).toBe(77);
      });

      it('a new actor given no status or history loads with status null and an empty history', async () => {
        await create({ id: 'a' });
        expect(await store.load('quote', 'a')).toMatchObject({ status: null, history: [] });
      });

      it('a saved history replaces the stored one and loads back in order', async () => {
        await create({ id: 'a', status: 'pricing', history: [{ status: 'pricing', at: 10 }] });
        expect(await store.load('quote', 'a')).toMatchObject({ status: 'pricing', history: [{ status: 'pricing', at: 10 }] });
        const history = [
          { status: 'pricing', at: 10 },
          { status: 'quoted', at: 20 },
          { status: 'expired', at: 30 },
        ];
        await resave({ kind: 'quote', id: 'a', status: 'expired', history });
        expect(await store.load('quote', 'a')).toMatchObject({ status: 'expired', history });
        await resave({ kind: 'quote', id: 'a', history: [{ status: 'expired', at: 30 }] });
        expect((await store.load('quote', 'a'))!.history).toEqual([{ status: 'expired', at: 30 }]);
      });

      it('a save that leaves out status, history and index keeps the stored ones; null status clears it', async () => {
        await order('o', idx({ createdAt: 5 }), 'funded');
        await resave({ kind: 'order', id: 'o', history: [{ status: 'funded', at: 5 }] });
        await resave({ kind: 'order', id: 'o' });
        expect(await store.load('order', 'o')).toMatchObject({ status: 'funded', history: [{ status: 'funded', at: 5 }] });
        expect((await store.listOrders({ limit: 10 })).map((r) => r.id)).toEqual(['o']);
        await resave({ kind: 'order', id: 'o', status: null });
        expect((await store.load('order', 'o'))!.status).toBeNull();
      });
    });

    describe('durable wake-ups by shard', () => {
      it('a worker sees only the timers of its shards, oldest first', async () => {
        await create({ id: 's1-late', shard: 1, wakeAt: 300 });
        await create({ id: 's2', shard: 2, wakeAt: 100 });
        await create({ id: 's3', shard: 3, wakeAt: 200 });
        await create({ id: 's1-early', shard: 1, wakeAt: 50 });
        await create({ id: 's1-idle', shard: 1, wakeAt: null });
        expect((await store.due(1000, 10, [1, 3])).map((d) => d.id)).toEqual(['s1-early', 's3', 's1-late']);
        expect((await store.due(1000, 10, [2]))).toEqual([{ kind: 'quote', id: 's2', wakeAt: 100 }]);
        expect((await store.due(250, 10, [1, 3])).map((d) => d.id)).toEqual(['s1-early', 's3']);
        expect((await store.due(1000, 2, [1, 3])).map((d) => d.id)).toEqual(['s1-early', 's3']);
      });

      it('the next page starts strictly after the last row of the page before, with and without shards', async () => {
        await create({ id: 'b', shard: 1, wakeAt: 0 });
        await create({ id: 'a', shard: 1, wakeAt: 0 });
        await create({ id: 'c', shard: 2, wakeAt: 0 });
        await create({ id: 'd', shard: 1, wakeAt: 100 });
        await create({ id: 'e', shard: 1, wakeAt: 900 });
        const first = await store.due(1000, 2);
        expect(first.map((d) => d.id)).toEqual(['a', 'b']);
        expect((await store.due(1000, 2, undefined, first[1])).map((d) => d.id)).toEqual(['c', 'd']);
        expect((await store.due(1000, 2, undefined, { kind: 'quote', id: 'd', wakeAt: 100 })).map((d) => d.id)).toEqual(['e']);
        expect((await store.due(1000, 2, [1], { kind: 'quote', id: 'b', wakeAt: 0 })).map((d) => d.id)).toEqual(['d', 'e']);
        expect(await store.due(500, 2, [1], { kind: 'quote', id: 'd', wakeAt: 100 })).toEqual([]);
      });

      it('a worker owning no shards sees no timers; without a shard list every timer is seen', async () => {
        await create({ id: 'a', shard: 1, wakeAt: 100 });
        await create({ id: 'b', shard: 9, wakeAt: 200 });
        expect(await store.due(1000, 10, [])).toEqual([]);
        expect((await store.due(1000, 10)).map((d) => d.id)).toEqual(['a', 'b']);
      });
    });

    describe('admin listing: actors by kind and status, and counts', () => {
      it('list gives the actors of one kind by id ascending, each with its summary', async () => {
        await create({ id: 'q2', status: 'quoted', shard: 4, wakeAt: 90, updatedAt: 7, epoch: 3 });
        await create({ id: 'q1', status: 'pricing' });
        await order('o1', null);
        expect(await store.list({ kind: 'quote', limit: 10 })).toEqual([
          { kind: 'quote', id: 'q1', status: 'pricing', version: 1, epoch: 0, shard: 0, wakeAt: null, updatedAt: 1 },
          { kind: 'quote', id: 'q2', status: 'quoted', version: 1, epoch: 3, shard: 4, wakeAt: 90, updatedAt: 7 },
        ]);
        expect((await store.list({ kind: 'order', limit: 10 })).map((s) => s.id)).toEqual(['o1']);
      });

      it('list pages with afterId: each page starts strictly after the last id, no actor twice or skipped', async () => {
        const ids = ['a', 'b', 'c', 'd', 'e'];
        for (const id of [...ids].reverse()) await create({ id });
        const seen: string[] = [];
        let afterId: string | undefined;
        for (;;) {
          const page = await store.list({ kind: 'quote', limit: 2, ...(afterId === undefined ? {} : { afterId }) });
          if (page.length === 0) break;
          seen.push(...page.map((s) => s.id));
          afterId = page.at(-1)!.id;
        }
        expect(seen).toEqual(ids);
        expect((await store.list({ kind: 'quote', limit: 10, afterId: 'b' })).map((s) => s.id)).toEqual(['c', 'd', 'e']);
      });

      it('list with statuses gives only actors in any of them; an empty status list gives none', async () => {
        await create({ id: 'a', status: 'quoted' });
        await create({ id: 'b', status: 'expired' });
        await create({ id: 'c', status: 'refused' });
        await create({ id: 'd' });
        expect((await store.list({ kind: 'quote', status: ['quoted', 'refused'], limit: 10 })).map((s) => s.id)).toEqual([
          'a',
          'c',
        ]);
        expect((await store.list({ kind: 'quote', status: ['expired'], limit: 10, afterId: 'a' })).map((s) => s.id)).toEqual([
          'b',
        ]);
        expect(await store.list({ kind: 'quote', status: [], limit: 10 })).toEqual([]);
      });

      it('counts give the number of actors per kind and status, a status never given counted as null', async () => {
        await create({ id: 'a', status: 'quoted' });
        await create({ id: 'b', status: 'quoted' });
        await create({ id: 'c' });
        await order('o1', null, 'funded');
        await order('o2', null, 'awaiting_deposit');
        await order('o3', null, 'funded');
        const key = (c: { kind: string; status: string | null }) => `${c.kind}/${c.status}`;
        const counts = [...(await store.counts())].sort((x, y) => key(x).localeCompare(key(y)));
        expect(counts).toEqual([
          { kind: 'order', status: 'awaiting_deposit', count: 1 },
          { kind: 'order', status: 'funded', count: 2 },
          { kind: 'quote', status: null, count: 1 },
          { kind: 'quote', status: 'quoted', count: 2 },
        ]);
      });

      it('an empty store has no counts', async () => {
        expect(await store.counts()).toEqual([]);
      });
    });

    describe('order index: listOrders (Family C GET /orders)', () => {
      it('lists indexed orders newest first, equal creation times by id descending, with their index fields', async () => {
        await order('o1', idx({ createdAt: 100, sender: '0xs', refund: '0xr', orderType: 'limit' }), 'funded');
        await order('o3', idx({ createdAt: 300 }));
        await order('o2a', idx({ createdAt: 200 }));
        await order('o2b', idx({ createdAt: 200 }));
        const rows = await store.listOrders({ limit: 10 });
        expect(rows.map((r) => r.id)).toEqual(['o3', 'o2b', 'o2a', 'o1']);
        expect(rows[3]).toEqual({
          id: 'o1',
          status: 'funded',
          updatedAt: 1,
          sender: '0xs',
          destination: '0xdest',
          refund: '0xr',
          orderType: 'limit',
          createdAt: 100,
          listStatus: 'unfilled',
          summary: orderSummary(),
        });
        expect((await store.listOrders({ limit: 2 })).map((r) => r.id)).toEqual(['o3', 'o2b']);
      });

      it('each filter narrows the list: sender, destination, refund, order type, and all together', async () => {
        await order('a', idx({ createdAt: 1, sender: '0xs1', destination: '0xd1', refund: '0xr1', orderType: 'market' }));
        await order('b', idx({ createdAt: 2, sender: '0xs2', destination: '0xd1', refund: '0xr2', orderType: 'limit' }));
        await order('c', idx({ createdAt: 3, sender: '0xs1', destination: '0xd2', refund: '0xr1', orderType: 'limit' }));
        await order('d', idx({ createdAt: 4 }));
        const ids = async (q: Omit<Parameters<ActorStore['listOrders']>[0], 'limit'>) =>
          (await store.listOrders({ limit: 10, ...q })).map((r) => r.id);
        expect(await ids({ sender: '0xs1' })).toEqual(['c', 'a']);
        expect(await ids({ destination: '0xd1' })).toEqual(['b', 'a']);
        expect(await ids({ refund: '0xr2' })).toEqual(['b']);
        expect(await ids({ orderType: 'limit' })).toEqual(['c', 'b']);
        expect(await ids({ orderType: 'market' })).toEqual(['d', 'a']);
        expect(await ids({ sender: '0xs1', destination: '0xd2', refund: '0xr1', orderType: 'limit' })).toEqual(['c']);
        expect(await ids({ sender: '0xs1', orderType: 'market', destination: '0xd2' })).toEqual([]);
        expect(await ids({ sender: '0xnobody' })).toEqual([]);
      });

      it('a status filter matches any status of the set; an empty set matches none', async () => {
        await order('a', idx({ createdAt: 1 }), 'awaiting_deposit');
        await order('b', idx({ createdAt: 2 }), 'funded');
        await order('c', idx({ createdAt: 3 }), 'delivered');
        await order('d', idx({ createdAt: 4 }), 'refunded');
        const ids = async (status: string[]) => (await store.listOrders({ limit: 10, status })).map((r) => r.id);
        expect(await ids(['delivered', 'awaiting_deposit'])).toEqual(['c', 'a']);
        expect(await ids(['funded'])).toEqual(['b']);
        expect(await ids([])).toEqual([]);
        expect((await store.listOrders({ limit: 10, status: ['funded'], destination: '0xdest' })).map((r) => r.id)).toEqual(['b']);
      });

      it('the after cursor is strict: paging walks rows of equal creation time without repeating or skipping one', async () => {
        const created = [
          ['a', 100],
          ['b', 200],
          ['c', 200],
          ['d', 200],
          ['e', 300],
          ['f', 200],
        ] as const;
        for (const [id, createdAt] of created) await order(id, idx({ createdAt }));
        const all = (await store.listOrders({ limit: 10 })).map((r) => r.id);
        expect(all).toEqual(['e', 'f', 'd', 'c', 'b', 'a']);
        for (const size of [1, 2, 4]) {
          const seen: string[] = [];
          let after: { createdAt: number; id: string } | undefined;
          for (;;) {
            const page = await store.listOrders({ limit: size, ...(after ? { after } : {}) });
            if (page.length === 0) break;
            seen.push(...page.map((r) => r.id));
            const last = page.at(-1)!;
            after = { createdAt: last.createdAt, id: last.id };
          }
          expect(seen).toEqual(all);
        }
        expect((await store.listOrders({ limit: 10, after: { createdAt: 200, id: 'd' } })).map((r) => r.id)).toEqual([
          'c',
          'b',
          'a',
        ]);
        // A cursor naming no stored row still places the page: after (200, 'cc') come 'c', 'b', 'a'.
        expect((await store.listOrders({ limit: 10, after: { createdAt: 200, id: 'cc' } })).map((r) => r.id)).toEqual([
          'c',
          'b',
          'a',
        ]);
        expect(await store.listOrders({ limit: 10, after: { createdAt: 100, id: 'a' } })).toEqual([]);
      });

      it('only orders with an index are listed: quotes never (even given an index), orders without one neither', async () => {
        await order('indexed', idx({ createdAt: 1 }));
        await order('unindexed', null);
        await create({ kind: 'order', id: 'omitted' });
        await create({ kind: 'quote', id: 'q', index: idx({ createdAt: 2 }) });
        expect((await store.listOrders({ limit: 10 })).map((r) => r.id)).toEqual(['indexed']);
        expect((await store.listOrders({ limit: 10, destination: '0xdest' })).map((r) => r.id)).toEqual(['indexed']);
      });

      it('a new index replaces the stored one, and a null index takes the order out of the list', async () => {
        await order('o', idx({ createdAt: 1 }));
        await resave({ kind: 'order', id: 'o', index: idx({ createdAt: 1, sender: '0xfirst', refund: '0xfirst' }) });
        expect(await store.listOrders({ limit: 10, sender: '0xfirst' })).toMatchObject([
          { id: 'o', sender: '0xfirst', refund: '0xfirst' },
        ]);
        await resave({ kind: 'order', id: 'o', index: null });
        expect(await store.listOrders({ limit: 10 })).toEqual([]);
      });
    });

    describe('order index: list status and summary', () => {
      it('the summary round-trips exactly: bigints beyond 2^64, nulls, the nested route; a new one replaces it', async () => {
        const quoted = orderSummary();
        const settled = settledSummary();
        await order('q', idx({ createdAt: 1, summary: quoted }));
        await order('s', idx({ createdAt: 2, listStatus: 'settled', summary: settled }), 'delivered');
        const rows = await store.listOrders({ limit: 10 });
        expect(rows.map((r) => [r.id, r.listStatus])).toEqual([
          ['s', 'settled'],
          ['q', 'unfilled'],
        ]);
        expect(rows[0]!.summary).toStrictEqual(settled);
        expect(rows[1]!.summary).toStrictEqual(quoted);
        // Exactness, not just equality under coercion: bigints stay bigints, nulls stay null.
        const [, q] = rows;
        expect(typeof q!.summary.quotedIn).toBe('bigint');
        expect(q!.summary.route.steps[1]!.venueAmountOut).toBe(18_446_744_073_709_551_617n);
        expect(q!.summary.route.delivery).toStrictEqual({
          amountIn: 18_446_744_073_709_551_616n,
          executionCost: 1n,
          amountOut: 18_446_744_073_709_551_615n,
        });
        expect(q!.summary.maxIn).toBeNull();
        expect(q!.summary.executedFees).toBeNull();
        expect(rows[0]!.summary.executedFees).toBe(0n);
        await resave({ kind: 'order', id: 'q', index: idx({ createdAt: 1, listStatus: 'settled', summary: settled }) });
        expect((await store.listOrders({ limit: 10, listStatus: 'settled' })).map((r) => [r.id, r.summary])).toEqual([
          ['s', settled],
          ['q', settled],
        ]);
      });

      it('a save that leaves out the index keeps the list status and summary; a new index replaces both', async () => {
        const settled = settledSummary();
        await order('o', idx({ createdAt: 7, listStatus: 'settled', summary: settled, sender: '0xs' }), 'delivered');
        await resave({ kind: 'order', id: 'o', snapshot: { n: 2 }, wakeAt: 99 });
        await resave({ kind: 'order', id: 'o', status: 'delivered', history: [{ status: 'delivered', at: 9 }] });
        const kept = await store.listOrders({ limit: 10, listStatus: 'settled' });
        expect(kept).toEqual([
          { id: 'o', status: 'delivered', updatedAt: 1, ...idx({ createdAt: 7, listStatus: 'settled', summary: settled, sender: '0xs' }) },
        ]);
        expect(kept[0]!.summary).toStrictEqual(settled);
        expect(await store.listOrders({ limit: 10, listStatus: 'settled', sender: '0xs' })).toHaveLength(1);
        await resave({ kind: 'order', id: 'o', index: idx({ createdAt: 7, listStatus: 'refunded', sender: '0xs' }) });
        expect(await store.listOrders({ limit: 10, listStatus: 'settled' })).toEqual([]);
        expect(await store.listOrders({ limit: 10, listStatus: 'refunded' })).toMatchObject([
          { id: 'o', listStatus: 'refunded', summary: orderSummary() },
        ]);
      });

      it('the listStatus filter alone and beside destination, sender and refund, paging within each', async () => {
        // 24 orders: every status, two destinations, senders and refunds, creation times with ties.
        const made: Array<{ id: string; index: OrderIndex }> = [];
        for (let i = 0; i < 24; i++) {
          const index = idx({
            createdAt: 100 + Math.floor(i / 3),
            listStatus: LIST_STATUSES[i % LIST_STATUSES.length]!,
            destination: `0xd${i % 2}`,
            sender: i % 4 === 3 ? null : `0xs${i % 3}`,
            refund: i % 5 === 0 ? `0xr${i % 2}` : null,
            summary: orderSummary({ quoteId: `quote-${i}`, quotedIn: BigInt(i) * 10n ** 30n }),
          });
          const id = `o${String(i).padStart(2, '0')}`;
          made.push({ id, index });
          await order(id, index);
        }
        const newestFirst = [...made].sort((x, y) => y.index.createdAt - x.index.createdAt || (x.id < y.id ? 1 : -1));
        const expected = (q: Omit<OrderQuery, 'limit' | 'after'>) =>
          newestFirst
            .filter(({ index: o }) =>
              (q.listStatus === undefined || o.listStatus === q.listStatus) &&
              (q.destination === undefined || o.destination === q.destination) &&
              (q.sender === undefined || o.sender === q.sender) &&
              (q.refund === undefined || o.refund === q.refund) &&
              (q.status === undefined || q.status.includes('awaiting_deposit')))
            .map((o) => o.id);
        const walk = async (q: Omit<OrderQuery, 'limit' | 'after'>, size: number) => {
          const seen: string[] = [];
          let after: OrderQuery['after'];
          for (;;) {
            const page = await store.listOrders({ ...q, limit: size, ...(after ? { after } : {}) });
            if (page.length === 0) break;
            for (const r of page) if (q.listStatus !== undefined) expect(r.listStatus).toBe(q.listStatus);
            seen.push(...page.map((r) => r.id));
            after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
          }
          return seen;
        };
        const queries: Array<Omit<OrderQuery, 'limit' | 'after'>> = [
          ...LIST_STATUSES.map((listStatus: ListStatus) => ({ listStatus })),
          { listStatus: 'unfilled', destination: '0xd0' },
          { listStatus: 'filled', destination: '0xd1' },
          { listStatus: 'filled', destination: '0xd0' },
          { listStatus: 'cancelled', sender: '0xs2' },
          { listStatus: 'unfilled', refund: '0xr0' },
          { listStatus: 'failed', refund: '0xr1', destination: '0xd1' },
          { listStatus: 'settled', destination: '0xd1', sender: '0xs1', refund: '0xr1' },
          { listStatus: 'refunded', destination: '0xd1', status: ['awaiting_deposit'] },
        ];
        for (const q of queries) {
          const want = expected(q);
          expect(await walk(q, 100), JSON.stringify(q)).toEqual(want);
          expect(await walk(q, 2), JSON.stringify(q)).toEqual(want);
        }
        // Each status holds 4 of the 24; together they are every order once.
        expect(LIST_STATUSES.map((listStatus) => expected({ listStatus }).length)).toEqual([4, 4, 4, 4, 4, 4]);
        expect(expected({ listStatus: 'unfilled', destination: '0xd0' })).toEqual(['o18', 'o12', 'o06', 'o00']);
        expect(expected({ listStatus: 'filled', destination: '0xd0' })).toEqual([]);
        expect(await store.listOrders({ limit: 10, listStatus: 'settled', destination: '0xnobody' })).toEqual([]);
      });

      it('keyset paging over 1,000 orders while new ones are created: every order present at the start once, newest first, none of the new', async () => {
        const count = 1000;
        const at = (i: number) => 1_000_000 + Math.floor(i / 4) * 10; // four orders per creation time
        const initial: string[] = [];
        for (let i = 0; i < count; i++) {
          const id = `o${(i * 7919) % count}`; // creation order unrelated to id order
          initial.push(id);
          await order(id, idx({ createdAt: at(i), listStatus: LIST_STATUSES[i % 6]! }));
        }
        const byCreation = new Map(initial.map((id, i) => [id, at(i)]));
        const newestFirst = [...initial].sort((x, y) => byCreation.get(y)! - byCreation.get(x)! || (x < y ? 1 : -1));
        let fresh = 0;
        const createNewer = async () => {
          for (let k = 0; k < 3; k++) {
            await order(`new${fresh}`, idx({ createdAt: at(count) + fresh * 10, listStatus: 'unfilled' }));
            fresh++;
          }
        };
        const walk = async (q: Omit<OrderQuery, 'limit' | 'after'>, size: number) => {
          const seen: string[] = [];
          let after: OrderQuery['after'];
          for (;;) {
            const page = await store.listOrders({ ...q, limit: size, ...(after ? { after } : {}) });
            if (page.length === 0) break;
            expect(page.length).toBeLessThanOrEqual(size);
            seen.push(...page.map((r) => r.id));
            after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
            await createNewer();
          }
          return seen;
        };
        const all = await walk({}, 100);
        expect(all).toHaveLength(count);
        expect(all).toEqual(newestFirst);
        expect(all.some((id) => id.startsWith('new'))).toBe(false);
        // The orders created during the first walk (all unfilled, newest last) exist when the second one begins.
        const createdSoFar = Array.from({ length: fresh }, (_, k) => `new${fresh - 1 - k}`);
        const unfilled = await walk({ listStatus: 'unfilled' }, 37);
        expect(unfilled).toEqual([...createdSoFar, ...newestFirst.filter((id) => initial.indexOf(id) % 6 === 0)]);
        expect(new Set(unfilled).size).toBe(unfilled.length);
        // The new orders are all there, ahead of the older ones, for a walk starting now.
        const first = await store.listOrders({ limit: fresh + 1 });
        expect(first.slice(0, fresh).every((r) => r.id.startsWith('new'))).toBe(true);
        expect(first.at(-1)!.id).toBe(newestFirst[0]);
      });
    });

    describe('compare-and-set at the edges: creation races, unknown actors, refused writes', () => {
      it('of many concurrent creations of one actor (expected version 0) exactly one wins and its snapshot is stored', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => store.save({ ...base, id: 'new', snapshot: { n: i }, expectedVersion: 0 })),
        );
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SnapshotConflict);
        expect(await store.load('quote', 'new')).toMatchObject({ version: 1, snapshot: { n: won[0] } });
      });

      it('a save at a version above 0 of an actor never saved is refused and creates nothing', async () => {
        await expect(store.save({ ...base, id: 'ghost', snapshot: { n: 1 }, expectedVersion: 1 })).rejects.toBeInstanceOf(
          SnapshotConflict,
        );
        await expect(store.save({ ...base, id: 'ghost', snapshot: { n: 1 }, expectedVersion: 7, wakeAt: 5 })).rejects.toBeInstanceOf(
          SnapshotConflict,
        );
        expect(await store.load('quote', 'ghost')).toBeNull();
        expect(await store.due(1000, 10)).toEqual([]);
        expect(await store.list({ kind: 'quote', limit: 10 })).toEqual([]);
      });

      it('a save refused for its epoch changes nothing: snapshot, version, epoch, wake-up, status, history and index stay', async () => {
        const index = idx({ createdAt: 10, sender: '0xs' });
        await store.save({
          ...base,
          kind: 'order',
          id: 'o',
          epoch: 5,
          snapshot: { n: 1 },
          expectedVersion: 0,
          wakeAt: 100,
          shard: 3,
          status: 'funded',
          history: [{ status: 'funded', at: 1 }],
          index,
        });
        const before = await store.load('order', 'o');
        await expect(
          store.save({
            ...base,
            kind: 'order',
            id: 'o',
            epoch: 4,
            snapshot: { n: 2 },
            expectedVersion: 1,
            wakeAt: null,
            shard: 9,
            status: 'delivered',
            history: [],
            index: null,
          }),
        ).rejects.toBeInstanceOf(SnapshotConflict);
        expect(await store.load('order', 'o')).toEqual(before);
        expect(await store.due(1000, 10)).toEqual([{ kind: 'order', id: 'o', wakeAt: 100 }]);
        expect(await store.listOrders({ limit: 10 })).toEqual([{ id: 'o', status: 'funded', updatedAt: 1, ...index }]);
        expect(await store.counts()).toEqual([{ kind: 'order', status: 'funded', count: 1 }]);
      });
    });

    describe('durable wake-ups: moving timers and ties', () => {
      it('a moved wakeAt is where due() finds the actor: later leaves the earlier window, earlier joins it', async () => {
        await create({ id: 'a', wakeAt: 100 });
        await create({ id: 'b', wakeAt: 200 });
        await resave({ kind: 'quote', id: 'a', wakeAt: 500 });
        expect(await store.due(300, 10)).toEqual([{ kind: 'quote', id: 'b', wakeAt: 200 }]);
        expect(await store.due(500, 10)).toEqual([
          { kind: 'quote', id: 'b', wakeAt: 200 },
          { kind: 'quote', id: 'a', wakeAt: 500 },
        ]);
        await resave({ kind: 'quote', id: 'a', wakeAt: 50 });
        expect(await store.due(100, 10)).toEqual([{ kind: 'quote', id: 'a', wakeAt: 50 }]);
        expect((await store.due(100, 10, [0])).map((d) => d.id)).toEqual(['a']);
        expect((await store.load('quote', 'a'))!.wakeAt).toBe(50);
      });

      it('equal wakeAt under a limit: ties go by kind then id, so every poll gets the same batch until it is cleared', async () => {
        for (const id of ['e', 'b', 'd', 'a', 'c']) await create({ id, wakeAt: 100, shard: id === 'c' ? 1 : 0 });
        await create({ kind: 'order', id: 'z', wakeAt: 100 });
        await create({ id: 'early', wakeAt: 99 });
        const batch = async (limit: number, shards?: number[]) =>
          (await store.due(1000, limit, shards)).map((d) => `${d.kind}/${d.id}`);
        expect(await batch(10)).toEqual(['quote/early', 'order/z', 'quote/a', 'quote/b', 'quote/c', 'quote/d', 'quote/e']);
        for (let poll = 0; poll < 3; poll++) expect(await batch(3)).toEqual(['quote/early', 'order/z', 'quote/a']);
        expect(await batch(3, [0, 1])).toEqual(['quote/early', 'order/z', 'quote/a']);
        expect(await batch(2, [1, 0])).toEqual(['quote/early', 'order/z']);
        expect(await batch(10, [1])).toEqual(['quote/c']);
        // Clearing the served timers lets the next batch through, still in the same order.
        await resave({ kind: 'quote', id: 'early', wakeAt: null });
        await resave({ kind: 'order', id: 'z', wakeAt: null });
        await resave({ kind: 'quote', id: 'a', wakeAt: null });
        expect(await batch(3)).toEqual(['quote/b', 'quote/c', 'quote/d']);
      });
    });

    describe('listing cursors combined with filters', () => {
      it('list pages by afterId within a status filter: every matching actor once, in id order', async () => {
        const statuses: Record<string, string> = { a: 'quoted', b: 'expired', c: 'quoted', d: 'quoted', e: 'refused', f: 'quoted', g: 'expired' };
        for (const [id, status] of Object.entries(statuses).reverse()) await create({ id, status });
        await order('a2', null, 'quoted');
        for (const size of [1, 2, 3]) {
          const seen: string[] = [];
          let afterId: string | undefined;
          for (;;) {
            const page = await store.list({ kind: 'quote', status: ['quoted', 'refused'], limit: size, ...(afterId === undefined ? {} : { afterId }) });
            if (page.length === 0) break;
            expect(page.length).toBeLessThanOrEqual(size);
            seen.push(...page.map((s) => s.id));
            afterId = page.at(-1)!.id;
          }
          expect(seen).toEqual(['a', 'c', 'd', 'e', 'f']);
        }
        // A cursor naming an actor outside the filter, or none at all, still places the page.
        expect((await store.list({ kind: 'quote', status: ['quoted'], limit: 10, afterId: 'b' })).map((s) => s.id)).toEqual(['c', 'd', 'f']);
        expect((await store.list({ kind: 'quote', status: ['quoted'], limit: 10, afterId: 'cc' })).map((s) => s.id)).toEqual(['d', 'f']);
      });

      it('listOrders pages with the after cursor within each filter, equal creation times included', async () => {
        const rows = [
          ['a', 100, '0xd1', '0xs1', 'funded'],
          ['b', 200, '0xd1', '0xs2', 'awaiting_deposit'],
          ['c', 200, '0xd2', '0xs1', 'funded'],
          ['d', 200, '0xd1', '0xs1', 'funded'],
          ['e', 300, '0xd1', '0xs1', 'delivered'],
          ['f', 200, '0xd1', '0xs1', 'funded'],
          ['g', 50, '0xd1', '0xs1', 'funded'],
        ] as const;
        for (const [id, createdAt, destination, sender, status] of rows) await order(id, idx({ createdAt, destination, sender }), status);
        const walk = async (q: Omit<Parameters<ActorStore['listOrders']>[0], 'limit' | 'after'>, size: number) => {
          const seen: string[] = [];
          let after: { createdAt: number; id: string } | undefined;
          for (;;) {
            const page = await store.listOrders({ ...q, limit: size, ...(after ? { after } : {}) });
            if (page.length === 0) break;
            seen.push(...page.map((r) => r.id));
            const last = page.at(-1)!;
            after = { createdAt: last.createdAt, id: last.id };
          }
          return seen;
        };
        for (const size of [1, 2, 3]) {
          expect(await walk({ destination: '0xd1' }, size)).toEqual(['e', 'f', 'd', 'b', 'a', 'g']);
          expect(await walk({ sender: '0xs1', status: ['funded'] }, size)).toEqual(['f', 'd', 'c', 'a', 'g']);
          expect(await walk({ destination: '0xd1', sender: '0xs1', status: ['funded', 'delivered'] }, size)).toEqual(['e', 'f', 'd', 'a', 'g']);
        }
        const after = async (createdAt: number, id: string) =>
          (await store.listOrders({ limit: 10, destination: '0xd1', status: ['funded'], after: { createdAt, id } })).map((r) => r.id);
        // A cursor on a row outside the filter ('e' is delivered), or on no row at all, still places the page.
        expect(await after(300, 'e')).toEqual(['f', 'd', 'a', 'g']);
        expect(await after(200, 'e')).toEqual(['d', 'a', 'g']);
      });
    });

    it('concurrent puts of one new key all succeed and one of their values is stored', async () => {
      const values = Array.from({ length: 20 }, (_, i) => `o${i}`);
      await Promise.all(values.map((v) => store.putKey('deposit', '0xnew', v)));
      expect(values).toContain(await store.getKey('deposit', '0xnew'));
      await store.putKey('deposit', '0xnew', 'last');
      expect(await store.getKey('deposit', '0xnew')).toBe('last');
    });

    it('history entries round-trip unchanged: order, statuses, times, a full HISTORY_LIMIT list', async () => {
      const history = Array.from({ length: HISTORY_LIMIT }, (_, i) => ({
        status: ['awaiting_deposit', 'funded', 'exécuté ✓', '$set', 'a.b', ''][i % 6]!,
        at: 1_700_000_000_000 + i * 7919 + (i === 0 ? 0 : 2 ** 40),
      }));
      history.push({ status: 'late', at: Number.MAX_SAFE_INTEGER });
      history.shift();
      await create({ id: 'h', status: 'late', history });
      expect((await store.load('quote', 'h'))!.history).toEqual(history);
      await resave({ kind: 'quote', id: 'h', snapshot: { n: 2 } });
      expect((await store.load('quote', 'h'))!.history).toEqual(history);
      await resave({ kind: 'quote', id: 'h', history: [] });
      expect((await store.load('quote', 'h'))!.history).toEqual([]);
    });

    describe('keys saved with a snapshot, and numbered creation (an order\'s vault index, keys and first snapshot)', () => {
      const keyA = { space: 'deposit-address', key: 'base:0xaa', value: '{"orderId":"o1"}' };
      const keyB = { space: 'vault-address', key: 'bip44-evm:0xaa', value: '7' };

      it('a save with keys stores them with the snapshot; a save without keys leaves them as they are', async () => {
        await store.save({ ...base, kind: 'order', id: 'o1', snapshot: { n: 1 }, expectedVersion: 0, keys: [keyA, keyB] });
        expect(await store.getKey(keyA.space, keyA.key)).toBe(keyA.value);
        expect(await store.getKey(keyB.space, keyB.key)).toBe(keyB.value);
        await store.save({ ...base, kind: 'order', id: 'o1', snapshot: { n: 2 }, expectedVersion: 1 });
        expect(await store.getKey(keyA.space, keyA.key)).toBe(keyA.value);
        await store.save({ ...base, kind: 'order', id: 'o1', snapshot: { n: 3 }, expectedVersion: 2, keys: [{ ...keyA, value: 'moved' }] });
        expect(await store.getKey(keyA.space, keyA.key)).toBe('moved');
      });

      it('a refused save (stale version, older epoch, existing actor) writes none of its keys', async () => {
        await store.save({ ...base, kind: 'order', id: 'o1', epoch: 3, snapshot: { n: 1 }, expectedVersion: 0 });
        const refused = [
          { ...base, kind: 'order' as const, id: 'o1', epoch: 3, snapshot: { n: 9 }, expectedVersion: 0, keys: [keyA] },
          { ...base, kind: 'order' as const, id: 'o1', epoch: 3, snapshot: { n: 9 }, expectedVersion: 5, keys: [keyA] },
          { ...base, kind: 'order' as const, id: 'o1', epoch: 2, snapshot: { n: 9 }, expectedVersion: 1, keys: [keyA] },
        ];
        for (const a of refused) await expect(store.save(a)).rejects.toBeInstanceOf(SnapshotConflict);
        expect(await store.getKey(keyA.space, keyA.key)).toBeNull();
        expect(await store.load('order', 'o1')).toMatchObject({ version: 1, snapshot: { n: 1 } });
      });

      it('createNumbered takes the next value of the counter, saves the snapshot built from it with its keys at version 1', async () => {
        expect(await store.nextSequence('vault:evm')).toBe(0);
        const value = await store.createNumbered('vault:evm', (n) => ({
          ...base, kind: 'order', id: 'o1', snapshot: { index: n }, expectedVersion: 0, status: 'awaiting_deposit',
          keys: [{ space: 'deposit-address', key: `base:${n}`, value: 'o1' }],
        }));
        expect(value).toBe(1);
        expect(await store.load('order', 'o1')).toMatchObject({ version: 1, status: 'awaiting_deposit', snapshot: { index: 1 } });
        expect(await store.getKey('deposit-address', 'base:1')).toBe('o1');
        expect(await store.nextSequence('vault:evm')).toBe(2);
      });

      it('createNumbered of an actor that exists is refused with SnapshotConflict: no key, the stored actor unchanged', async () => {
        await store.save({ ...base, kind: 'order', id: 'o1', snapshot: { n: 1 }, expectedVersion: 0 });
        await expect(
          store.createNumbered('vault:evm', (n) => ({ ...base, kind: 'order', id: 'o1', snapshot: { index: n }, expectedVersion: 0, keys: [{ space: 's', key: `k${n}`, value: 'v' }] })),
        ).rejects.toBeInstanceOf(SnapshotConflict);
        expect(await store.load('order', 'o1')).toMatchObject({ version: 1, snapshot: { n: 1 } });
        for (const n of [0, 1]) expect(await store.getKey('s', `k${n}`)).toBeNull();
      });

      it('concurrent numbered creations and plain draws never share a value', async () => {
        const made = Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            store.createNumbered('vault:evm', (n) => ({ ...base, kind: 'order', id: `o${i}`, snapshot: { index: n }, expectedVersion: 0 })),
          ),
        );
        const drawn = Promise.all(Array.from({ length: 25 }, () => store.nextSequence('vault:evm')));
        const values = [...(await made), ...(await drawn)];
        expect(new Set(values).size).toBe(50);
        for (let i = 0; i < 25; i++) {
          expect((await store.load('order', `o${i}`))!.snapshot).toEqual({ index: (await made)[i] });
        }
      });
    });

    it('a listing limit that is not a positive integer is refused (adapters would read 0 differently)', async () => {
      await expect(store.listOrders({ limit: 0 })).rejects.toBeInstanceOf(RangeError);
      await expect(store.list({ kind: 'quote', limit: -1 })).rejects.toBeInstanceOf(RangeError);
      await expect(store.due(0, 1.5)).rejects.toBeInstanceOf(RangeError);
    });

    describe('retention: purgeStale deletes stale actors of a kind and statuses, never others', () => {
      const save = (id: string, status: string, updatedAt: number, extra: Partial<SaveActor> = {}) =>
        store.save({ ...base, id, snapshot: { id }, expectedVersion: 0, status, updatedAt, ...extra });

      it('deletes only actors of the kind, of one of the statuses, saved before the cut-off; a bound quote stays', async () => {
        await save('old-quoted', 'quoted', 100);
        await save('old-expired', 'expired', 100);
        await save('old-bound', 'bound', 100);
        await save('new-quoted', 'quoted', 1000);
        await store.save({ kind: 'order', id: 'old-quoted', snapshot: {}, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 100, status: 'quoted' });
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted', 'expired'], updatedBefore: 500, limit: 100 })).toBe(2);
        expect(await store.load('quote', 'old-quoted')).toBeNull();
        expect(await store.load('quote', 'old-expired')).toBeNull();
        expect(await store.load('quote', 'old-bound')).not.toBeNull();
        expect(await store.load('quote', 'new-quoted')).not.toBeNull();
        expect(await store.load('order', 'old-quoted')).not.toBeNull();
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted', 'expired'], updatedBefore: 500, limit: 100 })).toBe(0);
      });

      it('deletes at most `limit` per call, and with shards only those of the shards', async () => {
        for (let i = 0; i < 5; i++) await save(`q${i}`, 'quoted', 10, { shard: i % 2 });
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 1, shards: [1] })).toBe(1);
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 10, shards: [1] })).toBe(1);
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 10, shards: [] })).toBe(0);
        expect(await store.load('quote', 'q0')).not.toBeNull();
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 2 })).toBe(2);
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 2 })).toBe(1);
        expect(await store.list({ kind: 'quote', limit: 10 })).toEqual([]);
      });

      it('an actor saved again since it went stale (a quote bound meanwhile) is not deleted', async () => {
        await save('q', 'quoted', 10);
        await store.save({ ...base, id: 'q', snapshot: { bound: true }, expectedVersion: 1, status: 'bound', updatedAt: 20 });
        expect(await store.purgeStale({ kind: 'quote', statuses: ['quoted'], updatedBefore: 50, limit: 10 })).toBe(0);
        expect((await store.load('quote', 'q'))!.status).toBe('bound');
      });
    });
    describe('tied writes: a write after another (WriteTicket)', () => {
      const order = (id: string) => ({ ...base, kind: 'order' as const, id, snapshot: { id }, expectedVersion: 0, keys: [{ space: 'addr', key: `k-${id}`, value: id }] });

      it('both queued at once, both stored: the bind and then the order it binds', async () => {
        await store.save({ ...base, id: 'q', snapshot: { n: 1 }, expectedVersion: 0 });
        const bind = new WriteTicket();
        const first = store.save({ ...base, id: 'q', snapshot: { bound: 'o1' }, expectedVersion: 1 }, { ticket: bind });
        const second = store.createNumbered('vault:evm', () => order('o1'), { after: bind });
        expect(await Promise.all([first, second])).toEqual([2, 0]);
        expect((await store.load('quote', 'q'))!.snapshot).toEqual({ bound: 'o1' });
        expect((await store.load('order', 'o1'))!.version).toBe(1);
        expect(await store.getKey('addr', 'k-o1')).toBe('o1');
      });

      it('a write after a refused one is refused with its error and writes nothing: no snapshot, no key', async () => {
        await store.save({ ...base, id: 'q', snapshot: { n: 1 }, expectedVersion: 0 });
        await store.save({ ...base, id: 'q', snapshot: { n: 2 }, expectedVersion: 1 });
        const bind = new WriteTicket();
        const stale = store.save({ ...base, id: 'q', snapshot: { bound: 'o1' }, expectedVersion: 1 }, { ticket: bind });
        const created = store.createNumbered('vault:evm', () => order('o1'), { after: bind });
        const saved = store.save(order('o2'), { after: bind });
        await expect(stale).rejects.toBeInstanceOf(SnapshotConflict);
        await expect(created).rejects.toBeInstanceOf(SnapshotConflict);
        await expect(saved).rejects.toBeInstanceOf(SnapshotConflict);
        expect(await store.load('order', 'o1')).toBeNull();
        expect(await store.load('order', 'o2')).toBeNull();
        expect(await store.getKey('addr', 'k-o1')).toBeNull();
        expect((await store.load('quote', 'q'))!.snapshot).toEqual({ n: 2 });
      });

      it('a write after one already stored, or after a ticket no write took, is written as any other', async () => {
        const done = new WriteTicket();
        await store.save({ ...base, id: 'q', snapshot: { n: 1 }, expectedVersion: 0 }, { ticket: done });
        expect(await store.save(order('o1'), { after: done })).toBe(1);
        expect(await store.save(order('o2'), { after: new WriteTicket() })).toBe(1);
      });

      it('a ticket ties one write: a second write taking it is refused and writes nothing', async () => {
        const ticket = new WriteTicket();
        await store.save({ ...base, id: 'q', snapshot: { n: 1 }, expectedVersion: 0 }, { ticket });
        await expect(async () => store.save({ ...base, id: 'r', snapshot: { n: 1 }, expectedVersion: 0 }, { ticket })).rejects.toThrow(/one write/);
        expect(await store.load('quote', 'r')).toBeNull();
      });
    });
  });
}
