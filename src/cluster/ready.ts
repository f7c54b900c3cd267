// Readiness of a process started by a supervisor (src/cluster/local-cluster.ts, tests, benches): once it serves, the
// process sends one `ready` message on its IPC channel. Unlike a log line, no log level can hide it.

export interface ReadyMessage {
  type: 'ready';
  mode: 'embedded' | 'worker' | 'edge';
}

/** Tells the supervisor, when there is one with an IPC channel, that this process serves. The channel is unref'd so
 *  it never keeps the process alive by itself. */
export function tellReady(mode: ReadyMessage['mode']): void {
  if (!process.send) return;
  process.channel?.unref();
  process.send({ type: 'ready', mode } satisfies ReadyMessage);
}

export function isReadyMessage(m: unknown): m is ReadyMessage {
  return typeof m === 'object' && m !== null && 'type' in m && m.type === 'ready';
}
