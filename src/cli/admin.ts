// `router admin <command>`: asks the router-admin NATS service (actors/admin.ts) and prints its answers as aligned
// text (or the raw JSON with --json). The subjects and wire shapes of the admin subject are in src/protocol/admin.ts,
// which the service reads too. Renderers are pure so tests need no server.
import { parseArgs } from 'node:util';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader, ServiceErrorHeader, type ServiceInfo, type ServiceStats } from '@nats-io/services';
import { svcm } from '../bus/nats-services.js';
import { NATS_USERS } from '../cluster/nats-server.js';
import { loadConfig, type Config } from '../config.js';
import {
  ACTORS_LIMIT,
  ADMIN_SERVICE_NAME,
  ADMIN_SUBJECTS,
  type AdminActorAnswer,
  type AdminActorsAnswer,
  type AdminAnswer,
  type AdminAuditAnswer,
  type AdminCountsAnswer,
  type AdminEndpoint,
  type AdminErrorAnswer,
  type AdminShardsAnswer,
} from '../protocol/admin.js';
import { decodeJson, encodeJson } from '../store/codec.js';
import { auditExitCode, renderAudit } from './audit.js';

/** One instance found by standard discovery ($SRV.INFO / $SRV.STATS). */
export interface ServiceInstance {
  info: ServiceInfo;
  stats: ServiceStats | null;
}

// ---- renderers (pure) ----

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

// ---- the command ----

export const ADMIN_USAGE = `usage: router admin <command> [--json]
  actor <kind> <id>         one actor: state, context, history with times
  actors <kind>             actors of a kind (quote | order) by id; --status s (repeatable), --limit n (1-500,
                            default 50), --after id (the "more:" cursor of the previous page)
  shards                    every shard with its owner and epoch; live workers
  counts                    actors per kind and status; workers
  audit                     the money audit: per chain and asset, what arrived at deposit addresses beside what
                            was delivered, refunded, paid in costs and is held; --data-dir dir audits an embedded
                            data dir in this process instead (no NATS; the service may be running)
  services                  router-admin instances (standard service discovery)
  --json                    the raw answer instead of text
exit codes: 0 answered (audit: clean), 1 error answer, no instance or an audit that is not clean, 2 usage,
3 NATS unreachable or permission refused`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

class UsageError extends Error {}

interface Call {
  subject: string;
  /** What the operator typed, unchecked: the service validates it and answers what is wrong in its own words. */
  body: Record<string, unknown>;
  /** Decodes an answer of the endpoint and renders it. */
  render(answerJson: string): string;
  /** The exit code of an answer; 0 when absent. */
  exitCode?(answerJson: string): number;
  /** How long to wait for the answer; 10 s when absent. */
  timeoutMs?: number;
}

/** A call of one endpoint: its subject, and its answer decoded as the protocol's answer of that endpoint. */
function callOf<E extends AdminEndpoint>(endpoint: E, body: Record<string, unknown>, render: (answer: AdminAnswer<E>) => string): Call {
  return { subject: ADMIN_SUBJECTS[endpoint], body, render: (json) => render(decodeJson<AdminAnswer<E>>(json)) };
}

/** What to ask for a command line, or a usage error. */
export function planCall(command: string, positionals: string[], opts: { status?: string[]; limit?: string; after?: string }): Call {
  const arity = (n: number, shape: string) => {
    if (positionals.length !== n) throw new UsageError(`admin ${command} takes ${shape}.`);
  };
  if (command !== 'actors' && (opts.status || opts.limit || opts.after)) {
    throw new UsageError('--status, --limit and --after belong to `admin actors`.');
  }
  switch (command) {
    case 'actor':
      arity(2, '<kind> <id>');
      return callOf('actor', { kind: positionals[0], id: positionals[1] }, renderActor);
    case 'actors': {
      arity(1, '<kind>');
      const body: Record<string, unknown> = { kind: positionals[0] };
      if (opts.status) body.status = opts.status;
      if (opts.limit !== undefined) {
        const n = /^\d+$/.test(opts.limit) ? Number(opts.limit) : NaN;
        if (!(n >= 1 && n <= ACTORS_LIMIT.max)) throw new UsageError(`--limit must be an integer from 1 to ${ACTORS_LIMIT.max}.`);
        body.limit = n;
      }
      if (opts.after !== undefined) body.after = opts.after;
      return callOf('actors', body, renderActors);
    }
    case 'shards':
      arity(0, 'no arguments');
      return callOf('shards', {}, renderShards);
    case 'counts':
      arity(0, 'no arguments');
      return callOf('counts', {}, renderCounts);
    case 'audit':
      arity(0, 'no arguments');
      // It reads every order and the ledger: longer than a listing.
      return { ...callOf('audit', {}, renderAudit), exitCode: (json) => auditExitCode(decodeJson<AdminAuditAnswer>(json)), timeoutMs: 120_000 };
    default:
      throw new UsageError(command ? `unknown admin command "${command}".` : 'missing admin command.');
  }
}

/** The error chain by name: nats.js wraps request failures (RequestError with a cause), and the services package
 *  carries its own copy of nats-core, so instanceof would miss errors raised there. */
function errorNamed(err: unknown, name: string): Error | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === name) return e;
  }
  return null;
}

/** Exit 3 with a sentence for failures of NATS itself (reach, credentials, permissions); null for the others. */
function natsFailure(err: unknown, cfg: { servers: string[]; user: string }): string | null {
  const perm = errorNamed(err, 'PermissionViolationError') as (Error & { operation?: string; subject?: string }) | null;
  if (perm) {
    return `NATS refused permission: user "${cfg.user}" may not ${perm.operation ?? 'publish'} to "${perm.subject ?? '?'}" ` +
      '(only the admin user of nats.conf may use router.admin.> and $SRV.>).';
  }
  if (errorNamed(err, 'AuthorizationError') || errorNamed(err, 'UserAuthenticationExpiredError')) {
    return `NATS refused the credentials of user "${cfg.user}" (authorization violation); check ROUTER_NATS_USER and ROUTER_NATS_PASSWORD.`;
  }
  return null;
}

async function discover(nc: NatsConnection): Promise<ServiceInstance[]> {
  const client = svcm(nc).client({ strategy: 'stall', maxWait: 2000 });
  const infos: ServiceInfo[] = [];
  for await (const i of await client.info(ADMIN_SERVICE_NAME)) infos.push(i);
  const stats = new Map<string, ServiceStats>();
  for await (const s of await client.stats(ADMIN_SERVICE_NAME)) stats.set(s.id, s);
  return infos
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((info) => ({ info, stats: stats.get(info.id) ?? null }));
}

/** Runs `router admin ...` (args after `admin`); returns the exit code. */
export async function runAdmin(args: string[], io: CliIo, env?: Record<string, string | undefined>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        status: { type: 'string', multiple: true },
        limit: { type: 'string' },
        after: { type: 'string' },
        'data-dir': { type: 'string' },
      },
    });
  } catch (e) {
    io.err(`${(e as Error).message}\n${ADMIN_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(ADMIN_USAGE);
    return 0;
  }
  const [command = '', ...rest] = positionals;
  let call: Call | null = null;
  try {
    if (command !== 'services') call = planCall(command, rest, values);
    else if (rest.length || values.status || values.limit || values.after) throw new UsageError('admin services takes no arguments.');
    if (values['data-dir'] !== undefined && command !== 'audit') throw new UsageError('--data-dir belongs to `admin audit`.');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n${ADMIN_USAGE}`);
    return 2;
  }
  if (values['data-dir'] !== undefined) {
    // Loaded only here: the local audit brings the actor host's modules, which the other commands do not need.
    const { runLocalAudit } = await import('./audit-local.js');
    return runLocalAudit(values['data-dir'], { json: values.json === true, ...(env ? { env } : {}) }, io);
  }

  let config: Config;
  try {
    config = env ? loadConfig(env) : loadConfig();
  } catch (e) {
    io.err((e as Error).message);
    return 2;
  }
  let { user, pass } = config.nats;
  if (!user) {
    ({ user, pass } = NATS_USERS.admin);
    io.err(`note: ROUTER_NATS_USER is not set; using the "${user}" user of nats.conf.`);
  }
  const who = { servers: config.nats.servers, user };

  let nc: NatsConnection;
  try {
    nc = await connect({ servers: config.nats.servers, user, pass: pass ?? undefined, name: 'router-admin-cli', timeout: 5000, reconnect: false });
  } catch (e) {
    io.err(natsFailure(e, who) ?? `Cannot reach NATS at ${config.nats.servers.join(', ')}: ${(e as Error).message}.`);
    return 3;
  }
  try {
    if (!call) {
      const instances = await discover(nc);
      io.out(values.json ? JSON.stringify(instances) : renderServices(instances));
      return instances.length ? 0 : 1;
    }
    const msg = await nc.request(call.subject, encodeJson(call.body), { timeout: call.timeoutMs ?? 10_000 });
    // The services error convention: Nats-Service-Error-Code / Nats-Service-Error headers (the body adds our code).
    const status = msg.headers?.get(ServiceErrorCodeHeader) ?? '';
    if (status !== '') {
      const description = msg.headers?.get(ServiceErrorHeader) ?? '';
      let body: AdminErrorAnswer | null = null;
      try {
        body = decodeJson<AdminErrorAnswer>(msg.string());
      } catch {
        // an error raised by the services library itself carries no body; the headers say enough
      }
      if (values.json) io.out(body ? msg.string() : JSON.stringify({ error: { code: status, message: description } }));
      else io.err(`error ${body?.error?.code ?? status}: ${body?.error?.message ?? description}`);
      return 1;
    }
    io.out(values.json ? msg.string() : call.render(msg.string()));
    return call.exitCode?.(msg.string()) ?? 0;
  } catch (e) {
    const nats = natsFailure(e, who);
    if (nats) {
      io.err(nats);
      return 3;
    }
    if (errorNamed(e, 'NoRespondersError')) {
      io.err(`No ${ADMIN_SERVICE_NAME} instance serves ${call?.subject ?? '$SRV'}: is a worker running?`);
      return 1;
    }
    if (errorNamed(e, 'TimeoutError')) {
      io.err(`No answer from ${ADMIN_SERVICE_NAME} within ${(call?.timeoutMs ?? 10_000) / 1000} s.`);
      return 1;
    }
    throw e;
  } finally {
    await nc.close().catch(() => {});
  }
}
