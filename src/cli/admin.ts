// `router admin <command>`: asks the router-admin NATS service (actors/admin.ts) and prints its answers as aligned
// text (or the raw JSON with --json). The subjects and wire shapes of the admin subject are in src/protocol/admin.ts,
// which the service reads too; a command line becomes a request in admin-args.ts, and an answer text in
// admin-render.ts. This file holds the connection: discovery, the request, and what NATS failures mean.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader, ServiceErrorHeader, type ServiceInfo, type ServiceStats } from '@nats-io/services';
import { svcm } from '../bus/nats-services.js';
import { NATS_USERS } from '../cluster/nats-server.js';
import { loadConfig, type Config } from '../config.js';
import { MalformedMessage } from '../errors.js';
import { isAdminErrorAnswer } from '../protocol/admin-checks.js';
import { ADMIN_SERVICE_NAME, type AdminErrorAnswer } from '../protocol/admin.js';
import { decodeJson, encodeJson } from '../store/codec.js';
import { ADMIN_USAGE, readAdminCommandLine, UsageError, type AdminCommandLine } from './admin-args.js';
import { renderServices, type ServiceInstance } from './admin-render.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
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
  let line: AdminCommandLine;
  try {
    line = readAdminCommandLine(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n${ADMIN_USAGE}`);
    return 2;
  }
  if (line.help) {
    io.out(ADMIN_USAGE);
    return 0;
  }
  const { call, json, dataDir } = line;
  if (dataDir !== undefined) {
    // Loaded only here: the local audit brings the actor host's modules, which the other commands do not need.
    const { runLocalAudit } = await import('./audit-local.js');
    return runLocalAudit(dataDir, { json, ...(env ? { env } : {}) }, io);
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
      io.out(json ? JSON.stringify(instances) : renderServices(instances));
      return instances.length ? 0 : 1;
    }
    const msg = await nc.request(call.subject, encodeJson(call.body), { timeout: call.timeoutMs ?? 10_000 });
    // The services error convention: Nats-Service-Error-Code / Nats-Service-Error headers (the body adds our code).
    const status = msg.headers?.get(ServiceErrorCodeHeader) ?? '';
    if (status !== '') {
      const description = msg.headers?.get(ServiceErrorHeader) ?? '';
      // An error raised by the services library itself carries no body (or not ours): the headers say enough.
      let body: AdminErrorAnswer | null = null;
      try {
        const value: unknown = decodeJson(msg.string());
        if (isAdminErrorAnswer(value)) body = value;
      } catch {
        body = null;
      }
      if (json) io.out(body ? msg.string() : JSON.stringify({ error: { code: status, message: description } }));
      else io.err(`error ${body?.error.code ?? status}: ${body?.error.message ?? description}`);
      return 1;
    }
    io.out(json ? msg.string() : call.render(msg.string()));
    return call.exitCode?.(msg.string()) ?? 0;
  } catch (e) {
    const nats = natsFailure(e, who);
    if (nats) {
      io.err(nats);
      return 3;
    }
    if (e instanceof MalformedMessage) {
      io.err(e.message);
      return 1;
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
