// Which venues a quote may use (spec 4, POST /quote): an allowlist keeps only its venues, a blocklist drops its
// venues, and the two together are a contract error (the edge checks too; this is the core's own guard).
import { VenueListConflict } from '../errors.js';
import type { Market, Venue, VenueId } from '../venues/types.js';

export function assertVenueLists(allowlist: readonly VenueId[], blocklist: readonly VenueId[]): void {
  if (allowlist.length > 0 && blocklist.length > 0) {
    throw new VenueListConflict('venue_allowlist and venue_blocklist cannot both be set.', 'venue_blocklist');
  }
}

/** The admitted venues in the market's order (which fixes the order of candidates in the audit). */
export function admitVenues(market: Market, allowlist: readonly VenueId[], blocklist: readonly VenueId[]): Venue[] {
  assertVenueLists(allowlist, blocklist);
  const all = market.venues();
  if (allowlist.length > 0) {
    const allow = new Set(allowlist);
    return all.filter((v) => allow.has(v.id));
  }
  const block = new Set(blocklist);
  return all.filter((v) => !block.has(v.id));
}
