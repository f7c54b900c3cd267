// `router admin audit --data-dir` as an operator runs it, in its own process, against the data dir of a running
// embedded service: clean after an order is delivered (and with a foreign-asset deposit left for an operator),
// exit 1 once money leaves a deposit address without a record, exit 2 for a data dir that is not one.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChainAsset } from '../../src/assets/index.js';
import type { AuditReportJson } from '../../src/orders/audit.js';
import { pollUntil } from '../support/poll.js';
import { runRouterCli } from '../support/router-cli.js';
import { startService, type RunningService } from '../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SENDER = '0x000000000000000000000000000000000000dEaD';
const BASE_USDC = parseChainAsset('base.usdc', 'x').id;
const BASE_ETH = parseChainAsset('base.eth', 'x').id;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ ROUTER_DEPOSIT_POLL_MS: '50' });
}, 30_000);
afterAll(async () => svc?.stop());

const router = (args: string[]) => runRouterCli(args);

async function order(amount: string) {
  const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: amount, return_full_route: false });
  expect(q.status).toBe(200);
  const o = await svc.post('/order', { quote_id: q.body.id, to_address: TO });
  expect(o.status).toBe(201);
  return o.body as { id: string; deposit_address: string };
}
const deposit = (to: string, asset: string, amount: string) => svc.post(`${svc.devUrl}/deposits`, { to, asset, amount, from: SENDER });
const readStatus = async (id: string) => ((await (await fetch(`${svc.url}/order/${id}`)).json()) as { status: string }).status;
const until = (id: string, status: string, ms = 10_000) => pollUntil(() => readStatus(id), (s) => s === status, ms, 20);

describe('router admin audit --data-dir, beside the running service', { timeout: 60_000 }, () => {
  let delivered: { id: string; deposit_address: string };
  let waiting: { id: string; deposit_address: string };

  it('after one order is delivered: exit 0 and "audit: clean"', async () => {
    delivered = await order('2500');
    expect((await deposit(delivered.deposit_address, 'base.usdc', '2500')).status).toBe(201);
    expect(await until(delivered.id, 'delivered')).toBe('delivered');

    const r = await router(['admin', 'audit', '--data-dir', svc.dataDir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('audit: clean');
    expect(r.stdout).toContain(`base.USDC  ${BASE_USDC}`);
    expect(r.stdout).toMatch(/ {2}arrived +2500000000 +2500\n/);
    expect(r.stdout).toContain('arbitrum.USDC');
  });

  it('--json: amounts as strings, a foreign-asset deposit held where it arrived, still clean', async () => {
    waiting = await order('100');
    expect((await deposit(waiting.deposit_address, 'base.usdc', '40')).status).toBe(201);
    expect(await until(waiting.id, 'underfunded')).toBe('underfunded');
    expect((await deposit(waiting.deposit_address, 'base.eth', '0.5')).status).toBe(201);

    const r = await router(['admin', 'audit', '--json', '--data-dir', svc.dataDir]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as AuditReportJson;
    expect(report).toMatchObject({ orders: 2, clean: true, differing: 0, findings: [], unreadable: [] });
    const usdc = report.rows.find((x) => x.asset === BASE_USDC)!;
    expect(usdc).toMatchObject({ arrived: '2540000000', recorded: '2540000000', held: '40000000', ledgerHeld: '40000000', difference: '0', unrecorded: '0', heldMismatch: '0' });
    expect(report.rows.find((x) => x.asset === BASE_ETH)).toMatchObject({ arrived: '500000000000000000', foreign: '500000000000000000', held: '500000000000000000', difference: '0' });
    expect(report.foreign).toEqual([expect.objectContaining({ order: waiting.id, asset: BASE_ETH, place: `foreign deposit at ${waiting.deposit_address}` })]);
  });

  it('money moved out of a deposit address by hand: exit 1, the row and the finding named', async () => {
    await svc.service.chains.transfer({ key: 'by-hand', chain: 'base', asset: BASE_USDC, from: waiting.deposit_address, to: SENDER, amount: 1_000_000n });
    const r = await router(['admin', 'audit', '--data-dir', svc.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('audit: 1 row differs, 1 finding');
    expect(r.stdout).toMatch(/ {2}held mismatch +-1000000 +-1 {2}<- not 0\n/);
    expect(r.stdout).toContain(`${waiting.id}  held_mismatch  ${waiting.deposit_address} holds 39000000 (39 base.USDC) on the ledger; the records leave 40000000 (40 base.USDC)`);
  });

  it('a directory without router.sqlite, or arguments audit does not take: exit 2, nothing created', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'router-audit-'));
    try {
      const r = await router(['admin', 'audit', '--data-dir', empty]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${join(empty, 'router.sqlite')} does not exist`);
      expect(existsSync(join(empty, 'router.sqlite'))).toBe(false);
      expect((await router(['admin', 'audit', 'extra', '--data-dir', empty])).code).toBe(2);
      expect((await router(['admin', 'counts', '--data-dir', empty])).code).toBe(2);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
