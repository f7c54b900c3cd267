// One way to connect to NATS for every cluster process: the configured servers and user, reconnecting forever (a
// restarted nats-server is rejoined without a restart of ours), connection events in the log.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

export async function connectNats(config: Config, name: string, logger: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: config.nats.servers,
    name,
    ...(config.nats.user ? { user: config.nats.user, pass: config.nats.pass ?? '' } : {}),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    timeout: 5000,
    // nats.js otherwise builds Error objects for async stack traces on every request it makes (the lease renewals,
    // the admin service); the bus's own requests (src/bus/nats-requester.ts) build none either way.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') logger.warn({ nats: s.type, server: 'server' in s ? s.server : undefined }, 'nats connection');
    }
  })().catch(() => undefined);
  return nc;
}
