// The typed side of every bus adapter: `Bus.request` over an adapter's way of carrying one envelope. Commands are
// checked against the kind's protocol before they leave, so every adapter refuses an unknown command the same way, and
// each reply's value against the protocol's reply to its command when it comes back.
import { describeWrongAt } from '../checks.js';
import { MalformedMessage, UnknownCommand } from '../errors.js';
import { isCommandOf, replyCheck, type ActorKind, type AnyCommand, type Command, type CommandType, type ReplyTo } from '../protocol/index.js';
import type { ActorRef, Bus, RequestOptions } from './types.js';

/** What an adapter sends for one request. */
export interface OutgoingEnvelope {
  ref: ActorRef;
  message: AnyCommand;
  requestId?: string;
}

/** Carries one envelope to its actor and answers the reply's value, not yet checked; a failure reply is thrown as its
 *  RouterError. */
export type Carry = (envelope: OutgoingEnvelope, opts: RequestOptions) => Promise<unknown>;

export function typedRequest(carry: Carry): Bus['request'] {
  return async function request<K extends ActorKind, T extends CommandType<K>>(
    ref: ActorRef<K>,
    command: Command<K, T> & { type: T },
    opts: RequestOptions = {},
  ): Promise<ReplyTo<K, T>> {
    // Reached only by code that went around the compiler (JSON from elsewhere, a cast): answered before any I/O.
    if (!isCommandOf(ref.kind, command)) throw new UnknownCommand(`An actor of kind ${ref.kind} has no command ${JSON.stringify(command.type)}.`);
    const value = await carry({ ref, message: command, requestId: opts.requestId }, opts);
    // The value is checked against the protocol's reply to this command, so a reply of another version's shape fails
    // here instead of in whatever reads it.
    const check = replyCheck(ref.kind, command.type);
    if (!check(value)) {
      throw new MalformedMessage(
        `The reply of ${ref.kind} ${ref.id} to ${JSON.stringify(command.type)} does not have the fields of this version's protocol: it fails at ${describeWrongAt(check, value)}.`,
      );
    }
    return value;
  };
}
