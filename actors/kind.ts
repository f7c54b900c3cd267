// What the runtime needs to host one kind of actor: its machine (effects provided), how commands become events,
// when an answer is ready, what the answer to each command is, and the next durable wake-up. A kind is typed by its
// protocol (src/protocol/) and its machine, so its members see the command union and the machine's snapshots.
import type { AnyActorLogic, EventObject, InputFrom, SnapshotFrom } from 'xstate';
import type { ActorKind, Failure, Reply } from '../src/bus/types.js';
import type { CommandOf, Protocol, ReplyOf, TimerDue } from '../src/protocol/index.js';
import type { OrderIndex } from '../src/store/types.js';

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
  /** Input for a new actor when `command` may create one; null when the command needs an existing actor. */
  create(id: string, command: CommandOf<P>): InputFrom<L> | null;
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
  /** Fields stored in the order index (orders only). */
  index?(snapshot: SnapshotFrom<L>): OrderIndex | null;
}

/** A kind with its protocol and machine erased, as the runtime holds it. */
export type AnyActorKindSpec = ActorKindSpec;
