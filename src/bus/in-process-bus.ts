// In-process adapter of the bus port (embedded mode). Messages and replies still go through the JSON codec,
// so anything that would not survive NATS fails here first.
import { fromErrorData, Unavailable } from '../errors.js';
import { decodeJson, encodeJson } from '../store/codec.js';
import { typedRequest, type OutgoingEnvelope } from './typed-request.js';
import type { Bus, Envelope, EnvelopeHandler, Reply, RequestOptions } from './types.js';

export function createInProcessBus(defaultTimeoutMs = 30_000): Bus {
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
        const reply = decodeJson<Reply<R>>(encodeJson(await Promise.race([h(envelope), timeout])));
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
