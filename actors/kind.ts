// What the runtime needs to host one kind of actor: its machine (effects provided), how commands become events,
// when an answer is ready, what the answer to each command is, and the next durable wake-up. A kind is typed by its
// protocol (src/protocol/) and its machine, so its members see the command union and the machine's snapshots.
import type { AnyActorLogic, EventObject, InputFrom, SnapshotFrom } from 'xstate';
import type { ActorKind, Failure, Reply } from '../src/bus/types.js';
import type { CommandOf, Protocol, ReplyOf, TimerDue } from '../src/protocol/index.js';
import type { KeyEntry, OrderIndex } from '../src/store/types.js';

export interface WakeUp {
  at: number;
  /** The event sent when it fires, stamped with the host's clock then (several waits may have fallen due at once). */
  event(now: number): EventObject;
}

/** One answer per command type: the compiler checks each against the reply the protocol gives that command. */
export type Replies<P extends Protocol<P>, S> = {
  [T in keyof P]: (snapshot: S, command: P[T]['command']) => Reply<ReplyOf<P, T>>;
};

// `any` is the erased default: the runtime holds kinds of every protocol in one list (AnyActorKindSpec), and a kind
// is checked against its own protocol where it is written.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ActorKindSpec<P extends Protocol<P> = any, L extends AnyActorLogic = AnyActorLogic> {
  kind: ActorKind;
  logic: L;
  /** Input for a new actor when `command` may create one; null when the command needs an existing actor. `drawn` is
   *  the value taken from the counter `sequence` named for this command; absent when it named none. */
  create(id: string, command: CommandOf<P>, drawn?: number): InputFrom<L> | null;
  /** The durable counter a new actor's input needs a value of (an order's deposit vault index), or null. The runtime
   *  takes the value in the store write that saves the first snapshot (ActorStore.createNumbered), builds the actor
   *  from the input (its initial snapshot, nothing run), and starts it once that snapshot is stored: nothing of the
   *  actor runs, and nothing derived from the value is shown, before both are durable. */
  sequence?(command: CommandOf<P>): string | null;
  /** Entries of the store's key map written with a snapshot, in its write (an order's deposit address → order). The
   *  runtime writes them with the first snapshot that has them and again only when they change. */
  keys?(snapshot: SnapshotFrom<L>): KeyEntry[];
  /** True for a snapshot that need not be durable: the runtime does not write it. Only for states nothing a client saw
   *  depends on (a quote while pricing: a crash then loses a quote nobody was given); the next snapshot that is not
   *  transient is written as usual, before its answer. */
  transient?(snapshot: SnapshotFrom<L>): boolean;
  /** The context as written, when less than the actor holds must be stored: what was answered once from memory and is
   *  never read again (a quote's candidates) stays out of the store. Absent: the context is written whole. */
  storedContext?(snapshot: SnapshotFrom<L>): SnapshotFrom<L> extends { context: infer C } ? C : never;
  /** The event a command becomes for an existing actor, or null when the command only reads. Not typed by the
   *  machine's events: a command may exist before its machine handles it (XState ignores an event it does not take). */
  toEvent(command: CommandOf<P>, now: number): EventObject | null;
  /** Answer for a command whose actor does not exist. */
  notFound(id: string, command: CommandOf<P>): Failure;
  /** True when the snapshot is stable enough to answer `command` (e.g. pricing has finished). */
  settled(snapshot: SnapshotFrom<L>, command: CommandOf<P> | TimerDue): boolean;
  /** The answer to each command of the protocol; its keys are the commands the kind accepts (any other type is
   *  answered UnknownCommand by the runtime). A wake-up (`timer.due`) is answered by the runtime itself. */
  replies: Replies<P, SnapshotFrom<L>>;
  /** The next durable wake-up derived from the snapshot; the runtime stores it beside the snapshot. */
  wakeUp(snapshot: SnapshotFrom<L>): WakeUp | null;
  /** The coarse state stored beside the snapshot for listings and history (an order's Family A status). */
  status(snapshot: SnapshotFrom<L>): string;
  /** Statuses in which the actor waits for an operator: entering one is logged at warn, with `reason` when given. */
  operator?: { statuses: readonly string[]; reason(snapshot: SnapshotFrom<L>): string | null };
  /** Why a stored context is not one this version restores (a field it reads missing or of another type), or null:
   *  checked before the runtime restores a stored snapshot. */
  contextProblem(context: unknown): string | null;
  /** Fields stored in the order index (orders only). */
  index?(snapshot: SnapshotFrom<L>): OrderIndex | null;
  /** How long an idle actor of this kind stays in memory, when shorter than the runtime's idle time: for a kind whose
   *  actors are seldom asked again after their first answer (a quote), so that memory and the garbage collector do not
   *  carry every one of them for the runtime's whole idle time. Absent: the runtime's. */
  idleMs?: number;
}

/** A kind with its protocol and machine erased, as the runtime holds it. */
export type AnyActorKindSpec = ActorKindSpec;
