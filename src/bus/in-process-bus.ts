// In-process adapter of the bus port (embedded mode). A request goes through the JSON codec (the actor gets its own
// copy, as over NATS); a reply is handed over as the actor built it, deep-frozen, so neither side can change what the
// other holds. Copying every reply through the codec cost a quote with candidates about a millisecond, on the path
// between its last venue answer and its HTTP answer. With `verifyReplies` (the test suite's setting) every reply is
// also encoded and decoded as NATS would carry it and must come back equal: a reply that would not survive NATS, or
// would arrive changed (an undefined field, a Map, a Date), fails here first.
import { isDeepStrictEqual } from 'node:util';
import { fromErrorData, Unavailable } from '../errors.js';
import { decodeJson, encodeJson, roundTrip } from '../store/codec.js';
import { typedRequest, type OutgoingEnvelope } from './typed-request.js';
import type { Bus, Envelope, EnvelopeHandler, Reply, RequestOptions } from './types.js';

export interface InProcessBusOptions {
  /** Checks that every reply survives the NATS codec unchanged (see above). */
  verifyReplies?: boolean;
}

/** Freezes a JSON-like value and everything in it; a frozen object is taken as frozen all through (its maker froze
 *  it with this). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}

function verified(reply: Reply, envelope: Envelope): void {
  const carried: unknown = roundTrip(reply);
  if (!isDeepStrictEqual(carried, reply)) {
    throw new Error(`The reply of ${envelope.ref.kind}/${envelope.message.type} does not survive the NATS codec unchanged.`);
  }
}

export function createInProcessBus(defaultTimeoutMs = 30_000, options: InProcessBusOptions = {}): Bus {
  let handler: EnvelopeHandler | null = null;
  return {
    request: typedRequest(async <R>(outgoing: OutgoingEnvelope, opts: RequestOptions) => {
      const h = handler;
      if (!h) throw new Unavailable('No actor host is serving.');
      const envelope = decodeJson<Envelope>(encodeJson(outgoing));
      const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Unavailable(`The actor did not answer within ${timeoutMs} ms.`)), timeoutMs);
      });
      try {
        const reply = await Promise.race([h(envelope), timeout]);
        if (options.verifyReplies) verified(reply, envelope);
        deepFreeze(reply);
        if (!reply.ok) throw fromErrorData(reply.error);
        // The kind built the value from its typed reply table for this command (as over NATS, where the codec's
        // decode names the type): the protocol's reply R.
        return reply.value as R;
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
