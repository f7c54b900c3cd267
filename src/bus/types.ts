// The bus port: how the edge reaches an actor. In-process in embedded mode; NATS subjects router.shard.<n> in a
// cluster. Commands and replies are typed by the protocol of the actor's kind (src/protocol/); on the wire they are
// JSON through the codec (bigints survive).
import type { ErrorData } from '../errors.js';
import type { ActorKind, Command, CommandType, ReplyTo } from '../protocol/index.js';

export type { ActorKind } from '../protocol/index.js';

export interface ActorRef<K extends ActorKind = ActorKind> {
  kind: K;
  id: string;
}

/**
 * A message as it arrives off the wire: any JSON object with a `type`. The bus checks its fields against the command
 * of that `type` in the kind's protocol (src/protocol/checks.ts), and the runtime refuses a `type` the kind does not
 * know, before a kind sees it.
 */
export interface WireMessage {
  type: string;
  [field: string]: unknown;
}

/** What the actor host receives. */
export interface Envelope {
  ref: ActorRef;
  message: WireMessage;
  /** Travels from the edge into the actor's log lines. */
  requestId?: string;
}

export interface Failure {
  ok: false;
  error: ErrorData;
}

export type Reply<V = unknown> = { ok: true; value: V } | Failure;

export type EnvelopeHandler = (envelope: Envelope) => Promise<Reply>;

export interface RequestOptions {
  requestId?: string;
  timeoutMs?: number;
}

export interface Bus {
  /**
   * Sends a command and waits for the actor's reply; the reply's type follows from the ref's kind and the command's
   * `type`. A failure reply is thrown as the typed RouterError it names; a command the kind does not know is refused
   * with UnknownCommand before anything is sent.
   */
  request<K extends ActorKind, T extends CommandType<K>>(
    ref: ActorRef<K>,
    command: Command<K, T> & { type: T },
    opts?: RequestOptions,
  ): Promise<ReplyTo<K, T>>;
  /** Registers the actor host (one per process in embedded mode). Returns a function that stops serving. */
  serve(handler: EnvelopeHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
