// How `router admin` prints the admin subject's answers for people: aligned tables, times as ISO, bigints as plain
// decimals. Pure, so tests need no server.
import type { ServiceInfo, ServiceStats } from '@nats-io/services';
import { ADMIN_SERVICE_NAME, type AdminActorAnswer, type AdminActorsAnswer, type AdminCountsAnswer, type AdminShardsAnswer } from '../protocol/admin.js';

/** One instance found by standard discovery ($SRV.INFO / $SRV.STATS). */
export interface ServiceInstance {
  info: ServiceInfo;
  stats: ServiceStats | null;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const iso = (ms: number | null | undefined): string => (typeof ms === 'number' ? new Date(ms).toISOString() : '-');

/** Aligned columns (a header row unless null); the last column is not padded so lines carry no trailing blanks. */
export function table(header: string[] | null, rows: string[][]): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const r of all) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return all.map(line).join('\n');
}

/** JSON for people: bigints as plain decimals (the codec's tags are for machines; --json keeps them). */
function pretty(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), indent);
  return text === undefined ? 'undefined' : text;
}

function stateValue(value: unknown): string {
  return typeof value === 'string' ? value : pretty(value);
}

export function renderActor(a: AdminActorAnswer): string {
  const fields: string[][] = [
    ['status', a.status ?? '-'],
    ['state', a.state ? `${stateValue(a.state.value)} (${a.state.status ?? '-'})` : '-'],
    ['version', String(a.version)],
    ['epoch', String(a.epoch)],
    ['shard', String(a.shard)],
    ['wake at', iso(a.wakeAt)],
    ['updated', iso(a.updatedAt)],
  ];
  const history = a.history.length
    ? table(['AT', 'STATUS'], a.history.map((t) => [iso(t.at), t.status]))
    : '(none)';
  return [
    `${a.kind} ${a.id}`,
    table(null, fields),
    '',
    'history',
    history,
    '',
    'context',
    pretty(a.context, 2),
  ].join('\n');
}

export function renderActors(a: AdminActorsAnswer): string {
  const head = `${a.kind} actors${a.status ? ` with status ${a.status.join(' | ')}` : ''}: ${a.actors.length} shown`;
  const rows = a.actors.map((s) => [s.id, s.status ?? '-', String(s.version), String(s.epoch), String(s.shard), iso(s.wakeAt), iso(s.updatedAt)]);
  const lines = [head];
  if (rows.length) lines.push(table(['ID', 'STATUS', 'VERSION', 'EPOCH', 'SHARD', 'WAKE AT', 'UPDATED'], rows));
  lines.push(a.next ? `more: --after ${a.next}` : 'end of list');
  return lines.join('\n');
}

export function renderShards(a: AdminShardsAnswer): string {
  const workers = a.workers.length
    ? table(['WORKER', 'SHARDS', 'PID', 'HOST', 'SEEN'], a.workers.map((w) => [w.id, String(w.shards), String(w.pid), w.host, iso(w.seenAt)]))
    : '(no live workers)';
  const shards = table(
    ['SHARD', 'OWNER', 'EPOCH', 'RENEWED'],
    a.shards.map((s) => [String(s.shard), s.owner ?? '-', s.epoch === null ? '-' : String(s.epoch), iso(s.renewedAt)]),
  );
  return [
    `${plural(a.total, 'shard')}, ${a.total - a.unowned} owned, ${a.unowned} unowned; ${plural(a.workers.length, 'live worker')}`,
    '',
    workers,
    '',
    shards,
  ].join('\n');
}

export function renderCounts(a: AdminCountsAnswer): string {
  const rows = a.actors.map((c) => [c.kind, c.status ?? '-', String(c.count)]);
  const totals = (Object.entries(a.totals) as Array<[string, number]>).map(([k, n]) => `${k} ${n}`).join(', ');
  return [
    rows.length ? table(['KIND', 'STATUS', 'COUNT'], rows) : '(no actors stored)',
    '',
    `total: ${totals}`,
    `in memory of worker ${a.worker.id}: ${a.worker.active ?? 'unknown'}`,
    `live workers: ${a.workers}`,
  ].join('\n');
}

export function renderServices(instances: ServiceInstance[]): string {
  if (!instances.length) return `no ${ADMIN_SERVICE_NAME} instance answered`;
  const rows = instances.map(({ info, stats }) => {
    const eps = stats?.endpoints ?? [];
    const sum = (f: (e: (typeof eps)[number]) => number) => String(eps.reduce((n, e) => n + f(e), 0));
    return [info.id, info.version, info.metadata?.worker ?? '-', stats ? stats.started : '-', stats ? sum((e) => e.num_requests) : '-', stats ? sum((e) => e.num_errors) : '-'];
  });
  const first = instances[0]!.info;
  const endpoints = table(
    ['ENDPOINT', 'SUBJECT', 'QUEUE'],
    first.endpoints.map((e) => [e.name, e.subject, e.queue_group ?? '-']),
  );
  return [
    `${first.name}: ${plural(instances.length, 'instance')} — ${first.description}`,
    table(['ID', 'VERSION', 'WORKER', 'STARTED', 'REQUESTS', 'ERRORS'], rows),
    '',
    endpoints,
  ].join('\n');
}
