// What a protocol is: a table from command `type` to the command's shape and the reply its actor answers with.
// The edge, the bus and the actor kinds all read one table per kind, so a command and its reply cannot drift apart.

/** A protocol table: each key is a command `type`, and the command under it carries that same `type`. */
export type Protocol<P> = { [T in keyof P]: { command: { type: T }; reply: unknown } };

/** Every command of a protocol, as a discriminated union on `type`. */
export type CommandOf<P extends Protocol<P>> = { [T in keyof P]: P[T]['command'] }[keyof P];

/** The command types of a protocol. */
export type CommandTypeOf<P extends Protocol<P>> = keyof P & string;

/** The reply to the command of type `T`. */
export type ReplyOf<P extends Protocol<P>, T extends keyof P> = P[T]['reply'];

/** The internal message of the actor host: a durable wake-up fell due. The runtime sends it to itself and handles
 *  it for every kind; `at` is the stored wake-up time. Delivered at least once, so a stale one must do nothing. */
export interface TimerDue {
  type: 'timer.due';
  at: number;
}

/** The commands the runtime adds to every kind's protocol. A wake-up answers nothing: only success counts. */
export interface RuntimeProtocol {
  'timer.due': { command: TimerDue; reply: null };
}

export const TIMER_DUE = 'timer.due' satisfies TimerDue['type'];
