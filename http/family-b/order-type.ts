// The quote does not record Family B's `orderType`, and the core has no field for it; the edge chooses quote ids, so
// the id carries it: a `market` quote gets a version-8 (custom) uuid, everything else (B `market_order` quotes and
// every Family A and C quote) a version-7 one. Both lead with the creation time, as every quote and order id does
// (src/ids.ts). Orders inherit it through their quoteId, so GET answers the shape the order was created in.
import { timeOrderedId } from '../../src/ids.js';
import type { BOrderType } from './wire.js';

/** A fresh quote id for `orderType`: time-ordered, version 8 for `market`, 7 otherwise. */
export function quoteIdFor(orderType: BOrderType): string {
  const id = timeOrderedId();
  return orderType === 'market' ? `${id.slice(0, 14)}8${id.slice(15)}` : id;
}

export function orderTypeOf(quoteId: string): BOrderType {
  return quoteId.toLowerCase().replace(/^urn:uuid:/, '')[14] === '8' ? 'market' : 'market_order';
}
