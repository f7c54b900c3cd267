// The admin subject router.admin.>: a NATS micro-service (`router-admin`, @nats-io/services conventions, so
// $SRV.PING/INFO/STATS discovery works) that reads actors, shards and counts for operators, and audits the orders'
// money against the ledger. Every worker runs one instance in one queue group; any instance can answer because the
// store, the lease bucket and the ledger are shared. Read-only: nothing here changes an actor, a lease or a balance.
// nats.conf lets only the admin user call it.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ServiceMsg } from '@nats-io/services';
import { svcm } from '../src/bus/nats-services.js';
import type { Chains } from '../src/chains/types.js';
import { auditJson } from '../src/orders/audit.js';
import type { Logger } from '../src/log.js';
import {
  ACTOR_KINDS,
  ACTORS_LIMIT,
  ADMIN_ENDPOINTS,
  ADMIN_GROUP,
  ADMIN_SERVICE_NAME,
  type ActorKind,
  type AdminActorAnswer,
  type AdminActorRequest,
  type AdminActorsAnswer,
  type AdminActorsRequest,
  type AdminAnswer,
  type AdminAuditAnswer,
  type AdminCountsAnswer,
  type AdminEmptyRequest,
  type AdminEndpoint,
  type AdminErrorAnswer,
  type AdminErrorCode,
  type AdminRequest,
  type AdminShardsAnswer,
  type AdminWorkerRow,
} from '../src/protocol/index.js';
import { decodeJson, encodeJson } from '../src/store/codec.js';
import type { ActorStore } from '../src/store/types.js';
import { runAudit } from '../src/orders/audit-run.js';
import type { ShardDirectory } from './shard-directory.js';

export interface AdminServiceDeps {
  /** A connection of the `worker` user (it may serve router.admin.> and $SRV.>). */
  nc: NatsConnection;
  store: ActorStore;
  directory: ShardDirectory;
  workerId: string;
  /** Service version for discovery: the package version. */
  version: string;
  /** Actors in this worker's memory (the runtime's activeCount). */
  activeActors?: () => number;
  /** The ledger the orders move money on (the host's simulated chains), for router.admin.audit; without it the
   *  audit answers an error rather than a clean audit of nothing. */
  chains?: Pick<Chains, 'transfers' | 'balances' | 'height'>;
  logger: Logger;
}

export interface AdminService {
  stop(): Promise<void>;
}

/** One queue group for every instance: a request is answered once, by any worker. */
const QUEUE = 'router-admin';
// Ids never hold control characters; refusing them also keeps them out of the error header (CR/LF would break it).
const ID = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\u0000-\\u001f\\u007f]+$' } as const;
const STATUS = { type: 'string', minLength: 1, maxLength: 64 } as const;

// Unknown fields are refused rather than ignored, so a misspelt filter (`stauts`) is not silently a full listing.
const SCHEMAS = {
  actor: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'id'],
    properties: { kind: { enum: ACTOR_KINDS }, id: ID },
  },
  actors: {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: {
      kind: { enum: ACTOR_KINDS },
      status: { anyOf: [STATUS, { type: 'array', items: STATUS, minItems: 1, maxItems: 32 }] },
      limit: { type: 'integer', minimum: 1, maximum: ACTORS_LIMIT.max },
      after: ID,
    },
  },
  none: { type: 'object', additionalProperties: false, properties: {} },
} as const;

/** An answer that is an error by design (bad request, not found), with the services error code. */
class AdminFailure extends Error {
  constructor(
    readonly status: 400 | 404 | 500,
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function explain(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'request body is invalid';
  const where = e.instancePath ? `field ${e.instancePath.slice(1).replaceAll('/', '.')}` : 'request body';
  if (e.keyword === 'additionalProperties') return `${where} has an unknown field "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'enum') return `${where} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return `${where} ${e.message ?? 'is invalid'}`;
}

/** The parts of an XState persisted snapshot operators read; anything else is shown whole as the context. */
function xstateParts(snapshot: unknown): Pick<AdminActorAnswer, 'state' | 'context'> {
  if (snapshot !== null && typeof snapshot === 'object' && 'value' in snapshot && 'context' in snapshot) {
    const s = snapshot as { value: unknown; context: unknown; status?: unknown };
    return { state: { value: s.value, status: typeof s.status === 'string' ? s.status : null }, context: s.context };
  }
  return { state: null, context: snapshot };
}

/** How one endpoint is served: its request check, its handler, and the shapes discovery shows. */
interface Endpoint<E extends AdminEndpoint> {
  validate: ValidateFunction<AdminRequest<E>>;
  handle(request: AdminRequest<E>): Promise<AdminAnswer<E>>;
  request: string;
  response: string;
}

export async function createAdminService(deps: AdminServiceDeps): Promise<AdminService> {
  const { nc, store, directory, workerId, logger } = deps;
  const log = logger.child({ component: 'admin', worker: workerId });
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  const none = ajv.compile<AdminEmptyRequest>(SCHEMAS.none);

  async function actor(q: AdminActorRequest): Promise<AdminActorAnswer> {
    const a = await store.load(q.kind, q.id);
    if (!a) throw new AdminFailure(404, 'not_found', `no ${q.kind} actor with id "${q.id}"`);
    return {
      kind: a.kind,
      id: a.id,
      status: a.status,
      ...xstateParts(a.snapshot),
      version: a.version,
      epoch: a.epoch,
      shard: a.shard,
      wakeAt: a.wakeAt,
      updatedAt: a.updatedAt,
      history: a.history,
    };
  }

  async function actors(q: AdminActorsRequest): Promise<AdminActorsAnswer> {
    const limit = q.limit ?? ACTORS_LIMIT.default;
    const status = q.status === undefined ? null : Array.isArray(q.status) ? q.status : [q.status];
    // One row more than the page tells whether another page exists without a count query.
    const rows = await store.list({ kind: q.kind, limit: limit + 1, ...(status ? { status } : {}), ...(q.after ? { afterId: q.after } : {}) });
    const page = rows.slice(0, limit);
    return { kind: q.kind, status, limit, actors: page, next: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async function shards(): Promise<AdminShardsAnswer> {
    const [leases, live] = await Promise.all([directory.shards(), directory.workers()]);
    const owned = new Map<string, number>();
    for (const l of leases) if (l.owner !== null) owned.set(l.owner, (owned.get(l.owner) ?? 0) + 1);
    const workers: AdminWorkerRow[] = live
      .map((w) => ({ id: w.id, seenAt: w.seenAt, pid: w.pid, host: w.host, shards: owned.get(w.id) ?? 0 }))
      .sort((a, b) => a.id.localeCompare(b.id));
    return {
      total: leases.length,
      unowned: leases.filter((l) => l.owner === null).length,
      shards: leases.map((l) => ({ shard: l.shard, owner: l.owner, epoch: l.epoch, renewedAt: l.renewedAt })).sort((a, b) => a.shard - b.shard),
      workers,
    };
  }

  async function counts(): Promise<AdminCountsAnswer> {
    const [rows, live] = await Promise.all([store.counts(), directory.workers()]);
    const totals = Object.fromEntries(ACTOR_KINDS.map((k) => [k, 0])) as Record<ActorKind, number>;
    for (const r of rows) totals[r.kind] = (totals[r.kind] ?? 0) + r.count;
    const actorsRows = [...rows].sort((a, b) => a.kind.localeCompare(b.kind) || (a.status ?? '').localeCompare(b.status ?? ''));
    return { actors: actorsRows, totals, worker: { id: workerId, active: deps.activeActors ? deps.activeActors() : null }, workers: live.length };
  }

  async function audit(): Promise<AdminAuditAnswer> {
    if (!deps.chains) throw new AdminFailure(500, 'internal', 'this admin instance has no chains ledger to audit');
    return auditJson(await runAudit({ store, chains: deps.chains }));
  }

  function fail(msg: ServiceMsg, f: AdminFailure): void {
    const body: AdminErrorAnswer = { error: { code: f.code, message: f.message } };
    // A header value is one line: anything echoed from the request (a field name) loses its control characters.
    const oneLine = Array.from(f.message, (c) => (c < ' ' || c === '\u007f' ? ' ' : c)).join('');
    msg.respondError(f.status, oneLine, encodeJson(body));
  }

  // The library calls handlers synchronously and catches only synchronous throws, so each request runs here and
  // turns every failure into an error answer: no input can crash the worker or leave a caller waiting.
  async function serve<T>(endpoint: string, msg: ServiceMsg, validate: ValidateFunction<T>, handle: (q: T) => Promise<unknown>): Promise<void> {
    try {
      let body: unknown;
      try {
        body = msg.data.length === 0 ? {} : decodeJson(msg.string());
      } catch {
        throw new AdminFailure(400, 'bad_request', 'request body is not JSON');
      }
      if (!validate(body)) throw new AdminFailure(400, 'bad_request', explain(validate.errors));
      const answer = await handle(body);
      msg.respond(encodeJson(answer));
      log.debug({ endpoint }, 'admin request answered');
    } catch (err) {
      const f = err instanceof AdminFailure ? err : new AdminFailure(500, 'internal', 'the admin service failed; see the worker log');
      if (f.status === 500) log.error({ endpoint, err: err instanceof Error ? err.message : String(err) }, 'admin request failed');
      else log.debug({ endpoint, code: f.code }, f.message);
      try {
        fail(msg, f);
      } catch (sendErr) {
        log.error({ endpoint, err: String(sendErr) }, 'admin error answer could not be sent');
      }
    }
  }

  const service = await svcm(nc).add({
    name: ADMIN_SERVICE_NAME,
    version: deps.version,
    description: 'Operator view of the router cluster: actor state and history, actor listings, shards and owners, counts, the money audit',
    queue: QUEUE,
    metadata: { worker: workerId },
  });
  // One entry per endpoint of the protocol: an endpoint added there fails to build here until it is answered.
  const endpoints: { [E in AdminEndpoint]: Endpoint<E> } = {
    actor: {
      validate: ajv.compile<AdminActorRequest>(SCHEMAS.actor),
      handle: actor,
      request: '{"kind":"quote|order","id":string}',
      response: 'kind, id, status, state {value, status}, context, version, epoch, shard, wakeAt, updatedAt, history [{status, at}]',
    },
    actors: {
      validate: ajv.compile<AdminActorsRequest>(SCHEMAS.actors),
      handle: actors,
      request: `{"kind":"quote|order","status"?:string|string[],"limit"?:1..${ACTORS_LIMIT.max} (${ACTORS_LIMIT.default}),"after"?:id}`,
      response: '{kind, status, limit, actors: [summary], next: id|null}',
    },
    shards: {
      validate: none,
      handle: shards,
      request: '{} or empty',
      response: '{total, unowned, shards: [{shard, owner, epoch, renewedAt}], workers: [{id, seenAt, pid, host, shards}]}',
    },
    counts: {
      validate: none,
      handle: counts,
      request: '{} or empty',
      response: '{actors: [{kind, status, count}], totals, worker: {id, active}, workers}',
    },
    audit: {
      validate: none,
      handle: audit,
      request: '{} or empty',
      response: '{orders, rows: [{chain, asset, arrived, recorded, ..., difference, unrecorded, heldMismatch}], foreign, pending, findings, unreadable, differing, clean}',
    },
  };
  const group = service.addGroup(ADMIN_GROUP);
  const add = <E extends AdminEndpoint>(name: E) => {
    const { validate, handle, request, response } = endpoints[name];
    group.addEndpoint(name, {
      handler: (err, msg) => {
        if (err) {
          log.error({ endpoint: name, err: err.message }, 'admin endpoint subscription failed');
          return;
        }
        void serve(name, msg, validate, handle);
      },
      metadata: { request, response },
    });
  };
  for (const name of ADMIN_ENDPOINTS) add(name);

  // The subscriptions are sent but not yet known to the server; after the flush round trip they are, so a caller
  // (a test, the worker's start) can rely on the service answering once this function resolves.
  await nc.flush();
  void service.stopped.then((err) => {
    if (err) log.error({ err: err.message }, 'admin service stopped by an error');
  });
  log.info({ service: ADMIN_SERVICE_NAME, id: service.info().id, version: deps.version }, 'admin service started');

  return {
    async stop() {
      if (!service.isStopped) await service.stop();
    },
  };
}
