// The `GET /orders` cursor: positions round-trip under one key; anything not issued unchanged under that key — edited,
// truncated, padded, foreign, garbage — is refused as InvalidRequest on field `cursor`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH, type CursorPosition } from '../../../http/family-c/cursor.js';
import { InvalidRequest } from '../../../src/errors.js';

const KEY = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff', 'hex');
const OTHER = Buffer.from('ff'.repeat(32), 'hex');
const POS: CursorPosition = { createdAt: 1_767_225_600_123, id: 'cfe092b2-a61f-5973-9179-7b09133fe1a1' };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function refused(text: string, key: Uint8Array = KEY): boolean {
  try {
    decodeCursor(key, text);
    return false;
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequest);
    expect((err as InvalidRequest).field).toBe('cursor');
    expect((err as InvalidRequest).message).toMatch(/^`cursor` /);
    return true;
  }
}

const position = fc.record({
  createdAt: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  id: fc.string({ minLength: 1, maxLength: 32, unit: 'binary' }),
});

describe('round trip', () => {
  it('a cursor decodes to its position', () => {
    const text = encodeCursor(KEY, POS);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(KEY, text)).toEqual(POS);
  });
  it('edges: createdAt 0 and MAX_SAFE_INTEGER, a one-character id, a 128-byte id, an id starting with U+FEFF', () => {
    for (const pos of [
      { createdAt: 0, id: 'x' },
      { createdAt: Number.MAX_SAFE_INTEGER, id: 'é'.repeat(64) },
      { createdAt: 1, id: 'a'.repeat(128) },
      { createdAt: 0, id: '\uFEFF\u0000' }, // a leading U+FEFF is part of the id, not a byte-order mark
    ]) {
      const text = encodeCursor(KEY, pos);
      expect(text.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
      expect(decodeCursor(KEY, text)).toEqual(pos);
    }
  });
  it('any valid position (fast-check)', () => {
    fc.assert(
      fc.property(position, (pos) => {
        expect(decodeCursor(KEY, encodeCursor(KEY, pos))).toEqual(pos);
      }),
      { numRuns: 500 },
    );
  });
  it('positions that cannot be a cursor are refused at encoding (our bug, not the client\'s)', () => {
    for (const pos of [
      { createdAt: -1, id: 'a' },
      { createdAt: 1.5, id: 'a' },
      { createdAt: Number.MAX_SAFE_INTEGER + 1, id: 'a' },
      { createdAt: Number.NaN, id: 'a' },
      { createdAt: 1, id: '' },
      { createdAt: 1, id: 'a'.repeat(129) },
      { createdAt: 1, id: '\ud800' },
    ]) {
      expect(() => encodeCursor(KEY, pos)).toThrow(RangeError);
    }
    expect(() => encodeCursor(Buffer.alloc(8), POS)).toThrow(RangeError);
  });
});

describe('tampering', () => {
  it('every single-character change of a valid cursor is refused', () => {
    for (const pos of [POS, { createdAt: 0, id: 'x' }, { createdAt: 42, id: 'ab' }]) {
      const text = encodeCursor(KEY, pos);
      for (let i = 0; i < text.length; i++) {
        for (const c of `${ALPHABET}=+/. `) {
          if (c === text[i]) continue;
          expect(refused(text.slice(0, i) + c + text.slice(i + 1)), `position ${i} → ${c}`).toBe(true);
        }
      }
    }
  });
  it('deleting, inserting or appending a character is refused', () => {
    const text = encodeCursor(KEY, POS);
    for (let i = 0; i <= text.length; i++) {
      if (i < text.length) expect(refused(text.slice(0, i) + text.slice(i + 1))).toBe(true);
      expect(refused(text.slice(0, i) + 'A' + text.slice(i))).toBe(true);
    }
    expect(refused(`${text}=`)).toBe(true);
    expect(refused(`${text}==`)).toBe(true);
  });
  it('random byte edits are refused (fast-check)', () => {
    const bytes = Buffer.from(encodeCursor(KEY, POS), 'base64url');
    fc.assert(
      fc.property(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const edited = Buffer.from(bytes);
        edited[at] = edited[at]! ^ flip;
        expect(refused(edited.toString('base64url'))).toBe(true);
      }),
    );
  });
  it('a cursor of another key is refused, both ways', () => {
    expect(refused(encodeCursor(KEY, POS), OTHER)).toBe(true);
    expect(refused(encodeCursor(OTHER, POS), KEY)).toBe(true);
  });
  it('a cursor made by a client (well-formed layout, made-up MAC) is refused', () => {
    const body = Buffer.alloc(9 + 3);
    body.writeUInt8(1, 0);
    body.writeBigUInt64BE(5n, 1);
    body.write('abc', 9);
    expect(refused(Buffer.concat([body, Buffer.alloc(16)]).toString('base64url'))).toBe(true);
  });
});

describe('garbage', () => {
  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['standard base64 alphabet', 'ab+c/def'],
    ['padding', 'AAAA=='],
    ['JSON', '{"createdAt":1,"id":"a"}'],
    ['one character', 'A'],
    ['too short for a MAC', Buffer.alloc(20).toString('base64url')],
    ['non-ASCII', 'ÄÖÜ'],
    ['overlong', 'A'.repeat(MAX_CURSOR_LENGTH + 1)],
    ['megabytes', 'A'.repeat(4_000_000)],
  ])('%s is refused', (_what, text) => {
    expect(refused(text)).toBe(true);
  });
  it('a non-string is refused', () => {
    for (const v of [null, undefined, 42, {}, ['a']]) expect(refused(v as unknown as string)).toBe(true);
  });
  it('arbitrary strings are refused (fast-check)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), (text) => {
      expect(refused(text)).toBe(true);
    }));
  });
});
