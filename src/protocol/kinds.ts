// Which protocol each actor kind speaks, and the command types of each kind at run time, so the bus and the
// runtime can refuse a command the kind does not know instead of answering it as if it were a read.
import type { OrderProtocol } from './order.js';
import type { Protocol } from './protocol.js';
import type { QuoteHostProtocol, QuoteProtocol } from './quote.js';

// Fails to build when a protocol files a command under another key than its `type`.
type Checked<P extends Protocol<P>> = P;

/** The protocol of every actor kind; an actor kind exists by being listed here. */
export interface Protocols {
  /** The quote actor's own commands, and `quote.order`, which the host of the quote's shard answers. */
  quote: Checked<QuoteProtocol & QuoteHostProtocol>;
  order: Checked<OrderProtocol>;
}

export type ActorKind = keyof Protocols;

/** The command types an actor of kind `K` accepts. */
export type CommandType<K extends ActorKind> = keyof Protocols[K] & string;

/** The command of kind `K` and type `T` (every command of `K` when `T` is left out). */
export type Command<K extends ActorKind, T extends CommandType<K> = CommandType<K>> = {
  [U in T]: Protocols[K][U] extends { command: infer C } ? C : never;
}[T];

/** The reply to the command of kind `K` and type `T`. */
export type ReplyTo<K extends ActorKind, T extends CommandType<K>> = Protocols[K][T] extends { reply: infer R } ? R : never;

/** Any command of any kind (command types are unique across kinds, so `type` alone tells them apart). */
export type AnyCommand = { [K in ActorKind]: Command<K> }[ActorKind];

// Checked by the compiler both ways: a command type missing here, or one the protocol lacks, fails to build.
const QUOTE: Record<CommandType<'quote'>, true> = { 'quote.request': true, 'quote.get': true, 'quote.bind': true, 'quote.order': true };
const ORDER: Record<CommandType<'order'>, true> = { 'order.create': true, 'order.get': true, deposit: true, 'deposit.vanished': true, 'order.unwind': true };
const BY_KIND: { readonly [K in ActorKind]: Readonly<Record<CommandType<K>, true>> } = { quote: QUOTE, order: ORDER };

export const ACTOR_KINDS = Object.keys(BY_KIND) as ActorKind[];

/** The command types of a kind, as the protocol lists them. */
export function commandTypes<K extends ActorKind>(kind: K): Array<CommandType<K>> {
  return Object.keys(BY_KIND[kind]) as Array<CommandType<K>>;
}

/**
 * True when an actor of `kind` accepts a command of this `type`. Only the discriminant is checked here: the bus checks
 * a command's fields where it arrives (malformedCommandAt), before the command reaches anything that narrows with this.
 */
export function isCommandOf(kind: ActorKind, command: { type: string }): command is AnyCommand {
  const table: Readonly<Record<string, true>> | undefined = BY_KIND[kind];
  return table !== undefined && Object.hasOwn(table, command.type);
}
