// Key entries are read back through a check of their shape, not cast: a damaged entry stops the read, naming it.
import { describe, expect, it } from 'vitest';
import { arrayOf, isInteger, isString, isUnits, mapOf, nullable, optional, shapeOf } from '../../../src/checks.js';
import { readEntry, StoredEntryError } from '../../../src/store/stored-entry.js';

interface Sent {
  key: string;
  nonce: number;
  amount: string;
  index: number | null;
  tries?: Array<{ hash: string }>;
  meta: Record<string, string>;
}
const isSent = shapeOf<Sent>({
  key: isString, nonce: isInteger, amount: isUnits, index: nullable(isInteger), tries: optional(arrayOf(shapeOf<{ hash: string }>({ hash: isString }))), meta: mapOf(isString),
});

describe('A stored key entry is read through its shape', () => {
  it('an entry of the shape is answered as it was written; absent optional fields and unknown extra fields pass', () => {
    const entry = { key: 'o1:deliver', nonce: 7, amount: '1500000', index: null, meta: { a: 'b' }, extra: true };
    expect(readEntry(JSON.stringify(entry), 'outbox/o1:deliver', isSent)).toEqual(entry);
    const withTries = { ...entry, index: 2, tries: [{ hash: '0xab' }] };
    expect(readEntry(JSON.stringify(withTries), 'outbox/o1:deliver', isSent)).toEqual(withTries);
  });

  it.each([
    ['not JSON', '{"key":', /outbox\/k is not JSON/],
    ['a missing field', JSON.stringify({ key: 'k', amount: '1', index: null, meta: {} }), /outbox\/k does not have the shape/],
    ['a number where base units are written as digits', JSON.stringify({ key: 'k', nonce: 1, amount: 1, index: null, meta: {} }), /does not have the shape/],
    ['a fractional nonce', JSON.stringify({ key: 'k', nonce: 1.5, amount: '1', index: null, meta: {} }), /does not have the shape/],
    ['a bad optional field when present', JSON.stringify({ key: 'k', nonce: 1, amount: '1', index: null, meta: {}, tries: [{}] }), /does not have the shape/],
    ['an array for an object', '[]', /does not have the shape/],
  ])('%s → StoredEntryError naming the entry', (_label, raw, message) => {
    expect(() => readEntry(raw, 'outbox/k', isSent)).toThrow(StoredEntryError);
    expect(() => readEntry(raw, 'outbox/k', isSent)).toThrow(message);
  });
});
