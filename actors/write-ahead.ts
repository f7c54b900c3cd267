// Effects start only once the snapshot of the state that started them is stored. XState starts an invoked promise
// inside the transition that enters its state, before the runtime has written that transition's snapshot. An effect
// that ran ahead of a write the store then refused (a worker whose lease lapsed) or never received (a crash) would
// have moved money no stored state knows of; the actor restored from its earlier snapshot could then take another
// way (a cancel that fell due meanwhile) and reuse the effect's keys for other amounts, which a keyed ledger answers
// with the first transfer. Waiting for the write closes that: a stored effect state is replayed with the same input
// after any crash, and one that was never stored never moved anything.
import { fromPromise, type AnyActorRef, type PromiseActorLogic } from 'xstate';

/** Called as an effect starts, inside the transition that started it: resolves once that transition's snapshot is
 *  stored, rejects when it will not be (the actor stopped first). */
export type StoredBarrier = () => Promise<void>;

/** Per actor system (one per hosted actor and its children): how its effects wait for the store. */
const barriers = new WeakMap<object, StoredBarrier>();

/** Called by the runtime before it starts an actor. */
export function holdEffectsUntilStored(actor: AnyActorRef, stored: StoredBarrier): void {
  barriers.set(actor.system, stored);
}

/**
 * `fromPromise`, whose work starts only once the snapshot that started it is stored. An actor created outside a
 * runtime (a machine test) runs it at once.
 */
export function afterStored<O, I>(work: (args: { input: I; signal: AbortSignal }) => Promise<O>): PromiseActorLogic<O, I> {
  return fromPromise<O, I>(async ({ input, signal, system }) => {
    await barriers.get(system)?.();
    return work({ input, signal });
  });
}
