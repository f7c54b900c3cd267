// The typed side of every bus adapter: `Bus.request` over an adapter's way of carrying one envelope. Commands are
// checked against the kind's protocol before they leave, so every adapter refuses an unknown command the same way.
import { UnknownCommand } from '../errors.js';
import { isCommandOf, type ActorKind, type AnyCommand, type Command, type CommandType, type ReplyTo } from '../protocol/index.js';
import type { ActorRef, Bus, RequestOptions } from './types.js';

/** What an adapter sends for one request. */
export interface OutgoingEnvelope {
  ref: ActorRef;
  message: AnyCommand;
  requestId?: string;
}

/**
 * Carries one envelope to its actor and answers the reply's value, decoded with the codec as type `R` (the
 * protocol's reply: the actor kind built it from its typed reply table); a failure reply is thrown as its RouterError.
 */
export type Carry = <R>(envelope: OutgoingEnvelope, opts: RequestOptions) => Promise<R>;

export function typedRequest(carry: Carry): Bus['request'] {
  return async function request<K extends ActorKind, T extends CommandType<K>>(
    ref: ActorRef<K>,
    command: Command<K, T> & { type: T },
    opts: RequestOptions = {},
  ): Promise<ReplyTo<K, T>> {
    // Reached only by code that went around the compiler (JSON from elsewhere, a cast): answered before any I/O.
    if (!isCommandOf(ref.kind, command)) throw new UnknownCommand(`An actor of kind ${ref.kind} has no command ${JSON.stringify(command.type)}.`);
    return carry<ReplyTo<K, T>>({ ref, message: command, requestId: opts.requestId }, opts);
  };
}
