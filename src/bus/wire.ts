// What a bus adapter receives, checked before it is used: off the NATS wire an envelope (its ref, its command's
// fields as the kind's protocol has them) and a reply (a value, or a failure with its error); in process the command's
// fields, which the in-process bus checks too so that embedded mode and the test suite run every check. Each reply's
// value is checked by `typedRequest` against the reply of the command it answers, for every adapter.
import { anyOf, anything, describeWrongAt, isString, oneOf, optional, shapeOf, type Guard } from '../checks.js';
import { MalformedMessage } from '../errors.js';
import { ACTOR_KINDS, isErrorData, malformedCommandAt } from '../protocol/index.js';
import type { ActorRef, Envelope, Failure, Reply, WireMessage } from './types.js';

const isRef = shapeOf<ActorRef>({ kind: oneOf(ACTOR_KINDS), id: isString });
const isEnvelopeShape = shapeOf<Envelope>({ ref: isRef, message: shapeOf<WireMessage>({ type: isString }), requestId: optional(isString) });

/** The envelope a host received, once its shape and its command's fields are checked. @throws MalformedMessage */
export function checkedEnvelope(value: unknown): Envelope {
  if (!isEnvelopeShape(value)) {
    throw new MalformedMessage(`A bus message is not an envelope of this version (ref, message with a type): it fails at ${describeWrongAt(isEnvelopeShape, value)}.`);
  }
  assertWholeCommand(value);
  return value;
}

/** Refuses an envelope whose command's fields are not those of its type in the kind's protocol. @throws MalformedMessage */
export function assertWholeCommand({ ref, message }: Pick<Envelope, 'ref' | 'message'>): void {
  const at = malformedCommandAt(ref.kind, message);
  if (at !== null) {
    throw new MalformedMessage(`The command ${JSON.stringify(message.type)} to ${ref.kind} ${ref.id} does not have the fields of this version's protocol: it fails at ${at}.`);
  }
}

const isReplyShape: Guard<Reply> = anyOf(
  shapeOf<{ ok: true; value: unknown }>({ ok: oneOf([true]), value: anything }),
  shapeOf<Failure>({ ok: oneOf([false]), error: isErrorData }),
);

/** A reply as it came back, once it is a value or a failure with its error. @throws MalformedMessage */
export function checkedReply(value: unknown, what: string): Reply {
  if (!isReplyShape(value)) throw new MalformedMessage(`The reply to ${what} is neither a value nor a failure with its error (${describeWrongAt(isReplyShape, value)}).`);
  return value;
}
