// The actor host's promises: persist before you answer, one mailbox per actor, durable wake-ups, passivation, fencing.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import { createRuntime } from '../../../actors/runtime.js';
import { StoredSnapshotError } from '../../../actors/stored-snapshot.js';
import { isInteger, isNumber, shapeOf } from '../../../src/checks.js';
import type { ActorKindSpec } from '../../../actors/kind.js';
import type { Reply } from '../../../src/bus/types.js';
import { ManualClock } from '../../../src/clock.js';
import { OrderNotFound, SnapshotConflict, toErrorData } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { shardOf } from '../../../src/bus/shard.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import type { ActorStore } from '../../../src/store/types.js';

// A small machine with a durable deadline, standing in for the order machine the next issue brings.
const counter = setup({
  types: {
    context: {} as { n: number; deadline: number },
    input: {} as { deadline: number },
    events: {} as { type: 'inc' } | { type: 'deadline' },
  },
}).createMachine({
  context: ({ input }) => ({ n: 0, deadline: input.deadline }),
  initial: 'open',
  states: {
    open: { on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) }, deadline: 'closed' } },
    closed: {},
  },
});

interface CounterView {
  state: unknown;
  n: number;
}
// The counter's own protocol: `create` makes it, `inc` counts, `get` reads; each answers the view.
interface CounterProtocol {
  create: { command: { type: 'create'; deadline: number }; reply: CounterView };
  inc: { command: { type: 'inc' }; reply: CounterView };
  get: { command: { type: 'get' }; reply: CounterView };
}
const view = (s: SnapshotFrom<typeof counter>): Reply<CounterView> => ({ ok: true, value: { state: s.value, n: s.context.n } });

const isCounterContext = shapeOf<{ n: number; deadline: number }>({ n: isInteger, deadline: isNumber });

const counterKind: ActorKindSpec<CounterProtocol, typeof counter> = {
  kind: 'order',
  logic: counter,
  create: (_id, m) => (m.type === 'create' ? { deadline: m.deadline } : null),
  toEvent: (m) => (m.type === 'inc' ? { type: 'inc' } : null),
  notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(`Order ${id} does not exist.`)) }),
  settled: () => true,
  replies: { create: view, inc: view, get: view },
  wakeUp: (s) => (s.matches('open') ? { at: s.context.deadline, event: () => ({ type: 'deadline' }) } : null),
  status: (s) => String(s.value),
  contextProblem: (c) => (isCounterContext(c) ? null : 'n or deadline is not a number'),
};

function host(opts: { store?: ActorStore; idleMs?: number; alwaysReplay?: boolean } = {}) {
  const store = opts.store ?? openSqliteStore(':memory:');
  const clock = new ManualClock(undefined, 1_000);
  const runtime = createRuntime({
    store,
    clock,
    logger: createLogger('silent'),
    kinds: [counterKind],
    idleMs: opts.idleMs,
    alwaysReplay: opts.alwaysReplay,
  });
  return { store, clock, runtime };
}
const ref = { kind: 'order' as const, id: 'o1' };

describe('Persist before you answer: the reply comes after the new snapshot is stored', () => {
  it('every answered increment is in the store when the answer arrives', async () => {
    const { store, runtime } = host();
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    for (let i = 1; i <= 5; i++) {
      const r = await runtime.handle({ ref, message: { type: 'inc' } });
      expect(r).toEqual({ ok: true, value: { state: 'open', n: i } });
      const stored = await store.load('order', 'o1');
      expect((stored!.snapshot as { context: { n: number } }).context.n).toBe(i);
    }
  });
});

describe('One mailbox per actor: concurrent messages are applied one at a time, none lost', () => {
  it('100 concurrent increments give n = 100 and version = 101', async () => {
    const { store, runtime } = host();
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    await Promise.all(Array.from({ length: 100 }, () => runtime.handle({ ref, message: { type: 'inc' } })));
    const stored = await store.load('order', 'o1');
    expect((stored!.snapshot as { context: { n: number } }).context.n).toBe(100);
    expect(stored!.version).toBe(101);
  });
});

describe('A message for an actor that does not exist answers not found and stores nothing', () => {
  it('inc on an unknown id', async () => {
    const { store, runtime } = host();
    const r = await runtime.handle({ ref, message: { type: 'inc' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('order_not_found');
    expect(await store.load('order', 'o1')).toBeNull();
  });
});

describe('Durable timers: the wake-up is stored beside the snapshot and fires when due, also after a restart', () => {
  it('fires at the deadline from a fresh runtime on the same store', async () => {
    const store = openSqliteStore(':memory:');
    const first = host({ store });
    await first.runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    expect((await store.load('order', 'o1'))!.wakeAt).toBe(5_000);
    await first.runtime.drain();
    // "Restart": a new runtime knows nothing but the store.
    const second = host({ store });
    expect(await second.runtime.fireDue()).toBe(0);
    second.clock.advance(4_000);
    expect(await second.runtime.fireDue()).toBe(1);
    const stored = await store.load('order', 'o1');
    expect((stored!.snapshot as { value: string }).value).toBe('closed');
    expect(stored!.wakeAt).toBeNull();
    expect(await second.runtime.fireDue()).toBe(0);
  });
});

describe('Durable timers: one poll reaches every due wake-up, page after page, not only the first page', () => {
  it('seven due counters with pages of two: all closed by one fireDue', async () => {
    const store = openSqliteStore(':memory:');
    const clock = new ManualClock(undefined, 1_000);
    const runtime = createRuntime({ store, clock, logger: createLogger('silent'), kinds: [counterKind], duePageSize: 2 });
    for (let i = 0; i < 7; i++) await runtime.handle({ ref: { kind: 'order', id: `o${i}` }, message: { type: 'create', deadline: 2_000 + i } });
    clock.advance(5_000);
    expect(await runtime.fireDue()).toBe(7);
    const closed = await Promise.all(Array.from({ length: 7 }, async (_, i) => ((await store.load('order', `o${i}`))!.snapshot as { value: string }).value));
    expect(closed).toEqual(Array(7).fill('closed'));
  });
});

describe('Passivation: an idle actor leaves memory and comes back from its snapshot', () => {
  it('is evicted after idleMs and answers again with its state', async () => {
    const { runtime } = host({ idleMs: 20 });
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    await runtime.handle({ ref, message: { type: 'inc' } });
    expect(runtime.activeCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(runtime.activeCount()).toBe(0);
    expect(await runtime.handle({ ref, message: { type: 'inc' } })).toEqual({ ok: true, value: { state: 'open', n: 2 } });
  });

  it("a kind's shorter idle time wins over the runtime's, and its actor answers again from its snapshot", async () => {
    const store = openSqliteStore(':memory:');
    const runtime = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [{ ...counterKind, idleMs: 20 }], idleMs: 60_000 });
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    await runtime.handle({ ref, message: { type: 'inc' } });
    expect(runtime.activeCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(runtime.activeCount()).toBe(0);
    expect(await runtime.handle({ ref, message: { type: 'inc' } })).toEqual({ ok: true, value: { state: 'open', n: 2 } });
    await runtime.drain();
  });

  it("the runtime's idle time wins when the kind's is longer", async () => {
    const runtime = createRuntime({ store: openSqliteStore(':memory:'), clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [{ ...counterKind, idleMs: 60_000 }], idleMs: 20 });
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    expect(runtime.activeCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(runtime.activeCount()).toBe(0);
  });

  it('alwaysReplay restores every actor from the store after each message', async () => {
    const { runtime } = host({ alwaysReplay: true });
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    expect(runtime.activeCount()).toBe(0);
    expect(await runtime.handle({ ref, message: { type: 'inc' } })).toEqual({ ok: true, value: { state: 'open', n: 1 } });
  });
});

describe('A stored snapshot is checked before it is restored: one of another shape is refused, and left as it is', () => {
  const damaged: Array<[string, (snapshot: Record<string, unknown>) => unknown]> = [
    ['a context field of another type', (snap) => ({ ...snap, context: { ...(snap.context as object), n: '2' } })],
    ['no context', ({ context: _c, ...snap }) => snap],
    ['not an XState snapshot', () => ({ n: 2 })],
  ];
  for (const [name, damage] of damaged) {
    it(name, async () => {
      const store = openSqliteStore(':memory:');
      const logs: unknown[] = [];
      const first = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [counterKind] });
      await first.handle({ ref, message: { type: 'create', deadline: 5_000 } });
      await first.drain();
      const stored = (await store.load('order', ref.id))!;
      const snapshot = damage(stored.snapshot as Record<string, unknown>);
      await store.save({ kind: 'order', id: ref.id, snapshot, expectedVersion: stored.version, epoch: 0, wakeAt: null, updatedAt: 2_000 });
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(JSON.parse(chunk.toString()));
          done();
        },
      });
      const logger = createLogger('error', sink);
      const second = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger, kinds: [counterKind] });
      const reply = await second.handle({ ref, message: { type: 'inc' } });
      expect(reply).toMatchObject({ ok: false, error: { code: 'internal' } });
      expect(!reply.ok && reply.error.message).toMatch(new RegExp(`^The stored snapshot of order:${ref.id} \\(version 2\\) is not one this version restores: `));
      expect(logs).toEqual([expect.objectContaining({ msg: 'actor message failed', err: expect.objectContaining({ type: StoredSnapshotError.name }) })]);
      expect(second.activeCount()).toBe(0);
      expect((await store.load('order', ref.id))!).toMatchObject({ version: 2, snapshot });
      await second.drain();
    });
  }
});

describe('Fencing: when another writer advanced the actor, this copy stops and answers unavailable', () => {
  it('a write refused by the store is never acknowledged', async () => {
    const { store, runtime } = host();
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    // Another owner writes version 2 under the nose of this runtime.
    await store.save({ kind: 'order', id: 'o1', snapshot: (await store.load('order', 'o1'))!.snapshot, expectedVersion: 1, epoch: 1, wakeAt: null, updatedAt: 0 });
    const r = await runtime.handle({ ref, message: { type: 'inc' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('unavailable');
    expect(runtime.activeCount()).toBe(0);
    expect(new SnapshotConflict('x').retriable).toBe(true);
  });
});

describe('Sharding: a worker writes and wakes only the actors of the shards it holds', () => {
  const SHARDS = 8;
  const idIn = (shard: number) => {
    for (let i = 0; ; i++) if (shardOf(`o${i}`, SHARDS) === shard) return `o${i}`;
  };
  function sharded(store: ActorStore, held: Map<number, number>) {
    const clock = new ManualClock(undefined, 1_000);
    const runtime = createRuntime({
      store, clock, logger: createLogger('silent'), kinds: [counterKind], shards: SHARDS,
      epochOf: (s) => held.get(s) ?? null,
      ownedShards: () => [...held.keys()],
    });
    return { clock, runtime };
  }

  it('every snapshot carries its shard, its lease epoch, its status and the history of its states', async () => {
    const store = openSqliteStore(':memory:');
    const id = idIn(3);
    const { runtime, clock } = sharded(store, new Map([[3, 42]]));
    await runtime.handle({ ref: { kind: 'order', id }, message: { type: 'create', deadline: 5_000 } });
    clock.advance(4_500);
    await runtime.fireDue();
    const stored = (await store.load('order', id))!;
    expect(stored).toMatchObject({ shard: 3, epoch: 42, status: 'closed' });
    expect(stored.history).toEqual([{ status: 'open', at: 1_000 }, { status: 'closed', at: 5_500 }]);
  });

  it('without the lease of the shard nothing is written and the caller is told to try again', async () => {
    const store = openSqliteStore(':memory:');
    const { runtime } = sharded(store, new Map([[1, 5]]));
    const r = await runtime.handle({ ref: { kind: 'order', id: idIn(2) }, message: { type: 'create', deadline: 5_000 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('unavailable');
    expect(await store.load('order', idIn(2))).toBeNull();
  });

  it('a worker fires the durable timers of its own shards only', async () => {
    const store = openSqliteStore(':memory:');
    const all = sharded(store, new Map(Array.from({ length: SHARDS }, (_, s) => [s, 1] as [number, number])));
    for (const s of [0, 5]) await all.runtime.handle({ ref: { kind: 'order', id: idIn(s) }, message: { type: 'create', deadline: 2_000 } });
    await all.runtime.drain();
    const five = sharded(store, new Map([[5, 2]]));
    five.clock.advance(5_000);
    expect(await five.runtime.fireDue()).toBe(1);
    expect((await store.load('order', idIn(5)))!.status).toBe('closed');
    expect((await store.load('order', idIn(0)))!.status).toBe('open');
    const none = sharded(store, new Map());
    none.clock.advance(5_000);
    expect(await none.runtime.fireDue()).toBe(0);
  });

  it('losing a shard drops its actors from memory at once; the others stay', async () => {
    const store = openSqliteStore(':memory:');
    const held = new Map([[1, 1], [6, 1]]);
    const { runtime } = sharded(store, held);
    await runtime.handle({ ref: { kind: 'order', id: idIn(1) }, message: { type: 'create', deadline: 9_000 } });
    await runtime.handle({ ref: { kind: 'order', id: idIn(6) }, message: { type: 'create', deadline: 9_000 } });
    expect(runtime.activeCount()).toBe(2);
    held.delete(6);
    await runtime.release(6);
    expect(runtime.activeCount()).toBe(1);
  });

  it('a due deadline reaches a passivated actor: it comes back from its snapshot and moves on', async () => {
    const store = openSqliteStore(':memory:');
    const clock = new ManualClock(undefined, 1_000);
    const runtime = createRuntime({ store, clock, logger: createLogger('silent'), kinds: [counterKind], idleMs: 10 });
    await runtime.handle({ ref, message: { type: 'create', deadline: 3_000 } });
    await new Promise((r) => setTimeout(r, 40));
    expect(runtime.activeCount()).toBe(0);
    clock.advance(2_500);
    expect(await runtime.fireDue()).toBe(1);
    expect((await store.load('order', 'o1'))!.status).toBe('closed');
  });
});

describe('Passivation: bringing an actor back to read it writes nothing', () => {
  it('a read of a passivated actor leaves its version as it was', async () => {
    const { store, runtime } = host({ idleMs: 10 });
    await runtime.handle({ ref, message: { type: 'create', deadline: 5_000 } });
    await new Promise((r) => setTimeout(r, 40));
    expect(runtime.activeCount()).toBe(0);
    expect(await runtime.handle({ ref, message: { type: 'get' } })).toEqual({ ok: true, value: { state: 'open', n: 0 } });
    expect((await store.load('order', 'o1'))!.version).toBe(1);
  });
});

// A machine that works (a promise it is given) before it is ready, and one that is created numbered: its input needs a
// value of a durable counter, and it shows a key-map entry derived from that value.
const worker = setup({
  types: { context: {} as { result: number | null }, input: {} as Record<string, never> },
  actors: { work: fromPromise<number>(async () => 0) },
}).createMachine({
  context: { result: null },
  initial: 'working',
  states: {
    working: { invoke: { src: 'work', onDone: { target: 'ready', actions: assign({ result: ({ event }) => event.output }) } } },
    ready: {},
  },
});
interface WorkerProtocol {
  start: { command: { type: 'start' }; reply: number | null };
}

type GatedWorker = ActorKindSpec<WorkerProtocol, typeof worker>;
/** The worker machine as an actor kind whose work answers when the test calls `release`. */
function gatedWorker(kind: 'order' | 'quote', over: Pick<GatedWorker, 'settled'> & Partial<GatedWorker>): { kind: GatedWorker; release: (n: number) => void } {
  let release: (n: number) => void = () => {};
  const logic = worker.provide({ actors: { work: fromPromise<number>(() => new Promise<number>((r) => (release = r))) } });
  return {
    kind: {
      kind,
      logic,
      create: () => ({}),
      toEvent: () => null,
      notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(id)) }),
      replies: { start: (s) => ({ ok: true, value: s.context.result }) },
      wakeUp: () => null,
      status: (s) => String(s.value),
      contextProblem: () => null,
      ...over,
    },
    release: (n) => release(n),
  };
}

const numbered = setup({
  types: { context: {} as { slot: number; started: number }, input: {} as { slot?: number } },
  actors: { claim: fromPromise<number>(async () => 99) },
}).createMachine({
  context: ({ input }) => ({ slot: input.slot ?? -1, started: 0 }),
  initial: 'claiming',
  states: {
    // Without a drawn slot the actor would claim one itself; with one it passes straight through.
    claiming: {
      always: { guard: ({ context }) => context.slot >= 0, target: 'open' },
      invoke: { src: 'claim', onDone: { target: 'open', actions: assign({ slot: ({ event }) => event.output }) } },
    },
    open: { entry: assign({ started: ({ context }) => context.started + 1 }) },
  },
});
interface NumberedProtocol {
  make: { command: { type: 'make' }; reply: number };
  get: { command: { type: 'get' }; reply: number };
}

describe('Passivation waits for an effect in flight: an actor leaves memory only once its invoked work answered', () => {
  it('idle past its time while working, it stays; once the work answers, its result is stored and then it leaves', async () => {
    const { kind, release } = gatedWorker('order', { settled: () => true });
    const store = openSqliteStore(':memory:');
    const passivated: string[] = [];
    const runtime = createRuntime({
      store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [kind], idleMs: 10, onPassivate: (r) => passivated.push(r.id),
    });
    expect(await runtime.handle({ ref: { kind: 'order', id: 'w1' }, message: { type: 'start' } })).toEqual({ ok: true, value: null });
    await new Promise((r) => setTimeout(r, 60));
    expect([runtime.activeCount(), passivated]).toEqual([1, []]);
    release(7);
    await new Promise((r) => setTimeout(r, 60));
    expect(await store.load('order', 'w1')).toMatchObject({ status: 'ready', snapshot: { value: 'ready', context: { result: 7 } } });
    expect([runtime.activeCount(), passivated]).toEqual([0, ['w1']]);
  });
});

describe('Transient snapshots: a state the kind says need not be durable is not written; the answer\'s state is', () => {
  it('a quote-like actor is stored once, at its answer, never while working', async () => {
    const { kind, release } = gatedWorker('quote', { settled: (s) => s.matches('ready'), transient: (s) => s.matches('working') });
    const store = openSqliteStore(':memory:');
    const runtime = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [kind] });
    const answer = runtime.handle({ ref: { kind: 'quote', id: 'q1' }, message: { type: 'start' } });
    await new Promise((r) => setTimeout(r, 20));
    expect(await store.load('quote', 'q1')).toBeNull();
    release(42);
    expect(await answer).toEqual({ ok: true, value: 42 });
    expect(await store.load('quote', 'q1')).toMatchObject({ version: 1, status: 'ready', snapshot: { value: 'ready' } });
  });
});

describe('Numbered creation: the counter value, the first snapshot and its keys are one store write, before the actor runs', () => {
  function numberedHost(store = openSqliteStore(':memory:')) {
    let claims = 0;
    const logic = numbered.provide({ actors: { claim: fromPromise<number>(async () => ++claims) } });
    const kind: ActorKindSpec<NumberedProtocol, typeof logic> = {
      kind: 'order',
      logic,
      sequence: (m) => (m.type === 'make' ? 'slots' : null),
      create: (_id, m, drawn) => (m.type === 'make' ? { slot: drawn } : null),
      toEvent: () => null,
      notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(id)) }),
      settled: (s) => s.matches('open'),
      keys: (s) => [{ space: 'slot', key: String(s.context.slot), value: 'taken' }],
      replies: { make: (s) => ({ ok: true, value: s.context.slot }), get: (s) => ({ ok: true, value: s.context.slot }) },
      wakeUp: () => null,
      status: (s) => String(s.value),
      contextProblem: () => null,
    };
    const runtime = createRuntime({ store, clock: new ManualClock(undefined, 1_000), logger: createLogger('silent'), kinds: [kind] });
    return { store, runtime, claims: () => claims };
  }

  it('the first snapshot is already past the claiming state, stored at version 1 with its key, in one commit', async () => {
    const { store, runtime, claims } = numberedHost();
    await store.nextSequence('slots'); // 0 is taken: the actor gets 1
    const before = store.stats();
    expect(await runtime.handle({ ref: { kind: 'order', id: 'n1' }, message: { type: 'make' } })).toEqual({ ok: true, value: 1 });
    const after = store.stats();
    expect({ commits: after.commits - before.commits, writes: after.writes - before.writes }).toEqual({ commits: 1, writes: 1 });
    expect(await store.load('order', 'n1')).toMatchObject({ version: 1, status: 'open', snapshot: { value: 'open', context: { slot: 1, started: 1 } } });
    expect(await store.getKey('slot', '1')).toBe('taken');
    expect(claims()).toBe(0); // the claiming effect never ran
    expect(await store.nextSequence('slots')).toBe(2);
  });

  it('concurrent creations get distinct values, each stored with its own key; a second make reads the same actor', async () => {
    const { store, runtime } = numberedHost();
    const ids = Array.from({ length: 20 }, (_, i) => `n${i}`);
    const made = await Promise.all(ids.map((id) => runtime.handle({ ref: { kind: 'order', id }, message: { type: 'make' } })));
    const slots = made.map((r) => (r.ok ? (r.value as number) : -1));
    expect(new Set(slots).size).toBe(20);
    for (const slot of slots) expect(await store.getKey('slot', String(slot))).toBe('taken');
    const again = await Promise.all([1, 2, 3].map(() => runtime.handle({ ref: { kind: 'order', id: 'n0' }, message: { type: 'make' } })));
    expect(again.every((r) => r.ok && r.value === slots[0])).toBe(true);
    expect((await store.load('order', 'n0'))!.version).toBe(1);
  });

  it('a restart finds the created actor as it was stored, and reading it writes nothing', async () => {
    const store = openSqliteStore(':memory:');
    await numberedHost(store).runtime.handle({ ref: { kind: 'order', id: 'n1' }, message: { type: 'make' } });
    const fresh = numberedHost(store);
    expect(await fresh.runtime.handle({ ref: { kind: 'order', id: 'n1' }, message: { type: 'get' } })).toEqual({ ok: true, value: 0 });
    expect((await store.load('order', 'n1'))!.version).toBe(1);
    expect(fresh.claims()).toBe(0);
  });
});
