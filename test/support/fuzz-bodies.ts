// fast-check arbitraries of request bodies for the fuzz tests of every family: any JSON value, and bodies near a
// valid one, where the interesting refusals are.
import fc from 'fast-check';

export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Bodies near the valid ones: a valid body with one field replaced by anything, removed, or one added. */
export function near(base: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(base);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...keys), anyJson).map(([k, v]) => ({ ...base, [k]: v })),
    fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(base).filter(([x]) => x !== k))),
    fc.tuple(fc.string({ maxLength: 20 }), anyJson).map(([k, v]) => ({ ...base, [k]: v })),
    anyJson,
  );
}
