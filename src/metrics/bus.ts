// A bus that times every request this process sends to an actor, around any adapter (in-process, NATS). Labels are
// the actor kind, the command type and the outcome (ok, or the typed error's code): all from closed sets.
import { RouterError } from '../errors.js';
import type { Bus } from '../bus/types.js';
import { secondsSince, type Metrics } from './registry.js';

export function instrumentBus<B extends Bus>(bus: B, metrics: Metrics): B {
  const request: Bus['request'] = async (ref, command, opts) => {
    const t0 = performance.now();
    let outcome = 'ok';
    try {
      return await bus.request(ref, command, opts);
    } catch (err) {
      outcome = err instanceof RouterError ? err.code : 'error';
      throw err;
    } finally {
      metrics.busRequestDuration.observe({ kind: ref.kind, command: command.type, outcome }, secondsSince(t0));
    }
  };
  // The adapters are plain objects of closures, so spreading keeps their other methods (serve, serveShard) bound.
  return { ...bus, request };
}
