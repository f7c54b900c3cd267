// Loopback ports for the child processes that tests, benches and `npm run cluster` start: a port is chosen free, and a
// launch that loses it to another process before the child listens is tried again on a fresh one.
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback port nothing listens on at the moment of the call. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const addr = srv.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  srv.close();
  await once(srv, 'close');
  return port;
}

/**
 * Fails when something already listens on the loopback port. Without this check, a child's readiness probe on the
 * port could be answered by that other process while the child itself exits on EADDRINUSE.
 */
export async function assertPortFree(port: number, who: string): Promise<void> {
  const srv = createServer();
  try {
    await new Promise<void>((res, rej) => {
      srv.once('error', rej);
      srv.listen(port, '127.0.0.1', () => res());
    });
  } catch (e) {
    throw new Error(`${who}: port ${port} on 127.0.0.1 is not free (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  await new Promise((r) => srv.close(r));
}

/** Tries of a launch whose port another process took between its choice and the child's listen. */
const PORT_TRIES = 3;

/**
 * Whether a launch failed because its port was taken: Node says EADDRINUSE, nats-server (Go) and anvil (Rust) say
 * "address already in use".
 */
export function isPortTaken(err: unknown): boolean {
  return err instanceof Error && /EADDRINUSE|address already in use/i.test(err.message);
}

/**
 * Runs `attempt` (a launch on ports it chooses with freePort) again when the child could not listen because its port
 * was taken: a free port is chosen seconds before the child listens, and meanwhile any process on the machine can
 * take it (an outgoing connection gets its port from the same range).
 */
export async function onFreshPorts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= PORT_TRIES || !isPortTaken(err)) throw err;
    }
  }
}

/** Runs `launch` on the asked port, or on a free one chosen here (onFreshPorts: another is chosen if it is taken). */
export function onAskedOrFreePort<T>(asked: number | undefined, launch: (port: number) => Promise<T>): Promise<T> {
  if (asked !== undefined) return launch(asked);
  return onFreshPorts(async () => launch(await freePort()));
}
