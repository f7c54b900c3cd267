// Limits of the store's listings, checked alike by every adapter: MongoDB reads a limit of 0 as "no limit" and a
// negative one as "one batch", SQLite as "no rows" and "no limit", so a bad limit must fail before it reaches either.

export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`A store listing limit must be a positive integer, not ${limit}.`);
  }
}
