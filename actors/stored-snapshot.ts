// A stored snapshot is checked before XState restores it: XState takes any object as a persisted snapshot, and an
// actor restored from one of another shape (damaged, or written by a version whose context differs) would fail later,
// on a field it does not have, perhaps halfway through moving money. Refused here, the actor stays stored as it is, its
// messages and wake-ups fail naming the problem, and an operator reads it through the admin subject.
import { isObject, isString, oneOf, shapeOf } from '../src/checks.js';

/** A stored snapshot this version does not restore. */
export class StoredSnapshotError extends Error {
  override readonly name = 'StoredSnapshotError';
}

interface PersistedShape {
  status: string;
  value: unknown;
  context: unknown;
}

/** What every persisted XState snapshot of a machine has: its status, its state value and a context object. */
const isPersisted = shapeOf<PersistedShape>({
  status: oneOf(['active', 'done', 'error', 'stopped']),
  value: (v) => isString(v) || isObject(v),
  context: isObject,
});

/** Why `snapshot` is not a persisted snapshot whose context passes `contextProblem`, or null when it is one. */
export function storedSnapshotProblem(snapshot: unknown, contextProblem: (context: unknown) => string | null): string | null {
  if (!isPersisted(snapshot)) return 'it is not a persisted XState snapshot (status, value, context)';
  return contextProblem(snapshot.context);
}
