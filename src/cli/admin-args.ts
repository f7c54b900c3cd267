// A `router admin` command line becomes one request of the admin subject (its subject, body and renderer), a local
// audit, or a usage error, before any connection is made.
import { parseArgs } from 'node:util';
import { describeWrongAt } from '../checks.js';
import { MalformedMessage } from '../errors.js';
import { adminAnswerCheck } from '../protocol/admin-checks.js';
import { ACTORS_LIMIT, ADMIN_SUBJECTS, type AdminAnswer, type AdminEndpoint } from '../protocol/admin.js';
import { decodeJson } from '../store/codec.js';
import { renderActor, renderActors, renderCounts, renderShards } from './admin-render.js';
import { auditExitCode, renderAudit } from './audit.js';

/** A command line the CLI cannot make a request of: exit 2 with the usage. */
export class UsageError extends Error {}

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

/** A command line, read: the usage asked for, or what to do (`call` null: list the admin service's instances). */
export type AdminCommandLine =
  | { help: true }
  | { help: false; call: Call | null; json: boolean; dataDir: string | undefined };

/** Reads `router admin ...` (the arguments after `admin`). @throws UsageError */
export function readAdminCommandLine(args: string[]): AdminCommandLine {
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
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [command = '', ...rest] = positionals;
  let call: Call | null = null;
  if (command !== 'services') call = planCall(command, rest, values);
  else if (rest.length || values.status || values.limit || values.after) throw new UsageError('admin services takes no arguments.');
  if (values['data-dir'] !== undefined && command !== 'audit') throw new UsageError('--data-dir belongs to `admin audit`.');
  return { help: false, call, json: values.json === true, dataDir: values['data-dir'] };
}

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

/** A call of one endpoint: its subject, and its answer read as the protocol's answer of that endpoint. */
function callOf<E extends AdminEndpoint>(endpoint: E, body: Record<string, unknown>, render: (answer: AdminAnswer<E>) => string): Call {
  return { subject: ADMIN_SUBJECTS[endpoint], body, render: (json) => render(answerOf(endpoint, json)) };
}

/** The answer of `endpoint`, once its fields are the protocol's. @throws MalformedMessage (a worker of another version) */
export function answerOf<E extends AdminEndpoint>(endpoint: E, json: string): AdminAnswer<E> {
  const value: unknown = decodeJson(json);
  const check = adminAnswerCheck(endpoint);
  if (!check(value)) {
    throw new MalformedMessage(`The answer of ${ADMIN_SUBJECTS[endpoint]} does not have the fields this version of the CLI reads: it fails at ${describeWrongAt(check, value)}.`);
  }
  return value;
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
      return { ...callOf('audit', {}, renderAudit), exitCode: (json) => auditExitCode(answerOf('audit', json)), timeoutMs: 120_000 };
    default:
      throw new UsageError(command ? `unknown admin command "${command}".` : 'missing admin command.');
  }
}
