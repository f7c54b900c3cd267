// The services client (@nats-io/services) for a transport-node connection, shared by the admin service (actors/)
// and the admin CLI (src/cli/), so neither imports the other.
import type { NatsConnection } from '@nats-io/transport-node';
import { Svcm } from '@nats-io/services';

/** Svcm for a transport-node connection. @nats-io/services 3.0.0-25 (the newest release) is typed against its own
 *  nats-core copy (3.0.0-50), whose NatsConnection type differs from ours (3.4.0) only in header typings; at run time
 *  it uses the connection through the same protocol methods. */
export function svcm(nc: NatsConnection): Svcm {
  return new Svcm(nc as unknown as ConstructorParameters<typeof Svcm>[0]);
}
