// router.admin.audit on a real nats-server with nats.conf's users: a worker's admin service audits the store and the
// simulated ledger it was given, the `router admin audit` CLI prints it (text, --json) with exit 0 when clean and 1
// when not, and an instance without a ledger answers an error instead of a clean audit of nothing.
import { startTestNats, type TestNats } from '../support/cluster.js';
import { runRouterCli } from '../support/router-cli.js';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader } from '@nats-io/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService, type AdminService } from '../../actors/admin.js';
import type { ShardDirectory } from '../../actors/shard-directory.js';
import { parseChainAsset } from '../../src/assets/index.js';
import { openSimChains } from '../../src/chains/index.js';
import type { SimChains } from '../../src/chains/types.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import type { AuditReportJson } from '../../src/orders/audit.js';
import type { MoneyRecords } from '../../src/orders/money.js';
import { decodeJson } from '../../src/store/codec.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { ActorStore } from '../../src/store/types.js';

const BASE_USDC = parseChainAsset('base.usdc', 'x').id;
const DEPOSIT = '0xAbCdEf0000000000000000000000000000000001';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const directory: ShardDirectory = { shards: async () => [], workers: async () => [] };
let server: TestNats;
let store: ActorStore;
let chains: SimChains;
let clock: ManualClock;
let workerNc: NatsConnection;
let adminNc: NatsConnection;
let admin: AdminService;

beforeAll(async () => {
  server = await startTestNats('admin-audit');
  store = openSqliteStore(join(server.dir, 'router.sqlite'));
  clock = new ManualClock();
  chains = openSimChains({ file: join(server.dir, 'router.sqlite'), clock, pollMs: 0 });
  // One order with its deposit recorded, its block mined: clean.
  const t = await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: SENDER, to: DEPOSIT, amount: 40_000_000n });
  clock.advance(10_000);
  const context: MoneyRecords = {
    id: 'ord-1', sourceChain: 'base', route: { from: BASE_USDC }, vault: { address: DEPOSIT },
    deposits: [{ txId: t.txId, from: SENDER, amount: 40_000_000n, confirmations: 1, required: 1, at: t.at, late: false, spent: 0n, refunded: 0n }],
    legs: [], delivery: null, refunds: [],
  };
  await store.save({
    kind: 'order', id: 'ord-1', snapshot: { status: 'active', value: {}, context, children: {}, historyValue: {} },
    expectedVersion: 0, epoch: 1, wakeAt: null, updatedAt: 1, status: 'underfunded',
  });
  workerNc = await server.connectAs('worker');
  adminNc = await server.connectAs('admin');
  admin = await createAdminService({ nc: workerNc, store, chains, directory, workerId: 'w-a', version: '0.2.47', logger: createLogger('silent') });
}, 30_000);

afterAll(async () => {
  await admin?.stop();
  await adminNc?.close();
  await workerNc?.close();
  await chains?.close();
  await store?.close();
  await server?.stop();
}, 30_000);

const runCli = (args: string[]) =>
  runRouterCli(args, { ROUTER_NATS_URL: server.url, ROUTER_NATS_USER: 'admin', ROUTER_NATS_PASSWORD: 'admin-local' });

describe('router.admin.audit', { timeout: 60_000 }, () => {
  it('answers the audit of the worker\'s store and ledger, amounts as decimal strings', async () => {
    const msg = await adminNc.request('router.admin.audit', '', { timeout: 20_000 });
    expect(msg.headers?.get(ServiceErrorCodeHeader) ?? '').toBe('');
    const report = decodeJson<AuditReportJson>(msg.string());
    expect(report).toMatchObject({ orders: 1, clean: true, differing: 0, findings: [], unreadable: [] });
    expect(report.rows).toEqual([expect.objectContaining({ chain: 'base', asset: BASE_USDC, arrived: '40000000', recorded: '40000000', held: '40000000', ledgerHeld: '40000000', difference: '0' })]);
  });

  it('refuses a request with fields (400), like the other endpoints without parameters', async () => {
    const msg = await adminNc.request('router.admin.audit', '{"orders":1}', { timeout: 5_000 });
    expect(msg.headers?.get(ServiceErrorCodeHeader)).toBe('400');
  });

  it('router admin audit: text with "audit: clean" and exit 0; --json prints the answer as it came', async () => {
    const text = await runCli(['admin', 'audit']);
    expect(text.code).toBe(0);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('audit: clean');
    expect(text.stdout).toMatch(/ {2}ledger held +40000000 +40\n/);
    const json = await runCli(['admin', 'audit', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ orders: 1, clean: true });
  });

  it('money that left the deposit address without a record: exit 1, in text and in --json', async () => {
    await chains.transfer({ key: 'by-hand', chain: 'base', asset: BASE_USDC, from: DEPOSIT, to: SENDER, amount: 1n });
    const text = await runCli(['admin', 'audit']);
    expect(text.code).toBe(1);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('audit: 1 row differs, 1 finding');
    const json = await runCli(['admin', 'audit', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ clean: false, differing: 1, findings: [{ kind: 'held_mismatch', order: 'ord-1', held: '40000000', ledgerHeld: '39999999' }] });
  });

  it('an instance without a ledger answers internal (500), not a clean audit', async () => {
    await admin.stop();
    const bare = await createAdminService({ nc: workerNc, store, directory, workerId: 'w-b', version: '0.2.47', logger: createLogger('silent') });
    try {
      const msg = await adminNc.request('router.admin.audit', '', { timeout: 5_000 });
      expect(msg.headers?.get(ServiceErrorCodeHeader)).toBe('500');
      expect(decodeJson<any>(msg.string())).toEqual({ error: { code: 'internal', message: 'this admin instance has no chains ledger to audit' } });
    } finally {
      await bare.stop();
    }
  });
});
