// The multi-hop path search, pure: a graph of assets whose edges are the admitted venues' direct routes, the fewest
// hop count h >= 2 with a simple path, and the (assets, venues) combinations at that h, bounded by pathLimit.
import { ASSETS } from '../assets/registry.js';
import type { AssetId } from '../assets/types.js';
import type { Venue, VenueId } from '../venues/types.js';

/** from -> to -> venues serving that edge, in the order the venues were given. */
export type AssetGraph = ReadonlyMap<AssetId, ReadonlyMap<AssetId, readonly VenueId[]>>;

export interface CandidatePath {
  /** h + 1 assets, from first, to last, none repeated. */
  assets: AssetId[];
  /** h venues, venues[i] runs assets[i] -> assets[i + 1]. */
  venues: VenueId[];
}

export interface PathSearch {
  /** The fewest hops (>= 2) with a path; null when none exists within maxHops. */
  hops: number | null;
  /** The combinations kept, at most pathLimit, in the order they will be tried. */
  paths: CandidatePath[];
  /** Every combination at that hop count, kept or not. */
  total: number;
  complete: boolean;
}

const registryOrder = new Map<AssetId, number>(ASSETS.map((a, i) => [a.id, i]));

export function buildGraph(venues: readonly Venue[]): AssetGraph {
  const g = new Map<AssetId, Map<AssetId, VenueId[]>>();
  for (const v of venues) {
    for (const [a, b] of v.routes()) {
      // An asset outside the registry cannot be priced or costed, so a venue route naming one is not an edge.
      if (a === b || !registryOrder.has(a) || !registryOrder.has(b)) continue;
      let out = g.get(a);
      if (!out) g.set(a, (out = new Map()));
      const list = out.get(b);
      if (!list) out.set(b, [v.id]);
      else if (!list.includes(v.id)) list.push(v.id);
    }
  }
  // Neighbours in registry order, so the enumeration (and the audit) does not depend on the venues' route order.
  const rank = (id: AssetId) => registryOrder.get(id) ?? 0;
  for (const [a, out] of g) g.set(a, new Map([...out].sort(([x], [y]) => rank(x) - rank(y))));
  return g;
}

/** Simple asset paths of exactly `hops` edges from `from` to `to`. */
export function assetPaths(graph: AssetGraph, from: AssetId, to: AssetId, hops: number): AssetId[][] {
  const found: AssetId[][] = [];
  const path: AssetId[] = [from];
  const seen = new Set<AssetId>([from]);
  const walk = (node: AssetId, depth: number): void => {
    const last = depth + 1 === hops;
    for (const next of graph.get(node)?.keys() ?? []) {
      if (last) {
        if (next === to) found.push([...path, to]);
        continue;
      }
      // `to` only closes a path; reaching it earlier would be a shorter path, not one of this length.
      if (next === to || seen.has(next)) continue;
      seen.add(next);
      path.push(next);
      walk(next, depth + 1);
      path.pop();
      seen.delete(next);
    }
  };
  if (hops >= 1 && from !== to) walk(from, 0);
  return found;
}

/**
 * The fewest hop count in 2..maxHops with a path, and up to pathLimit (assets, venues) combinations at it.
 * Combinations are taken round-robin over the asset paths (the k-th venue combination of every asset path before
 * any k+1-th), so a limited search still tries every intermediate asset rather than every venue of the first one.
 * Within an asset path the first hop's venue varies fastest.
 */
export function searchPaths(graph: AssetGraph, from: AssetId, to: AssetId, maxHops: number, pathLimit: number): PathSearch {
  for (let hops = 2; hops <= maxHops; hops++) {
    const found = assetPaths(graph, from, to, hops);
    if (found.length === 0) continue;
    const hopVenues = found.map((p) => p.slice(1).map((b, i) => graph.get(p[i]!)?.get(b) ?? []));
    const counts = hopVenues.map((lists) => lists.reduce((n, l) => n * l.length, 1));
    const total = counts.reduce((s, n) => s + n, 0);
    const paths: CandidatePath[] = [];
    for (let k = 0; paths.length < pathLimit; k++) {
      let any = false;
      for (let i = 0; i < found.length && paths.length < pathLimit; i++) {
        if (k >= counts[i]!) continue;
        any = true;
        paths.push({ assets: found[i]!, venues: combination(hopVenues[i]!, k) });
      }
      if (!any) break;
    }
    return { hops, paths, total, complete: total <= pathLimit };
  }
  return { hops: null, paths: [], total: 0, complete: true };
}

/** The k-th venue combination of one asset path, mixed radix with the first hop as the lowest digit. */
function combination(lists: readonly (readonly VenueId[])[], k: number): VenueId[] {
  let rest = k;
  return lists.map((l) => {
    const v = l[rest % l.length]!;
    rest = Math.floor(rest / l.length);
    return v;
  });
}
