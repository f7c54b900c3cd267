// Public names of the bus: the port, the in-process adapter (embedded mode), the NATS adapter (cluster), shards.
export type { ActorKind, ActorMessage, ActorRef, Bus, Envelope, EnvelopeHandler, Reply, RequestOptions } from './types.js';
export { createInProcessBus } from './in-process-bus.js';
export { createNatsBus, type NatsBus, type NatsBusOptions } from './nats-bus.js';
export { shardOf, shardSubject } from './shard.js';
