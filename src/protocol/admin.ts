// The admin subject router.admin.>: its subjects, what each request carries and what it answers. The service
// (actors/admin.ts) and the CLI (src/cli/admin.ts) both read this module, so neither imports the other. Requests and
// answers go through the JSON codec (bigints in contexts survive); times are epoch ms. Read-only by design: nothing
// here changes an actor or a lease.
import type { AuditReportJson } from '../orders/audit.js';
import type { ActorSummary, Transition } from '../store/types.js';
import type { ActorKind } from './kinds.js';

export const ADMIN_SERVICE_NAME = 'router-admin';
/** The services group every endpoint lives under; an endpoint `e` answers on `router.admin.e`. */
export const ADMIN_GROUP = 'router.admin';
export const ACTORS_LIMIT = { default: 50, max: 500 } as const;

/** router.admin.actor: one actor. */
export interface AdminActorRequest {
  kind: ActorKind;
  id: string;
}

/** router.admin.actors: actors of a kind by id, optionally with one of some statuses; pages through `after`. */
export interface AdminActorsRequest {
  kind: ActorKind;
  status?: string | string[];
  /** 1..ACTORS_LIMIT.max, default ACTORS_LIMIT.default. */
  limit?: number;
  /** The `next` of the previous page. */
  after?: string;
}

/** Endpoints without parameters take `{}` or an empty body. */
export type AdminEmptyRequest = Record<string, never>;

export type AdminErrorCode = 'bad_request' | 'not_found' | 'internal';
/** Every failed request: the services error headers (Nats-Service-Error-Code 400/404/500) and this body. */
export interface AdminErrorAnswer {
  error: { code: AdminErrorCode; message: string };
}

export interface AdminActorAnswer {
  kind: ActorKind;
  id: string;
  /** Coarse status the runtime stores for listings (an order's Family A status), or null. */
  status: string | null;
  /** The XState snapshot's state value and its status (active | done | error | stopped); null when the stored
   *  snapshot is not an XState snapshot. */
  state: { value: unknown; status: string | null } | null;
  context: unknown;
  version: number;
  epoch: number;
  shard: number;
  wakeAt: number | null;
  updatedAt: number;
  /** State changes with their times (epoch ms), oldest first. */
  history: Transition[];
}

export interface AdminActorsAnswer {
  kind: ActorKind;
  status: string[] | null;
  limit: number;
  actors: ActorSummary[];
  /** Pass as `after` for the next page; null on the last page. */
  next: string | null;
}

export interface AdminShardRow {
  shard: number;
  owner: string | null;
  epoch: number | null;
  renewedAt: number | null;
}
export interface AdminWorkerRow {
  id: string;
  seenAt: number;
  pid: number;
  host: string;
  /** Shards whose lease this worker holds. */
  shards: number;
}
export interface AdminShardsAnswer {
  total: number;
  /** Shards without a live lease. */
  unowned: number;
  shards: AdminShardRow[];
  workers: AdminWorkerRow[];
}

export interface AdminCountsAnswer {
  actors: Array<{ kind: ActorKind; status: string | null; count: number }>;
  totals: Record<ActorKind, number>;
  /** The worker that answered and how many actors it holds in memory (null when it cannot tell). */
  worker: { id: string; active: number | null };
  /** Live workers of the cluster. */
  workers: number;
}

/** router.admin.audit: the money audit of every order against the ledger (src/orders/audit.ts), amounts as decimal
 *  strings; `router admin audit --json` prints it as it came, and `--data-dir` prints the same shape. */
export type AdminAuditAnswer = AuditReportJson;

/**
 * Every endpoint of the admin subject with its request and answer. A new endpoint is one entry here: its subject
 * follows, and the service's handler table (actors/admin.ts) fails to build until it answers it.
 */
export interface AdminProtocol {
  actor: { request: AdminActorRequest; answer: AdminActorAnswer };
  actors: { request: AdminActorsRequest; answer: AdminActorsAnswer };
  shards: { request: AdminEmptyRequest; answer: AdminShardsAnswer };
  counts: { request: AdminEmptyRequest; answer: AdminCountsAnswer };
  audit: { request: AdminEmptyRequest; answer: AdminAuditAnswer };
}

export type AdminEndpoint = keyof AdminProtocol;
export type AdminRequest<E extends AdminEndpoint> = AdminProtocol[E]['request'];
export type AdminAnswer<E extends AdminEndpoint> = AdminProtocol[E]['answer'];

export const ADMIN_SUBJECTS: { readonly [E in AdminEndpoint]: `${typeof ADMIN_GROUP}.${E}` } = {
  actor: 'router.admin.actor',
  actors: 'router.admin.actors',
  shards: 'router.admin.shards',
  counts: 'router.admin.counts',
  audit: 'router.admin.audit',
};

/** Every endpoint, in the order the service registers them. */
export const ADMIN_ENDPOINTS = Object.keys(ADMIN_SUBJECTS) as AdminEndpoint[];
