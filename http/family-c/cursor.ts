// The opaque cursor of `GET /orders`: the keyset position (createdAt, id) of the last order of a page, newest first,
// carried as base64url and authenticated with an HMAC, so a client cannot forge a position or edit one it was given.
// Edges share the key, so any edge resumes a list another edge started.
//
// Bytes: version (1) | createdAt, uint64 big-endian (8) | id, UTF-8 (1..128) | HMAC-SHA256 truncated to 16 bytes.
// The MAC covers a context tag and every byte before it; the tag keeps a cursor MAC from ever equalling another
// MAC made with the same shared secret (refund tokens, for one, are an HMAC of an order id under that secret).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequest } from '../../src/errors.js';

export interface CursorPosition {
  /** Milliseconds since the epoch, as stored on the order. */
  createdAt: number;
  id: string;
}

const VERSION = 1;
const MAC_BYTES = 16;
const MAX_ID_BYTES = 128;
const MIN_KEY_BYTES = 16;
/** The longest text decoded; a real cursor is ~200 characters (1 + 8 + 128 + 16 bytes in base64url). */
export const MAX_CURSOR_LENGTH = 512;
const CONTEXT = Buffer.from('swap-router family-c orders cursor v1\0', 'utf8');
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// ignoreBOM keeps a leading U+FEFF of an id: the decoder would otherwise drop it as a byte-order mark.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function encodeCursor(key: Uint8Array, pos: CursorPosition): string {
  checkKey(key);
  if (!validCreatedAt(pos.createdAt)) throw new RangeError(`Cursor createdAt ${pos.createdAt} is not a non-negative safe integer.`);
  const id = Buffer.from(pos.id, 'utf8');
  if (!validId(pos.id, id)) throw new RangeError(`Cursor id ${JSON.stringify(pos.id)} is empty, longer than ${MAX_ID_BYTES} bytes or not well-formed Unicode.`);
  const body = Buffer.alloc(1 + 8 + id.length);
  body.writeUInt8(VERSION, 0);
  body.writeBigUInt64BE(BigInt(pos.createdAt), 1);
  id.copy(body, 9);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

/**
 * The position a cursor of `encodeCursor` under the same key carries.
 * @throws InvalidRequest (field `cursor`) for anything else: malformed, truncated, edited, or made under another key.
 */
export function decodeCursor(key: Uint8Array, text: string): CursorPosition {
  checkKey(key);
  const refuse = () => new InvalidRequest('`cursor` must be the `nextCursor` of an earlier page, unchanged.', 'cursor');
  // Length first: nothing below runs on an arbitrarily long input.
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_CURSOR_LENGTH || !BASE64URL.test(text)) throw refuse();
  const bytes = Buffer.from(text, 'base64url');
  // Only the canonical spelling is accepted: base64url's last character carries spare bits the decoder ignores, and a
  // cursor with those bits flipped would otherwise decode to the same bytes and pass the MAC.
  if (bytes.toString('base64url') !== text) throw refuse();
  if (bytes.length < 1 + 8 + 1 + MAC_BYTES) throw refuse();
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  const tag = bytes.subarray(bytes.length - MAC_BYTES);
  if (!timingSafeEqual(tag, mac(key, body))) throw refuse();
  // Authentic from here on; the checks below guard against a cursor of another layout under the same version.
  if (body.readUInt8(0) !== VERSION) throw refuse();
  const createdAt = body.readBigUInt64BE(1);
  if (createdAt > BigInt(Number.MAX_SAFE_INTEGER)) throw refuse();
  const idBytes = body.subarray(9);
  let id: string;
  try {
    id = utf8.decode(idBytes);
  } catch {
    throw refuse();
  }
  if (!validId(id, idBytes)) throw refuse();
  return { createdAt: Number(createdAt), id };
}

function mac(key: Uint8Array, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(CONTEXT).update(body).digest().subarray(0, MAC_BYTES);
}

/** A short key is a configuration bug; HMAC would accept it and the MAC would be weak. */
function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length < MIN_KEY_BYTES) throw new RangeError(`The cursor key must be at least ${MIN_KEY_BYTES} bytes.`);
}

function validCreatedAt(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function validId(id: string, bytes: Uint8Array): boolean {
  // A lone surrogate encodes as U+FFFD, so a string that does not survive the UTF-8 round trip is not well formed.
  return id.length > 0 && bytes.length <= MAX_ID_BYTES && Buffer.from(bytes).toString('utf8') === id;
}
