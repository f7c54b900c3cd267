// Quote and order ids: RFC 9562 version-7 uuids, the creation's Unix time in milliseconds in the first 48 bits and 74
// random bits after it. Ids that grow with time are inserted at the end of the store's indexes on them (SQLite's
// primary key and status indexes, MongoDB's _id): a creation dirties the pages the previous ones did, where a random
// id lands on a page of its own in each, which is a page more to write to the log and to fsync per index. 74 random
// bits keep an id as unguessable as it has to be (an order's id is what reads it).
import { randomUUID } from 'node:crypto';

/** A version-7 uuid for `ms` (default now): a random version-4 uuid whose first 48 bits become the time. */
export function timeOrderedId(ms: number = Date.now()): string {
  const time = Math.floor(ms).toString(16).padStart(12, '0');
  if (time.length !== 12 || ms < 0) throw new RangeError(`A version-7 uuid holds times from 1970 to 10889, not ${ms}.`);
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
