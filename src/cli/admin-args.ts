// A `router admin` command line becomes one request of the admin subject (its subject, body and renderer), or a
// usage error, before any connection is made.
import { ACTORS_LIMIT, ADMIN_SUBJECTS, type AdminAnswer, type AdminAuditAnswer, type AdminEndpoint } from '../protocol/admin.js';
import { decodeJson } from '../store/codec.js';
import { renderActor, renderActors, renderCounts, renderShards } from './admin-render.js';
import { auditExitCode, renderAudit } from './audit.js';

/** A command line the CLI cannot make a request of: exit 2 with the usage. */
export class UsageError extends Error {}

/** One request of the admin subject, and how its answer is shown. */
export interface Call {
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
