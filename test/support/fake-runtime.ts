// A runtime's two ways in over one fake envelope handler, for tests of what wraps a runtime (order placement): `ask`
// is `handle` with the command spread into an envelope, as the runtime's own is.
import type { Runtime } from '../../actors/runtime.js';
import type { ActorRef, EnvelopeHandler } from '../../src/bus/types.js';
import type { AnyCommand } from '../../src/protocol/index.js';

export function runtimeOver(handle: EnvelopeHandler): Pick<Runtime, 'handle' | 'ask'> {
  const ask = (ref: ActorRef, command: AnyCommand, requestId?: string) => handle({ ref, message: { ...command }, requestId });
  // The fake answers whatever its test scripted; the test, not the type, says which reply each command gets.
  return { handle, ask: ask as Runtime['ask'] };
}
