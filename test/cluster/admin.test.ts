// The admin subject on a real nats-server with nats.conf's users: the router-admin service read by the admin user,
// found by standard discovery, refused to the router user, and the `router admin` CLI as an operator runs it.
import { startTestNats, type TestNats } from '../support/cluster.js';
import { runRouterCli } from '../support/router-cli.js';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader, ServiceErrorHeader } from '@nats-io/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService, type AdminService } from '../../actors/admin.js';
import type { ShardDirectory } from '../../actors/shard-directory.js';
import { svcm } from '../../src/bus/nats-services.js';
import { createLogger } from '../../src/log.js';
import { decodeJson, encodeJson } from '../../src/store/codec.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { ActorStore } from '../../src/store/types.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);
let server: TestNats;
let store: ActorStore;
let workerNc: NatsConnection;
let adminNc: NatsConnection;
let admin: AdminService;

const directory: ShardDirectory = {
  shards: async () => [
    { shard: 1, owner: 'w-b', epoch: 12, renewedAt: T0 + 500 },
    { shard: 0, owner: 'w-a', epoch: 10, renewedAt: T0 },
    { shard: 2, owner: 'w-a', epoch: 11, renewedAt: T0 + 1000 },
    { shard: 3, owner: null, epoch: null, renewedAt: null },
  ],
  workers: async () => [
    { id: 'w-b', seenAt: T0 + 2000, pid: 202, host: 'host-b' },
    { id: 'w-a', seenAt: T0 + 1500, pid: 101, host: 'host-a' },
  ],
};

const xs = (value: unknown, context: unknown, status = 'active') => ({ status, value, context, children: {}, historyValue: {} });

async function seed(s: ActorStore): Promise<void> {
  const created = { status: 'awaiting_deposit', at: T0 };
  await s.save({
    kind: 'order', id: 'ord-1', snapshot: xs('awaitingDeposit', { amountIn: 2500000000n, to: '0xabc' }),
    expectedVersion: 0, epoch: 10, wakeAt: T0 + 604_800_000, updatedAt: T0, shard: 2, status: 'awaiting_deposit', history: [created],
  });
  await s.save({
    kind: 'order', id: 'ord-1', snapshot: xs({ executing: 'step' }, { amountIn: 2500000000n, to: '0xabc', step: 0 }),
    expectedVersion: 1, epoch: 11, wakeAt: null, updatedAt: T0 + 60_000, shard: 2, status: 'executing',
    history: [created, { status: 'executing', at: T0 + 60_000 }],
  });
  for (const id of ['ord-2', 'ord-3', 'ord-4']) {
    await s.save({
      kind: 'order', id, snapshot: xs('awaitingDeposit', {}), expectedVersion: 0, epoch: 10, wakeAt: null,
      updatedAt: T0, shard: 0, status: 'awaiting_deposit', history: [created],
    });
  }
  await s.save({
    kind: 'quote', id: 'q-1', snapshot: xs('priced', { amountIn: 1n }, 'done'), expectedVersion: 0, epoch: 10, wakeAt: null,
    updatedAt: T0, shard: 1, status: 'priced', history: [{ status: 'priced', at: T0 }],
  });
}

async function ask(nc: NatsConnection, subject: string, body?: unknown) {
  const payload = body === undefined ? '' : typeof body === 'string' ? body : encodeJson(body);
  const msg = await nc.request(subject, payload, { timeout: 5000 });
  const code = msg.headers?.get(ServiceErrorCodeHeader) ?? '';
  return { error: code === '' ? null : { status: Number(code), description: msg.headers?.get(ServiceErrorHeader) ?? '' }, body: decodeJson<any>(msg.string()) };
}

const runCli = runRouterCli;

const adminEnv = () => ({ ROUTER_NATS_URL: server.url, ROUTER_NATS_USER: 'admin', ROUTER_NATS_PASSWORD: 'admin-local' });

beforeAll(async () => {
  server = await startTestNats('admin');
  store = openSqliteStore(join(server.dir, 'router.sqlite'));
  await seed(store);
  workerNc = await server.connectAs('worker');
  adminNc = await server.connectAs('admin');
  admin = await createAdminService({
    nc: workerNc, store, directory, workerId: 'w-a', version: '0.2.47', activeActors: () => 7, logger: createLogger('silent'),
  });
}, 30_000);

afterAll(async () => {
  await admin?.stop();
  await adminNc?.close();
  await workerNc?.close();
  await store?.close();
  await server?.stop();
}, 30_000);

describe('router.admin.actor: any actor\'s state, context and transitions with times', { timeout: 30_000 }, () => {
  it('answers the state value, status, context (bigints intact), version, epoch, shard and history', async () => {
    const { error, body } = await ask(adminNc, 'router.admin.actor', { kind: 'order', id: 'ord-1' });
    expect(error).toBeNull();
    expect(body).toEqual({
      kind: 'order', id: 'ord-1', status: 'executing',
      state: { value: { executing: 'step' }, status: 'active' },
      context: { amountIn: 2500000000n, to: '0xabc', step: 0 },
      version: 2, epoch: 11, shard: 2, wakeAt: null, updatedAt: T0 + 60_000,
      history: [{ status: 'awaiting_deposit', at: T0 }, { status: 'executing', at: T0 + 60_000 }],
    });
  });

  it('answers not_found with the services error headers (404) for an absent actor', async () => {
    const { error, body } = await ask(adminNc, 'router.admin.actor', { kind: 'order', id: 'nope' });
    expect(error).toEqual({ status: 404, description: 'no order actor with id "nope"' });
    expect(body).toEqual({ error: { code: 'not_found', message: 'no order actor with id "nope"' } });
  });

  it.each([
    ['not JSON', '{kind:'],
    ['an empty body', undefined],
    ['an unknown kind', { kind: 'wallet', id: 'x' }],
    ['an empty id', { kind: 'order', id: '' }],
    ['an unknown field', { kind: 'order', id: 'ord-1', extra: 1 }],
    ['an array', [1, 2]],
    ['a number id', { kind: 'order', id: 5 }],
    ['a line break in the id', { kind: 'order', id: 'a\r\nNats-Service-Error-Code: 200' }],
    ['a line break in a field name', { kind: 'order', id: 'x', 'a\r\nb': 1 }],
  ])('answers bad_request (400) for %s, and keeps serving', async (_name, body) => {
    const r = await ask(adminNc, 'router.admin.actor', body);
    expect(r.error?.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
    expect((await ask(adminNc, 'router.admin.counts')).error).toBeNull();
  });
});

describe('a failing store is an internal error answer, not a crash or a silent caller', { timeout: 30_000 }, () => {
  it('answers internal (500) without the failure\'s text, and the worker keeps serving', async () => {
    await admin.stop();
    const broken: ActorStore = { ...store, load: async () => { throw new Error('disk on fire at /secret/path'); } };
    const failing = await createAdminService({ nc: workerNc, store: broken, directory, workerId: 'w-a', version: '0.2.47', logger: createLogger('silent') });
    try {
      const r = await ask(adminNc, 'router.admin.actor', { kind: 'order', id: 'ord-1' });
      expect(r.error?.status).toBe(500);
      expect(r.body).toEqual({ error: { code: 'internal', message: 'the admin service failed; see the worker log' } });
      expect((await ask(adminNc, 'router.admin.counts')).error).toBeNull();
    } finally {
      await failing.stop();
      admin = await createAdminService({
        nc: workerNc, store, directory, workerId: 'w-a', version: '0.2.47', activeActors: () => 7, logger: createLogger('silent'),
      });
    }
  });
});

describe('router.admin.actors: actors listed by kind and status', { timeout: 30_000 }, () => {
  it('lists one kind by id with summaries, filtered by status', async () => {
    const { body } = await ask(adminNc, 'router.admin.actors', { kind: 'order', status: 'awaiting_deposit' });
    expect(body.actors.map((a: any) => a.id)).toEqual(['ord-2', 'ord-3', 'ord-4']);
    expect(body.actors[0]).toEqual({ kind: 'order', id: 'ord-2', status: 'awaiting_deposit', version: 1, epoch: 10, shard: 0, wakeAt: null, updatedAt: T0 });
    expect(body).toMatchObject({ kind: 'order', status: ['awaiting_deposit'], limit: 50, next: null });
  });

  it('pages with limit and the next cursor until the last page', async () => {
    const first = (await ask(adminNc, 'router.admin.actors', { kind: 'order', limit: 3 })).body;
    expect(first.actors.map((a: any) => a.id)).toEqual(['ord-1', 'ord-2', 'ord-3']);
    expect(first.next).toBe('ord-3');
    const second = (await ask(adminNc, 'router.admin.actors', { kind: 'order', limit: 3, after: first.next })).body;
    expect(second.actors.map((a: any) => a.id)).toEqual(['ord-4']);
    expect(second.next).toBeNull();
  });

  it('refuses a limit above 500 or below 1', async () => {
    for (const limit of [0, 501, 2.5]) {
      const r = await ask(adminNc, 'router.admin.actors', { kind: 'order', limit });
      expect(r.body.error.code).toBe('bad_request');
    }
  });
});

describe('router.admin.shards and router.admin.counts: shards and owners, counts', { timeout: 30_000 }, () => {
  it('shards: every shard with owner and epoch, live workers with how many shards each owns', async () => {
    const { body } = await ask(adminNc, 'router.admin.shards');
    expect(body.total).toBe(4);
    expect(body.unowned).toBe(1);
    expect(body.shards.map((s: any) => [s.shard, s.owner, s.epoch])).toEqual([[0, 'w-a', 10], [1, 'w-b', 12], [2, 'w-a', 11], [3, null, null]]);
    expect(body.workers).toEqual([
      { id: 'w-a', seenAt: T0 + 1500, pid: 101, host: 'host-a', shards: 2 },
      { id: 'w-b', seenAt: T0 + 2000, pid: 202, host: 'host-b', shards: 1 },
    ]);
  });

  it('counts: actors per kind and status, actors in the answering worker\'s memory, live workers', async () => {
    const { body } = await ask(adminNc, 'router.admin.counts', {});
    expect(body).toEqual({
      actors: [
        { kind: 'order', status: 'awaiting_deposit', count: 3 },
        { kind: 'order', status: 'executing', count: 1 },
        { kind: 'quote', status: 'priced', count: 1 },
      ],
      totals: { quote: 1, order: 4 },
      worker: { id: 'w-a', active: 7 },
      workers: 2,
    });
  });

  it('refuses fields it does not take', async () => {
    const r = await ask(adminNc, 'router.admin.counts', { kind: 'order' });
    expect(r.body.error).toEqual({ code: 'bad_request', message: 'request body has an unknown field "kind"' });
  });
});

describe('standard discovery finds the router-admin service', { timeout: 30_000 }, () => {
  it('ping and info ($SRV) list the instance, its version and its four endpoints in one queue group', async () => {
    const client = svcm(adminNc).client();
    const pings = [];
    for await (const p of await client.ping('router-admin')) pings.push(p);
    expect(pings).toHaveLength(1);
    expect(pings[0]).toMatchObject({ name: 'router-admin', version: '0.2.47' });
    const infos = [];
    for await (const i of await client.info('router-admin')) infos.push(i);
    expect(infos[0]!.metadata).toEqual({ worker: 'w-a' });
    expect(infos[0]!.endpoints.map((e) => [e.name, e.subject, e.queue_group])).toEqual([
      ['actor', 'router.admin.actor', 'router-admin'],
      ['actors', 'router.admin.actors', 'router-admin'],
      ['shards', 'router.admin.shards', 'router-admin'],
      ['counts', 'router.admin.counts', 'router-admin'],
      ['audit', 'router.admin.audit', 'router-admin'],
    ]);
  });

  it('a second worker\'s instance joins: discovery sees two, a request is answered once', async () => {
    const nc2 = await server.connectAs('worker');
    const second = await createAdminService({ nc: nc2, store, directory, workerId: 'w-b', version: '0.2.47', logger: createLogger('silent') });
    try {
      const ids = [];
      for await (const p of await svcm(adminNc).client().ping('router-admin')) ids.push(p.id);
      expect(new Set(ids).size).toBe(2);
      const answers = [];
      const replies = await adminNc.requestMany('router.admin.counts', '', { strategy: 'timer', maxWait: 500 });
      for await (const m of replies) answers.push(m);
      expect(answers).toHaveLength(1);
    } finally {
      await second.stop();
      await nc2.close();
    }
  });
});

describe('nats.conf: only the admin user may use router.admin.>', { timeout: 30_000 }, () => {
  it('the router user\'s request is refused with a permissions violation', async () => {
    const nc = await server.connectAs('router');
    try {
      const err = await nc.request('router.admin.actor', encodeJson({ kind: 'order', id: 'ord-1' }), { timeout: 3000 }).then(() => null, (e: Error) => e);
      expect(err).not.toBeNull();
      expect(err!.cause ?? err).toMatchObject({ name: 'PermissionViolationError', operation: 'publish', subject: 'router.admin.actor' });
    } finally {
      await nc.close();
    }
  });

  it('the router user cannot subscribe to router.admin.> (so it cannot serve or overhear it)', async () => {
    const nc = await server.connectAs('router');
    try {
      const sub = nc.subscribe('router.admin.>');
      const closed = await sub.closed;
      expect(closed).toMatchObject({ name: 'PermissionViolationError', operation: 'subscription', subject: 'router.admin.>' });
    } finally {
      await nc.close();
    }
  });

  it('the worker user serves the subject but cannot call it either', async () => {
    const err = await workerNc.request('router.admin.counts', '', { timeout: 3000 }).then(() => null, (e: Error) => e);
    expect(err!.cause ?? err).toMatchObject({ name: 'PermissionViolationError', subject: 'router.admin.counts' });
  });
});

describe('router admin (CLI, as an operator runs it)', { timeout: 30_000 }, () => {
  it('admin counts prints the counts and exits 0', async () => {
    const r = await runCli(['admin', 'counts'], adminEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^KIND\s+STATUS\s+COUNT$/m);
    expect(r.stdout).toMatch(/^order\s+awaiting_deposit\s+3$/m);
    expect(r.stdout).toContain('total: quote 1, order 4');
    expect(r.stdout).toContain('live workers: 2');
  });

  it('admin actor prints the state, history with ISO times and context; --json prints the raw answer', async () => {
    const text = await runCli(['admin', 'actor', 'order', 'ord-1'], adminEnv());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^2025-01-02T03:05:05\.000Z\s+executing$/m);
    expect(text.stdout).toContain('"amountIn": "2500000000"');
    const json = await runCli(['admin', 'actor', 'order', 'ord-1', '--json'], adminEnv());
    expect(json.code).toBe(0);
    expect(decodeJson<any>(json.stdout).context.amountIn).toBe(2500000000n);
  });

  it('admin services lists the instance found by discovery', async () => {
    const r = await runCli(['admin', 'services'], adminEnv());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('router-admin: 1 instance');
    expect(r.stdout).toMatch(/^counts\s+router\.admin\.counts\s+router-admin$/m);
  });

  it('exits 1 on an error answer (not found)', async () => {
    const r = await runCli(['admin', 'actor', 'order', 'nope'], adminEnv());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error not_found: no order actor with id "nope"');
  });

  it('exits 2 on a usage error', async () => {
    const r = await runCli(['admin', 'actors'], adminEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: router admin');
  });

  it('with the router user\'s credentials it exits 3 and says permission was refused', async () => {
    const r = await runCli(['admin', 'counts'], { ROUTER_NATS_URL: server.url, ROUTER_NATS_USER: 'router', ROUTER_NATS_PASSWORD: 'router-local' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/NATS refused permission: user "router" may not publish to "router\.admin\.counts"/);
    expect(r.stdout).toBe('');
    const discovery = await runCli(['admin', 'services'], { ROUTER_NATS_URL: server.url, ROUTER_NATS_USER: 'router', ROUTER_NATS_PASSWORD: 'router-local' });
    expect(discovery.code).toBe(3);
    expect(discovery.stderr).toMatch(/NATS refused permission: user "router" may not publish to "\$SRV\.INFO\.router-admin"/);
  });

  it('exits 3 when NATS is unreachable or the password is wrong', async () => {
    const down = await runCli(['admin', 'counts'], { ROUTER_NATS_URL: 'nats://127.0.0.1:1', ROUTER_NATS_USER: 'admin', ROUTER_NATS_PASSWORD: 'x' });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^Cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
    const wrong = await runCli(['admin', 'counts'], { ROUTER_NATS_URL: server.url, ROUTER_NATS_USER: 'admin', ROUTER_NATS_PASSWORD: 'wrong' });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/refused the credentials of user "admin"/);
  });

  it('without ROUTER_NATS_USER it falls back to the admin user of nats.conf and says so on stderr', async () => {
    const r = await runCli(['admin', 'shards'], { ROUTER_NATS_URL: server.url });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^note: ROUTER_NATS_USER is not set; using the "admin" user of nats.conf\.\n$/);
    expect(r.stdout).toMatch(/^4 shards, 3 owned, 1 unowned; 2 live workers$/m);
  });
});
