// In-process adapter of the bus port (embedded mode). Messages and replies still go through the JSON codec,
// so anything that would not survive NATS fails here first.
import { fromErrorData, Unavailable } from '../errors.js';
import { decodeJson, encodeJson } from '../store/codec.js';
import type { Bus, EnvelopeHandler, Reply } from './types.js';

export function createInProcessBus(defaultTimeoutMs = 30_000): Bus {
  let handler: EnvelopeHandler | null = null;
  return {
    async request<T>(ref: Parameters<Bus['request']>[0], message: Parameters<Bus['request']>[1], opts: Parameters<Bus['request']>[2] = {}) {
      const h = handler;
      if (!h) throw new Unavailable('No actor host is serving.');
      const envelope = decodeJson<Parameters<EnvelopeHandler>[0]>(encodeJson({ ref, message, requestId: opts.requestId }));
      const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Unavailable(`The actor did not answer within ${timeoutMs} ms.`)), timeoutMs);
      });
      try {
        const reply = decodeJson<Reply>(encodeJson(await Promise.race([h(envelope), timeout])));
        if (!reply.ok) throw fromErrorData(reply.error);
        return reply.value as T;
      } finally {
        clearTimeout(timer);
      }
    },
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
