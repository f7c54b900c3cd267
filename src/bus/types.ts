// The bus port: how the edge reaches an actor. In-process now; NATS subjects router.shard.<n> later.
import type { ErrorData } from '../errors.js';

export type ActorKind = 'quote' | 'order';

export interface ActorRef {
  kind: ActorKind;
  id: string;
}

/** A command to an actor; `type` names it (`quote.request`, `order.create`, ...). Must survive the JSON codec. */
export interface ActorMessage {
  type: string;
  [field: string]: unknown;
}

export interface Envelope {
  ref: ActorRef;
  message: ActorMessage;
  /** Travels from the edge into the actor's log lines. */
  requestId?: string;
}

export type Reply = { ok: true; value: unknown } | { ok: false; error: ErrorData };

export type EnvelopeHandler = (envelope: Envelope) => Promise<Reply>;

export interface RequestOptions {
  requestId?: string;
  timeoutMs?: number;
}

export interface Bus {
  /** Sends a command and waits for the actor's reply; a failure reply is thrown as the typed RouterError it names. */
  request<T = unknown>(ref: ActorRef, message: ActorMessage, opts?: RequestOptions): Promise<T>;
  /** Registers the actor host (one per process in embedded mode). Returns a function that stops serving. */
  serve(handler: EnvelopeHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
