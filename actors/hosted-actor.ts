// One actor hosted in memory and the writes of its snapshots: each new snapshot is written once, in order, with the
// version it was restored or last written at (the store refuses a write another writer overtook) and the epoch of its
// shard's lease (the store refuses a fenced-off owner). A refused write stops this copy for good: two owners never
// both advance one actor. The runtime (runtime.ts) owns the mailbox, activation and passivation around it.
import type { AnyActorRef } from 'xstate';
import type { ActorRef } from '../src/bus/types.js';
import type { Clock } from '../src/clock.js';
import { Unavailable } from '../src/errors.js';
import type { Logger } from '../src/log.js';
import { HISTORY_LIMIT, type ActorStore, type Transition } from '../src/store/types.js';
import { WriteTicket } from '../src/store/write-ticket.js';
import type { AnyActorKindSpec } from './kind.js';

export const actorKey = (ref: ActorRef) => `${ref.kind}:${ref.id}`;

const keysSignature = (keys: readonly unknown[]) => (keys.length === 0 ? '' : JSON.stringify(keys));

export interface SnapshotWriteDeps {
  store: Pick<ActorStore, 'save'>;
  clock: Clock;
  logger: Logger;
  /** The epoch of this process's lease on a shard, or null when it holds none (nothing of that shard is written). */
  epochOf(shard: number): number | null;
}

export class HostedActor {
  /** State changes so far (stored beside the snapshot for operators). */
  history: Transition[];
  version: number;
  /** Serialises messages to this actor. */
  mailbox: Promise<unknown> = Promise.resolve();
  /** Serialises snapshot writes; resolves when the latest snapshot seen is stored. */
  persisting: Promise<void> = Promise.resolve();
  /** The snapshot object last stored (restored, created or written). */
  lastPersisted: unknown = null;
  /** The last snapshot write queued, and its ticket (a write another may follow). */
  private issued: { snapshot: unknown; ticket: WriteTicket } | null = null;
  /** Told when a write is queued (issuedWrite waits on it). */
  private onIssued: Array<() => void> = [];
  /** The kind's key-map entries as last written with a snapshot (their JSON; '' for none): written again on change. */
  private keysWritten = '';
  /** Why this copy stopped: a write refused, or its shard gone. Nothing more of it is written. */
  failed: Error | null = null;
  /** Left memory: nothing of this copy is written any more (a stopped actor's snapshot would restore as dead). */
  evicted = false;
  idleTimer: NodeJS.Timeout | null = null;
  unsubscribe: () => void = () => {};

  constructor(
    readonly ref: ActorRef,
    readonly shard: number,
    readonly spec: AnyActorKindSpec,
    readonly actor: AnyActorRef,
    stored: { version: number; history: Transition[] } | null,
    private readonly deps: SnapshotWriteDeps,
    /** Told once when a write of this actor is refused: the runtime takes the copy out of memory. */
    private readonly refused: (a: HostedActor) => void,
  ) {
    this.history = stored?.history ?? [];
    this.version = stored?.version ?? 0;
  }

  /** The actor's current snapshot is already in the store (restored or just created): a reactivation that changes
   *  nothing writes nothing, and its keys are written again only when they change. */
  markStored(): void {
    this.lastPersisted = this.actor.getSnapshot();
    this.keysWritten = keysSignature(this.spec.keys?.(this.lastPersisted as never) ?? []);
  }

  /** Writes the current snapshot after the writes before it, unless it is stored already or transient. */
  persist(): Promise<void> {
    this.persisting = this.persisting.then(() => this.writeCurrent());
    return this.persisting;
  }

  private async writeCurrent(): Promise<void> {
    const { spec, ref } = this;
    const { store, clock, logger } = this.deps;
    if (this.failed || this.evicted) return;
    // The live snapshot object changes identity on every transition; the same object is already stored.
    const current = this.actor.getSnapshot();
    if (current === this.lastPersisted) return;
    // A transient snapshot (a quote while pricing) is not written; the next one that is not transient is.
    if (spec.transient?.(current)) return;
    // The stored context replaces the context before XState copies the snapshot for persistence: that copy walks
    // every object of the context, and a quote's candidates (hundreds of objects) are not stored.
    const persisted = spec.storedContext
      ? spec.logic.getPersistedSnapshot({ ...current, context: spec.storedContext(current) })
      : this.actor.getPersistedSnapshot();
    const keys = spec.keys?.(current) ?? [];
    const keysNow = keysSignature(keys);
    const wake = spec.wakeUp(current);
    const status = spec.status(current);
    const now = clock.now();
    const history = this.history.at(-1)?.status === status ? this.history : [...this.history, { status, at: now }].slice(-HISTORY_LIMIT);
    try {
      const epoch = this.deps.epochOf(this.shard);
      if (epoch === null) throw new Unavailable(`Shard ${this.shard} is not held by this worker.`);
      const ticket = new WriteTicket();
      const saving = store.save(
        {
          kind: ref.kind,
          id: ref.id,
          snapshot: persisted,
          expectedVersion: this.version,
          epoch,
          wakeAt: wake?.at ?? null,
          updatedAt: now,
          shard: this.shard,
          status,
          history,
          index: spec.index?.(current) ?? null,
          ...(keysNow !== this.keysWritten ? { keys } : {}),
        },
        { ticket },
      );
      // A store that ties no writes (a stand-in) still lets a write follow this one: by waiting for it.
      if (!ticket.settled) ticket.take(saving, undefined);
      this.issued = { snapshot: current, ticket };
      for (const w of this.onIssued.splice(0)) w();
      this.version = await saving;
      if (history !== this.history && spec.operator?.statuses.includes(status)) {
        logger.warn({ actor: actorKey(ref), status, reason: spec.operator.reason(current) }, 'actor waits for an operator');
      }
      this.history = history;
      this.lastPersisted = current;
      this.keysWritten = keysNow;
    } catch (err) {
      // Fencing: another writer advanced this actor; this copy must stop so two owners never both advance it.
      this.failed = err instanceof Error ? err : new Error(String(err));
      logger.error({ actor: actorKey(ref), err: this.failed.message }, 'snapshot write refused; stopping actor');
      this.refused(this);
    }
  }

  /** The ticket of the write of `snapshot` once it is queued, or null once the actor's writes are done without one
   *  (nothing to write, or a later snapshot written in its place): stored by then. */
  async issuedWrite(snapshot: unknown): Promise<WriteTicket | null> {
    const done = this.persist().then(() => null);
    const queued = new Promise<WriteTicket>((resolve) => {
      const check = () => {
        const issued = this.issued;
        if (issued !== null && issued.snapshot === snapshot) resolve(issued.ticket);
        else this.onIssued.push(check);
      };
      check();
    });
    const ticket = await Promise.race([queued, done]);
    if (ticket === null) this.onIssued.length = 0;
    return ticket;
  }

  /** Resolves when no snapshot write of this actor is pending, including writes queued while waiting. */
  async writesDone(): Promise<void> {
    let p: Promise<void>;
    do {
      p = this.persisting;
      await p;
    } while (p !== this.persisting);
  }
}
