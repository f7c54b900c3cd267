// The actor host: activates actors from snapshots, one mailbox per actor, persists every new snapshot with a
// version check (hosted-actor.ts) before it answers (except those its kind calls transient) and before the effects it
// starts do their work, creates an actor whose input needs a durable counter in one store write with its first
// snapshot, wakes actors when their durable timers fall due, passivates idle ones. A caller in this process may take
// an answer once its snapshot's write is queued and tie a later write to it (AskOptions); it tells no one the answer
// before the write is stored.
import { createActor, waitFor, type AnyActorRef, type AnyMachineSnapshot } from 'xstate';
import type { ActorRef, Envelope, Reply } from '../src/bus/types.js';
import type { Clock } from '../src/clock.js';
import { RouterError, SnapshotConflict, toErrorData, Unavailable, UnknownCommand } from '../src/errors.js';
import type { Logger } from '../src/log.js';
import { shardOf } from '../src/bus/shard.js';
import { TIMER_DUE, type ActorKind, type Command, type CommandType, type ReplyTo, type TimerDue } from '../src/protocol/index.js';
import type { ActorStore, DueActor, SaveActor, Transition } from '../src/store/types.js';
import { followed, WriteTicket } from '../src/store/write-ticket.js';
import type { AnyActorKindSpec } from './kind.js';
import { actorKey, HostedActor } from './hosted-actor.js';
import { storedSnapshotProblem, StoredSnapshotError } from './stored-snapshot.js';
import { holdEffectsUntilStored } from './write-ahead.js';

export interface RuntimeDeps {
  store: ActorStore;
  kinds: AnyActorKindSpec[];
  clock: Clock;
  logger: Logger;
  /** Lease epoch written with every snapshot (fencing); embedded mode owns everything under epoch 0. */
  epoch?: number;
  /** Shard count of the actor space (ROUTER_SHARDS); default 1. */
  shards?: number;
  /** Cluster mode: the epoch of the lease this process holds on a shard, or null when it does not hold it (then no
   *  snapshot of that shard is written: the actor stops). Overrides `epoch`. */
  epochOf?: (shard: number) => number | null;
  /** Cluster mode: the shards whose durable timers this process fires. Absent = all (embedded mode). */
  ownedShards?: () => readonly number[];
  /** Idle time before a settled actor leaves memory (passivation). */
  idleMs?: number;
  /** Told each time an idle actor leaves memory (metrics count passivations). */
  onPassivate?: (ref: ActorRef) => void;
  /** How long a message may wait for its actor to settle. */
  settleTimeoutMs?: number;
  /** Test mode (as restate's alwaysReplay): drop every actor from memory after each persisted step, so the next
   *  message or wake-up restores it from the store. */
  alwaysReplay?: boolean;
  /** Period of the durable timer poll. */
  timerPollMs?: number;
  /** Wake-ups read per page of a poll (default 500), and pages per poll at most (default 10). */
  duePageSize?: number;
  duePages?: number;
}

/** How a caller in this process ties a message's snapshot write to another write (WriteTicket). */
export interface AskOptions {
  /** A new actor's first snapshot is written after this ticket's write, and refused when that one is. */
  after?: WriteTicket;
  /** The answer comes once the actor's new snapshot is queued for the store, not stored: its write takes this ticket
   *  (none when the message changed nothing stored), and the caller tells no one the answer before `settled` does.
   *  The actor's next message waits for the write. */
  queuedUnder?: WriteTicket;
}

export interface Runtime {
  handle(envelope: Envelope, opts?: AskOptions): Promise<Reply>;
  /** `handle` for a caller in this process: the command typed by its kind's protocol, and so is its reply. */
  ask<K extends ActorKind, T extends CommandType<K>>(ref: ActorRef<K>, command: Command<K, T> & { type: T }, requestId?: string, opts?: AskOptions): Promise<Reply<ReplyTo<K, T>>>;
  /** Fires every durable wake-up that is due now; the poll calls it, tests and the dev clock call it directly. */
  fireDue(): Promise<number>;
  /** Starts the durable timer poll. */
  start(): void;
  /** Stops taking messages, waits for in-flight work and the last snapshot writes, stops every actor. */
  drain(): Promise<void>;
  /** Number of actors in memory. */
  activeCount(): number;
  /** A shard's lease is gone: its actors leave memory at once and write nothing more (the new owner restores them
   *  from their snapshots). Waits briefly for snapshot writes already under way. */
  release(shard: number): Promise<void>;
}

/** What a caller hears of an actor that left this host (its shard moved, or a write of it was refused): try again. */
export const moving = (): Unavailable => new Unavailable('The actor is moving; try again.');

/** A snapshot write refused for its version or epoch, as a caller hears it (`moving`); any other error as it is. */
export const asMoving = (err: unknown): unknown => (err instanceof SnapshotConflict ? moving() : err);

export function createRuntime(deps: RuntimeDeps): Runtime {
  const { store, clock, logger } = deps;
  const shards = deps.shards ?? 1;
  const epochOf = deps.epochOf ?? (() => deps.epoch ?? 0);
  const idleMs = deps.idleMs ?? 120_000;
  const settleTimeoutMs = deps.settleTimeoutMs ?? 60_000;
  const duePageSize = deps.duePageSize ?? 500;
  const duePages = deps.duePages ?? 10;
  const kinds = new Map(deps.kinds.map((k) => [k.kind, k]));
  const active = new Map<string, HostedActor>();
  /** Creations whose first snapshot is being written: a message for the same actor waits for it. */
  const creating = new Map<string, Promise<unknown>>();
  let draining = false;
  let inFlight = 0;
  let poll: NodeJS.Timeout | null = null;

  function evict(a: HostedActor): void {
    a.evicted = true;
    if (active.get(actorKey(a.ref)) === a) active.delete(actorKey(a.ref));
    if (a.idleTimer) clearTimeout(a.idleTimer);
    a.unsubscribe();
    a.actor.stop();
  }

  function touch(a: HostedActor): void {
    if (a.idleTimer) clearTimeout(a.idleTimer);
    const idle = a.spec.idleMs === undefined ? idleMs : Math.min(idleMs, a.spec.idleMs);
    a.idleTimer = setTimeout(() => {
      // Only passivate between messages; a busy mailbox re-arms the timer when it finishes.
      void a.mailbox.then(() => a.writesDone()).then(() => {
        if (active.get(actorKey(a.ref)) !== a || a.failed) return;
        // An effect still running (an invoked child) keeps its actor in memory: stopping the actor would drop the
        // effect's answer, and the copy a wake-up restores would start the same effect again beside it.
        if (Object.keys(a.actor.getSnapshot().children ?? {}).length > 0) {
          touch(a);
          return;
        }
        evict(a);
        deps.onPassivate?.(a.ref);
      });
    }, idle);
    a.idleTimer.unref();
  }

  /** Hosts an actor in memory: subscribes its snapshot writes, then starts it. `stored` says its current snapshot is
   *  already in the store (restored or just created), so starting it writes nothing unless start() changes it. */
  function host(ref: ActorRef, spec: AnyActorKindSpec, actor: AnyActorRef, stored: { version: number; history: Transition[] } | null): HostedActor {
    const a = new HostedActor(ref, shardOf(ref.id, shards), spec, actor, stored, { store, clock, logger, epochOf }, evict);
    const sub = actor.subscribe({
      next: () => void a.persist(),
      error: (err: unknown) => logger.error({ actor: actorKey(ref), err: String(err) }, 'actor failed'),
    });
    a.unsubscribe = () => sub.unsubscribe();
    // An effect of this actor starts its work once the write of the snapshot that started it is done. When that write
    // was refused, or skipped because the actor left memory first (its shard gone), the effect does nothing: its
    // next owner runs it from the stored snapshot. Effects that start() restarts from a stored snapshot run at once.
    let restarting = stored !== null;
    holdEffectsUntilStored(actor, async () => {
      if (restarting) return;
      // This runs inside the transition, which notifies its observer (the `persist` subscribed above) only after
      // starting its effects: one turn of the microtask queue later, the write of its snapshot is queued.
      await null;
      const startedBy: unknown = actor.getSnapshot();
      await a.persisting;
      // A copy that left memory after the write (passivation) may still run it: the same input under the same keys.
      if (a.failed || (a.evicted && a.lastPersisted !== startedBy)) {
        throw new Unavailable(`Actor ${actorKey(ref)} stopped before the state that started this effect was stored.`);
      }
    });
    active.set(actorKey(ref), a);
    // A stored snapshot (with its keys) is already written: a reactivation that changes nothing writes nothing.
    // Anything start() changes (an effect restarting into a new state) is a new snapshot object, written as usual.
    if (stored) a.markStored();
    actor.start();
    restarting = false;
    return a;
  }

  /**
   * Creates an actor whose input needs a value of a durable counter: the actor is built from its input (XState computes
   * the initial snapshot then and runs nothing until start), that snapshot is stored in the same store write that takes
   * the value (with the kind's keys), and only then is the actor started, as a restored one is. A crash before the
   * write leaves nothing; after it, the actor.
   */
  async function createNumbered(ref: ActorRef, spec: AnyActorKindSpec, command: Envelope['message'], sequence: string, after: WriteTicket | undefined): Promise<HostedActor> {
    const shard = shardOf(ref.id, shards);
    const epoch = epochOf(shard);
    if (epoch === null) throw new Unavailable(`Shard ${shard} is not held by this worker.`);
    const now = clock.now();
    let built: { actor: AnyActorRef; history: Transition[] } | null = null;
    const build = (value: number): SaveActor => {
      const input: unknown = spec.create(ref.id, command, value);
      if (input === null) throw new RouterError(`Actor kind ${ref.kind} named a counter for a command it does not create with.`);
      const actor = createActor(spec.logic, { input: input as never });
      const snapshot = actor.getSnapshot();
      const status = spec.status(snapshot);
      const history = [{ status, at: now }];
      built = { actor, history };
      return {
        kind: ref.kind,
        id: ref.id,
        snapshot: actor.getPersistedSnapshot(),
        expectedVersion: 0,
        epoch,
        wakeAt: spec.wakeUp(snapshot)?.at ?? null,
        updatedAt: now,
        shard,
        status,
        history,
        index: spec.index?.(snapshot) ?? null,
        keys: spec.keys?.(snapshot) ?? [],
      };
    };
    try {
      await store.createNumbered(sequence, build, { after });
    } catch (err) {
      // Created meanwhile by another process (or fenced off): the caller tries again and finds it stored.
      throw asMoving(err);
    }
    const made = built as { actor: AnyActorRef; history: Transition[] } | null;
    if (!made) throw new RouterError(`The store created actor ${actorKey(ref)} without building its snapshot.`);
    return host(ref, spec, made.actor, { version: 1, history: made.history });
  }

  async function activate(ref: ActorRef, spec: AnyActorKindSpec, command: Envelope['message'] | null, after?: WriteTicket): Promise<HostedActor | null> {
    const pending = creating.get(actorKey(ref));
    if (pending) await pending.catch(() => undefined);
    const existing = active.get(actorKey(ref));
    if (existing) return existing;
    const stored = await store.load(ref.kind, ref.id);
    if (!stored && command === null) return null;
    const again = active.get(actorKey(ref));
    if (again) return again; // activated by a concurrent message while we were loading
    if (stored) {
      const problem = storedSnapshotProblem(stored.snapshot, spec.contextProblem);
      if (problem !== null) throw new StoredSnapshotError(`The stored snapshot of ${actorKey(ref)} (version ${stored.version}) is not one this version restores: ${problem}.`);
      const actor = createActor(spec.logic, { snapshot: stored.snapshot as never, input: undefined });
      return host(ref, spec, actor, stored);
    }
    const sequence = spec.sequence?.(command!) ?? null;
    if (sequence !== null) {
      if (creating.has(actorKey(ref))) return activate(ref, spec, command, after); // a concurrent message is creating it
      const made = createNumbered(ref, spec, command!, sequence, after);
      creating.set(actorKey(ref), made);
      try {
        return await made;
      } finally {
        creating.delete(actorKey(ref));
      }
    }
    const input: unknown = spec.create(ref.id, command!);
    if (input === null) return null;
    await followed(after);
    const a = host(ref, spec, createActor(spec.logic, { input: input as never }), null);
    await a.persist();
    return a;
  }

  async function process(envelope: Envelope, spec: AnyActorKindSpec, log: Logger, opts: AskOptions): Promise<Reply> {
    const { ref, message } = envelope;
    const a = await activate(ref, spec, stored(envelope) ? null : message, opts.after);
    if (!a) return spec.notFound(ref.id, message);
    const run = a.mailbox.then(async (): Promise<Reply> => {
      if (a.failed) throw moving();
      const now = clock.now();
      if (message.type === TIMER_DUE) {
        // A wake-up is read from the snapshot itself, so a stale or repeated one finds nothing due and does nothing.
        const wake = spec.wakeUp(a.actor.getSnapshot());
        if (wake && wake.at <= now) a.actor.send(wake.event(now));
      } else {
        const event = spec.toEvent(message, now);
        // An actor in a final state takes no events; its reply is read from the snapshot (XState would warn on console).
        if (event && a.actor.getSnapshot().status === 'active') a.actor.send(event);
      }
      let snap: AnyMachineSnapshot;
      try {
        snap = await waitFor(a.actor, (s: AnyMachineSnapshot) => spec.settled(s, message), { timeout: settleTimeoutMs });
      } catch (err) {
        // Stopped while waiting: its shard moved (release) or a write was refused; the caller may try again.
        if (a.failed) throw moving();
        throw err;
      }
      const tie = opts.queuedUnder;
      if (tie) {
        const written = await a.issuedWrite(snap);
        if (written?.settled) tie.take(written.settled, written.handle);
      } else await a.persist();
      const failed = a.failed as Error | null;
      if (failed) throw asMoving(failed);
      log.debug({ actor: actorKey(ref), state: snap.value, version: a.version }, 'actor answered');
      // A wake-up answers nothing (only whether it failed counts); every other command has its kind's answer.
      return message.type === TIMER_DUE ? { ok: true, value: null } : spec.replies[message.type]!(snap, message);
    });
    // A reply given before its snapshot is stored holds the actor's next message until it is.
    a.mailbox = (opts.queuedUnder ? run.then(() => a.writesDone()) : run).catch(() => undefined);
    try {
      return await run;
    } finally {
      if (deps.alwaysReplay) {
        await a.writesDone();
        if (active.get(actorKey(ref)) === a) evict(a);
      } else if (active.get(actorKey(ref)) === a) touch(a);
    }
  }

  // Internal messages (timer wake-ups) never create actors.
  const stored = (e: Envelope) => e.message.type === TIMER_DUE;

  async function handle(envelope: Envelope, opts: AskOptions = {}): Promise<Reply> {
    const log = logger.child({ req_id: envelope.requestId, actor: actorKey(envelope.ref) });
    if (draining) return { ok: false, error: toErrorData(new Unavailable('The service is shutting down.')) };
    const spec = kinds.get(envelope.ref.kind);
    if (!spec) return { ok: false, error: toErrorData(new RouterError(`No actor kind ${envelope.ref.kind}.`)) };
    // A command outside the kind's protocol fails before the actor is loaded: answered as a read, it would hide a
    // sender that speaks another version of the protocol.
    const type = envelope.message?.type;
    if (type !== TIMER_DUE && !(typeof type === 'string' && Object.hasOwn(spec.replies, type))) {
      return { ok: false, error: toErrorData(new UnknownCommand(`An actor of kind ${envelope.ref.kind} has no command ${JSON.stringify(type)}.`)) };
    }
    inFlight++;
    try {
      return await process(envelope, spec, log, opts);
    } catch (err) {
      if (!(err instanceof RouterError)) log.error({ err }, 'actor message failed');
      return { ok: false, error: toErrorData(err) };
    } finally {
      inFlight--;
    }
  }

  async function fireDue(): Promise<number> {
    const owned = deps.ownedShards?.();
    if (owned && owned.length === 0) return 0;
    const now = clock.now();
    // Page by page, each after the last row of the one before: the actors whose effects are in flight are due at
    // once (wake-up 0) and come first, and with a page's worth of them (slow sends) a single page would hold back
    // every deadline and retry behind them on every poll.
    let fired = 0;
    let after: DueActor | undefined;
    for (let page = 0; page < duePages; page++) {
      const due = await store.due(now, duePageSize, owned, after);
      await Promise.all(
        due.map((d) =>
          handle({ ref: { kind: d.kind, id: d.id }, message: { type: TIMER_DUE, at: d.wakeAt } satisfies TimerDue }).then((r) => {
            if (!r.ok) logger.warn({ actor: `${d.kind}:${d.id}`, error: r.error }, 'wake-up failed');
          }),
        ),
      );
      fired += due.length;
      if (due.length < duePageSize) break;
      after = due[due.length - 1];
    }
    return fired;
  }

  return {
    handle,
    ask<K extends ActorKind, T extends CommandType<K>>(ref: ActorRef<K>, command: Command<K, T> & { type: T }, requestId?: string, opts?: AskOptions) {
      // A kind's reply table is typed by its protocol (ActorKindSpec), which the kinds map erases: its reply to a
      // command of that protocol is the protocol's reply.
      return handle({ ref, message: { ...command }, requestId }, opts) as Promise<Reply<ReplyTo<K, T>>>;
    },
    fireDue,
    start() {
      if (poll) return;
      const every = deps.timerPollMs ?? 1000;
      // One poll at a time: one that reads many pages may take longer than the period, and must not pile up.
      let polling = false;
      poll = setInterval(() => {
        if (polling) return;
        polling = true;
        void fireDue()
          .catch((err) => logger.error({ err }, 'timer poll failed'))
          .finally(() => (polling = false));
      }, every);
      poll.unref();
    },
    async drain() {
      draining = true;
      if (poll) clearInterval(poll);
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 10));
      for (const a of [...active.values()]) {
        await a.writesDone();
        evict(a);
      }
    },
    activeCount: () => active.size,
    async release(shard) {
      const leaving = [...active.values()].filter((a) => a.shard === shard);
      for (const a of leaving) {
        a.failed ??= moving();
        evict(a);
      }
      // Writes already under way finish (or are refused by the store's fencing) before the shard is handed over.
      await Promise.race([Promise.all(leaving.map((a) => a.persisting)), new Promise((r) => setTimeout(r, 2000).unref())]);
    },
  };
}
