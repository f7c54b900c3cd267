// What the runtime needs to host one kind of actor: its machine (effects provided), how commands become events,
// when an answer is ready, what the answer is, and the next durable wake-up.
import type { AnyActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import type { ActorKind, ActorMessage, Reply } from '../src/bus/types.js';
import type { OrderIndex } from '../src/store/types.js';

export interface WakeUp {
  at: number;
  event: EventObject;
}

export interface ActorKindSpec {
  kind: ActorKind;
  logic: AnyActorLogic;
  /** Input for a new actor when `message` may create one; null when the message needs an existing actor. */
  create(id: string, message: ActorMessage): unknown | null;
  /** The event a message becomes for an existing actor, or null when the message only reads. */
  toEvent(message: ActorMessage, now: number): EventObject | null;
  /** Answer for a message whose actor does not exist. */
  notFound(id: string, message: ActorMessage): Reply;
  /** True when the snapshot is stable enough to answer `message` (e.g. pricing has finished). */
  settled(snapshot: AnyMachineSnapshot, message: ActorMessage): boolean;
  reply(snapshot: AnyMachineSnapshot, message: ActorMessage): Reply;
  /** The next durable wake-up derived from the snapshot; the runtime stores it beside the snapshot. */
  wakeUp(snapshot: AnyMachineSnapshot): WakeUp | null;
  /** The coarse state stored beside the snapshot for listings and history (an order's Family A status). */
  status(snapshot: AnyMachineSnapshot): string;
  /** Fields stored in the order index (orders only). */
  index?(snapshot: AnyMachineSnapshot): OrderIndex | null;
}
