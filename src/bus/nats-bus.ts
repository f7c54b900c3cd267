// NATS adapter of the bus port (cluster mode). A request for an actor goes to `router.shard.<n>` of the actor's shard;
// only the worker holding that shard's lease subscribes (in a queue group named after the subject, so during a hand
// over at most one copy answers). While a shard moves nobody subscribes: the edge retries "no responders" for
// `retryMs`, then the caller gets Unavailable (503). Envelopes and replies go through the JSON codec (bigints).
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { fromErrorData, MalformedMessage, toErrorData, Unavailable } from '../errors.js';
import type { Logger } from '../log.js';
import { decodeJson, encodeJson } from '../store/codec.js';
import { createNatsRequester, NatsRequestFailed } from './nats-requester.js';
import { shardOf, shardSubject } from './shard.js';
import { typedRequest, type OutgoingEnvelope } from './typed-request.js';
import type { Bus, EnvelopeHandler, Reply, RequestOptions } from './types.js';
import { checkedEnvelope, checkedReply } from './wire.js';

export interface NatsBusOptions {
  shards: number;
  /** How long a request waits for its reply. */
  timeoutMs: number;
  /** How long "no responders" (a shard without an owner, e.g. while it moves) is retried before Unavailable. */
  retryMs: number;
  logger: Logger;
}

export interface NatsBus extends Bus {
  /** Serves one shard's subject; the lease manager calls it when the lease is won and the returned stop when lost. */
  serveShard(shard: number, handler: EnvelopeHandler): Promise<() => Promise<void>>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createNatsBus(nc: NatsConnection, opts: NatsBusOptions): NatsBus {
  const { logger } = opts;
  const subs = new Set<Subscription>();
  const requester = createNatsRequester(nc);

  async function answer(msg: Msg, handler: EnvelopeHandler): Promise<void> {
    let reply: Reply;
    try {
      reply = await handler(checkedEnvelope(decodeJson(msg.string())));
    } catch (err) {
      if (err instanceof MalformedMessage) logger.warn({ subject: msg.subject, err: err.message }, 'malformed bus message refused');
      reply = { ok: false, error: toErrorData(err) };
    }
    // A reply to a requester that gave up is harmless; a closed connection is not worth crashing over.
    try {
      msg.respond(encodeJson(reply));
    } catch (err) {
      logger.warn({ subject: msg.subject, err: String(err) }, 'reply not sent');
    }
  }

  function subscribe(subject: string, handler: EnvelopeHandler): () => Promise<void> {
    const sub = nc.subscribe(subject, {
      queue: subject,
      callback: (err, msg) => {
        if (err) {
          logger.error({ subject, err: String(err) }, 'subscription failed');
          return;
        }
        void answer(msg, handler);
      },
    });
    subs.add(sub);
    return async () => {
      subs.delete(sub);
      if (!sub.isClosed()) await sub.drain().catch(() => sub.unsubscribe());
    };
  }

  return {
    request: typedRequest(async (outgoing: OutgoingEnvelope, ro: RequestOptions) => {
      const subject = shardSubject(shardOf(outgoing.ref.id, opts.shards));
      const payload = encodeJson(outgoing);
      const timeoutMs = ro.timeoutMs ?? opts.timeoutMs;
      const started = Date.now();
      let pause = 25;
      for (;;) {
        try {
          const m = await requester.request(subject, payload, Math.max(1, timeoutMs - (Date.now() - started)));
          const reply = checkedReply(decodeJson(m.string()), `${outgoing.ref.kind}/${outgoing.message.type}`);
          // An actor leaving a worker (its shard moving, the worker draining) answers unavailable: the new owner will
          // take it within the retry window, so try again there before giving the caller a 503.
          if (!reply.ok && reply.error.code === 'unavailable' && Date.now() - started + pause < Math.min(opts.retryMs, timeoutMs)) {
            await sleep(pause);
            pause = Math.min(pause * 2, 400);
            continue;
          }
          if (!reply.ok) throw fromErrorData(reply.error);
          return reply.value;
        } catch (err) {
          const noResponders = err instanceof NatsRequestFailed && err.reason === 'no-responders';
          const elapsed = Date.now() - started;
          if (noResponders && elapsed + pause < Math.min(opts.retryMs, timeoutMs)) {
            await sleep(pause);
            pause = Math.min(pause * 2, 400);
            continue;
          }
          if (noResponders) throw new Unavailable(`No worker holds shard ${subject} yet; try again.`);
          if (err instanceof NatsRequestFailed && err.reason === 'timeout') throw new Unavailable(`The actor did not answer within ${timeoutMs} ms.`);
          if (err instanceof NatsRequestFailed && err.reason === 'closed') throw new Unavailable('The message bus is unreachable.');
          // This process's NATS user may not publish to the shard subjects: a deployment error, not a passing outage.
          if (err instanceof NatsRequestFailed && err.reason === 'denied') throw new Error(`The NATS user of this process may not publish to ${subject} (nats.conf permissions).`);
          if (err instanceof Error && err.constructor.name.endsWith('ConnectionError')) throw new Unavailable('The message bus is unreachable.');
          throw err;
        }
      }
    }),
    async serve(handler) {
      return subscribe('router.shard.*', handler);
    },
    async serveShard(shard, handler) {
      return subscribe(shardSubject(shard), handler);
    },
    async close() {
      await Promise.all([...subs].map((s) => s.drain().catch(() => undefined)));
      subs.clear();
      await requester.close();
    },
  };
}
