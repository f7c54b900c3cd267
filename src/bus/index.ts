// Public names of the bus: the port and the in-process adapter (NATS joins with the cluster issue).
export type { ActorKind, ActorMessage, ActorRef, Bus, Envelope, EnvelopeHandler, Reply, RequestOptions } from './types.js';
export { createInProcessBus } from './in-process-bus.js';
