// Child process of bench/cluster.ts: the raw NATS request-reply baseline. Connects to the given server as the
// `worker` user of nats.conf (as a worker would) and answers every request on `router.shard.echo` with its own payload
// (no decoding, no work); prints "ready" once the subscription is known to the server.
// Usage: node --import tsx bench/cluster-echo.ts nats://127.0.0.1:<port>
import { connect } from '@nats-io/transport-node';
import { NATS_USERS } from '../src/cluster/nats-server.js';
import { ECHO_SUBJECT } from './common.js';

const url = process.argv[2];
if (!url) throw new Error('usage: cluster-echo.ts <nats url>');
const nc = await connect({ servers: url, user: NATS_USERS.worker.user, pass: NATS_USERS.worker.pass });
nc.subscribe(ECHO_SUBJECT, {
  callback: (err, msg) => {
    if (!err) msg.respond(msg.data);
  },
});
await nc.flush();
process.stdout.write('ready\n');
process.on('SIGTERM', () => void nc.close().finally(() => process.exit(0)));
