// Public names of the bus: the port, the in-process adapter (embedded mode), the NATS adapter (cluster), shards.
export type { ActorKind, ActorRef, Bus, Envelope, EnvelopeHandler, Failure, Reply, RequestOptions, WireMessage } from './types.js';
export { typedRequest, type Carry, type OutgoingEnvelope } from './typed-request.js';
export { createInProcessBus } from './in-process-bus.js';
export { createNatsBus, type NatsBus, type NatsBusOptions } from './nats-bus.js';
export { svcm } from './nats-services.js';
export { shardOf, shardSubject } from './shard.js';
