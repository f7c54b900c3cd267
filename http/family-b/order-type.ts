// The quote does not record Family B's `orderType`, and the core has no field for it; the edge chooses quote ids, so
// the id carries it: a `market` quote gets a version-8 (custom) uuid, everything else (B `market_order` quotes and
// every Family A quote) is a random version-4 uuid. Orders inherit it through their quoteId, so GET answers the shape
// the order was created in.
import { randomBytes } from 'node:crypto';
import type { BOrderType } from './wire.js';

/** A fresh quote id for `orderType`; `random` is 16 random bytes (injectable for tests). */
export function quoteIdFor(orderType: BOrderType, random: () => Uint8Array = () => randomBytes(16)): string {
  const b = Buffer.from(random().subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | (orderType === 'market' ? 0x80 : 0x40);
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function orderTypeOf(quoteId: string): BOrderType {
  return quoteId.toLowerCase().replace(/^urn:uuid:/, '')[14] === '8' ? 'market' : 'market_order';
}
