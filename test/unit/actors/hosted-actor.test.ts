// One hosted actor's snapshot writes, alone against a recording store: each new snapshot is written once and in
// order, with the version it was last stored at, its lease's epoch, its history and its keys when they change; a
// refused write stops the copy for good.
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { HostedActor } from '../../../actors/hosted-actor.js';
import type { ActorKindSpec } from '../../../actors/kind.js';
import { ManualClock } from '../../../src/clock.js';
import { OrderNotFound, SnapshotConflict, toErrorData, Unavailable } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { HISTORY_LIMIT, type SaveActor } from '../../../src/store/types.js';

// A counter that can be `busy` (transient: not written) and that names a key once it counted three times.
const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'inc' } | { type: 'busy' } | { type: 'idle' } | { type: 'same' } },
}).createMachine({
  context: { n: 0 },
  initial: 'idle',
  states: {
    idle: { on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) }, busy: 'busy', same: { actions: assign({ n: ({ context }) => context.n }) } } },
    busy: { on: { idle: 'idle' } },
  },
});

type CounterProtocol = { get: { command: { type: 'get' }; reply: number } };
const spec: ActorKindSpec<CounterProtocol, typeof counter> = {
  kind: 'order',
  logic: counter,
  create: () => null,
  toEvent: () => null,
  notFound: (id) => ({ ok: false, error: toErrorData(new OrderNotFound(`Order ${id} does not exist.`)) }),
  settled: () => true,
  replies: { get: (s) => ({ ok: true, value: s.context.n }) },
  wakeUp: () => null,
  status: (s) => `${String(s.value)}:${s.context.n}`,
  transient: (s) => s.matches('busy'),
  keys: (s) => (s.context.n >= 3 ? [{ space: 'counter', key: 'three', value: 'c1' }] : []),
  contextProblem: () => null,
};

/** A hosted counter over a store that records each save and answers the next version, or refuses as told. */
function hosted(opts: { epoch?: number | null; refuse?: Error } = {}) {
  const saves: SaveActor[] = [];
  const refused: HostedActor[] = [];
  const clock = new ManualClock(undefined, 1_000);
  const store = {
    async save(a: SaveActor): Promise<number> {
      if (opts.refuse) throw opts.refuse;
      saves.push(a);
      return a.expectedVersion + 1;
    },
  };
  const actor = createActor(counter);
  const a = new HostedActor(
    { kind: 'order', id: 'c1' }, 0, spec, actor, null,
    { store, clock, logger: createLogger('silent'), epochOf: () => (opts.epoch === undefined ? 7 : opts.epoch) },
    (x) => refused.push(x),
  );
  actor.start();
  return { a, actor, saves, refused, clock };
}

describe('a hosted actor writes each new snapshot once, in order, with the version it last stored', () => {
  it('each write names the version before it and the lease epoch; the same snapshot is not written again', async () => {
    const { a, actor, saves } = hosted();
    await a.persist();
    actor.send({ type: 'inc' });
    await a.persist();
    await a.persist();
    expect(saves.map((s) => [s.expectedVersion, s.epoch, s.status])).toEqual([[0, 7, 'idle:0'], [1, 7, 'idle:1']]);
    expect(a.version).toBe(2);
  });

  it('a transient snapshot is not written; the next one that is not transient is', async () => {
    const { a, actor, saves } = hosted();
    actor.send({ type: 'busy' });
    await a.persist();
    expect(saves).toEqual([]);
    actor.send({ type: 'idle' });
    await a.persist();
    expect(saves.map((s) => s.status)).toEqual(['idle:0']);
  });

  it('the history grows by a status change only, and keeps the last HISTORY_LIMIT', async () => {
    const { a, actor, saves, clock } = hosted();
    await a.persist();
    actor.send({ type: 'same' });
    await a.persist();
    expect(saves.at(-1)!.history).toEqual([{ status: 'idle:0', at: 1_000 }]);
    for (let i = 0; i < HISTORY_LIMIT + 3; i++) {
      clock.advance(1);
      actor.send({ type: 'inc' });
      await a.persist();
    }
    expect(saves.at(-1)!.history).toHaveLength(HISTORY_LIMIT);
    expect(saves.at(-1)!.history!.at(-1)).toEqual({ status: `idle:${HISTORY_LIMIT + 3}`, at: 1_000 + HISTORY_LIMIT + 3 });
  });

  it('the kind\'s keys are written with the snapshot that first names them, and not again while unchanged', async () => {
    const { a, actor, saves } = hosted();
    for (let i = 0; i < 4; i++) {
      actor.send({ type: 'inc' });
      await a.persist();
    }
    expect(saves.map((s) => s.keys?.length ?? null)).toEqual([null, null, 1, null]);
  });

  it('a restored actor writes nothing until its snapshot changes', async () => {
    const { a, actor, saves } = hosted();
    a.markStored();
    await a.persist();
    expect(saves).toEqual([]);
    actor.send({ type: 'inc' });
    await a.persist();
    expect(saves).toHaveLength(1);
  });

  it('a write the store refuses (another writer overtook it) stops the copy: told once, nothing more written', async () => {
    const { a, actor, refused } = hosted({ refuse: new SnapshotConflict('version 3 expected, 0 given') });
    await a.persist();
    expect(a.failed).toBeInstanceOf(SnapshotConflict);
    expect(refused).toEqual([a]);
    actor.send({ type: 'inc' });
    await a.persist();
    expect(refused).toHaveLength(1);
  });

  it('a shard this process holds no lease on is written nothing', async () => {
    const { a, saves, refused } = hosted({ epoch: null });
    await a.persist();
    expect(saves).toEqual([]);
    expect(a.failed).toBeInstanceOf(Unavailable);
    expect(refused).toEqual([a]);
  });

  it('issuedWrite answers the ticket of the snapshot\'s write once queued, and null for one never written', async () => {
    const { a, actor } = hosted();
    const ticket = await a.issuedWrite(actor.getSnapshot());
    expect(ticket?.settled).toBeInstanceOf(Promise);
    await expect(ticket!.settled).resolves.toBe(1);
    actor.send({ type: 'busy' });
    expect(await a.issuedWrite(actor.getSnapshot())).toBeNull();
  });
});
