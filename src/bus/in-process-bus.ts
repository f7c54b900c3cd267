// In-process adapter of the bus port (embedded mode). A request and its reply are handed over as their makers built
// them, deep-frozen, so neither side can change what the other holds (over NATS each side gets its own copy).
// They are not copied through the JSON codec: that costs a quote with candidates about a millisecond on the path
// between its last venue answer and its HTTP answer, and an order creation a tenth of a millisecond. With
// `verifyCodec` (the test suite's setting) every request and reply is also encoded and decoded as NATS would carry
// it and must come back equal: one that would not survive NATS, or would arrive changed (an undefined field, a Map,
// a Date), fails here first.
import { isDeepStrictEqual } from 'node:util';
import { fromErrorData, Unavailable } from '../errors.js';
import { roundTrip } from '../store/codec.js';
import { typedRequest, type OutgoingEnvelope } from './typed-request.js';
import { assertWholeCommand } from './wire.js';
import type { Bus, Envelope, EnvelopeHandler, Reply, RequestOptions, WireMessage } from './types.js';

export interface InProcessBusOptions {
  /** Checks that every request and reply survives the NATS codec unchanged (see above). */
  verifyCodec?: boolean;
}

/** Freezes a JSON-like value and everything in it; a frozen object is taken as frozen all through (its maker froze
 *  it with this). Walked by index over `Object.keys`: `Object.values` of an object just frozen costs about five times
 *  as much (a quote with its candidates, 263 objects: ~35 against ~160 µs). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) deepFreeze(record[keys[i]!]);
  return value;
}

function verified(value: Reply | Envelope, what: string): void {
  if (!isDeepStrictEqual(roundTrip(value), value)) throw new Error(`The ${what} does not survive the NATS codec unchanged.`);
}

/** The envelope the actor gets: the caller's command (its top level copied into a wire message, the rest shared),
 *  frozen, with an absent request id left out as NATS carries it. */
function handedOver(outgoing: OutgoingEnvelope): Envelope {
  const { ref, requestId } = outgoing;
  const message: WireMessage = { ...outgoing.message };
  return deepFreeze(requestId === undefined ? { ref, message } : { ref, message, requestId });
}

export function createInProcessBus(defaultTimeoutMs = 30_000, options: InProcessBusOptions = {}): Bus {
  let handler: EnvelopeHandler | null = null;
  return {
    request: typedRequest(async (outgoing: OutgoingEnvelope, opts: RequestOptions) => {
      const h = handler;
      if (!h) throw new Unavailable('No actor host is serving.');
      const envelope = handedOver(outgoing);
      assertWholeCommand(envelope);
      if (options.verifyCodec) verified(envelope, `request ${envelope.ref.kind}/${envelope.message.type}`);
      const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Unavailable(`The actor did not answer within ${timeoutMs} ms.`)), timeoutMs);
      });
      try {
        const reply = await Promise.race([h(envelope), timeout]);
        if (options.verifyCodec) verified(reply, `reply of ${envelope.ref.kind}/${envelope.message.type}`);
        deepFreeze(reply);
        if (!reply.ok) throw fromErrorData(reply.error);
        return reply.value;
      } finally {
        clearTimeout(timer);
      }
    }),
    async serve(h) {
      if (handler) throw new Error('The in-process bus serves one actor host.');
      handler = h;
      return async () => {
        if (handler === h) handler = null;
      };
    },
    async close() {
      handler = null;
    },
  };
}
