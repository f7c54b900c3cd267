// Kill the service with SIGKILL at random moments of execution and start it again on the same data dir: every
// order carries on and completes exactly once, and the ledger balances (nothing lost, nothing paid twice).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor, waitUntil } from '../support/poll.js';
import { freePort } from '../../src/cluster/ports.js';
import { runRouterCli } from '../support/router-cli.js';
import { parseAmount, parseChainAsset } from '../../src/assets/index.js';
import { openSimChains } from '../../src/chains/index.js';
import { ManualClock } from '../../src/clock.js';

const TO_BTC = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const SENDER = '0x000000000000000000000000000000000000dEaD';

/** The embedded service as a child process on a data dir that outlives it: started, SIGKILLed, started again. */
async function serviceProcess(dir: string) {
  const portA = await freePort();
  const portDev = await freePort();
  const portB = await freePort();
  const portC = await freePort();
  const base = `http://127.0.0.1:${portA}`;
  const dev = `http://127.0.0.1:${portDev}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env, ROUTER_DATA_DIR: dir, ROUTER_PORT_A: String(portA), ROUTER_PORT_B: String(portB), ROUTER_PORT_C: String(portC), ROUTER_DEV_PORT: String(portDev), ROUTER_HOST: '127.0.0.1',
        ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_FAILURES: 'off', ROUTER_DEPOSIT_POLL_MS: '50', ROUTER_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitUntil(async () => {
      try {
        return (await fetch(`${base}/health`)).ok;
      } catch {
        return false; // not listening yet
      }
    }, 'the service to start', 20_000);
    child = c;
  };
  const kill = async () => {
    const c = child!;
    c.kill('SIGKILL');
    if (c.exitCode === null && c.signalCode === null) await once(c, 'exit');
    child = null;
  };
  const stop = async () => {
    if (!child) return;
    const c: ChildProcess = child;
    c.kill('SIGTERM');
    if (c.exitCode === null && c.signalCode === null) await once(c, 'exit');
    child = null;
  };
  const post = async (url: string, body: unknown) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const get = async (id: string) => (await (await fetch(`${base}/order/${id}`)).json()) as Record<string, any>;
  return { base, dev, start, kill, stop, post, get, abandon: () => (child as ChildProcess | null)?.kill('SIGKILL') };
}

describe('Restart safety: kill the process at any moment and start it again; every order carries on, none twice', () => {
  it('three two-step orders survive SIGKILL at random points of execution, deliver once, and conserve every unit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-kill-'));
    const svc = await serviceProcess(dir);
    const { base, dev, start, kill, post } = svc;

    const orders: Array<Record<string, any>> = [];
    try {
      await start();
      for (let i = 0; i < 3; i++) {
        // robinhood USDG → bitcoin BTC has no direct venue: two steps (via ethereum USDC), then delivery on bitcoin.
        const q = await post(`${base}/quote`, { from: 'robinhood.usdg', to: 'bitcoin.btc', from_amount: '5000', return_full_route: true });
        expect(q.status).toBe(200);
        expect(q.body.route.length).toBe(2);
        const o = await post(`${base}/order`, { quote_id: q.body.id, to_address: TO_BTC });
        expect(o.status).toBe(201);
        orders.push(o.body);
        const d = await post(`${dev}/deposits`, { to: o.body.deposit_address, asset: 'robinhood.usdg', amount: '5000', from: SENDER });
        expect(d.status).toBe(201);
        // Somewhere between the deposit being mined and delivery: the kill lands at a random point.
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
        await kill();
        await start();
      }
      const end = Date.now() + 30_000;
      for (const o of orders) {
        for (;;) {
          const got = (await (await fetch(`${base}/order/${o.id}`)).json()) as Record<string, any>;
          if (got.status === 'delivered') {
            o.amount_out = got.amount_out;
            break;
          }
          expect(['awaiting_deposit', 'funded', 'executing']).toContain(got.status);
          if (Date.now() > end) throw new Error(`order ${o.id} stuck in ${got.status}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      await svc.stop();

      const chains = openSimChains({ file: join(dir, 'router.sqlite'), clock: new ManualClock(), pollMs: 0 });
      const btc = parseChainAsset('bitcoin.btc', 'to');
      let delivered = 0n;
      for (const o of orders) {
        const out = parseAmount(o.amount_out, btc, 'formatted', 'amount_out');
        const deliveries = (await chains.transfers({ address: TO_BTC })).filter((t) => t.key === `${o.id}:deliver`);
        expect(deliveries.map((t) => t.amount)).toEqual([out]);
        delivered += out;
        // Nothing left behind and nothing paid twice: the deposit address and the holding accounts are empty.
        expect(await chains.balanceOf('robinhood', o.deposit_address, parseChainAsset('robinhood.usdg', 'from').id)).toBe(0n);
        for (const chain of ['ethereum', 'bitcoin'] as const) {
          const held = (await chains.balances({ chain, address: `order:${o.id}` })).filter((b) => b.amount !== 0n);
          expect(held).toEqual([]);
        }
        // Each step's venue input and output moved exactly once.
        for (const key of [`${o.id}:0:in`, `${o.id}:0:out`, `${o.id}:1:in`, `${o.id}:1:out`]) {
          expect(await chains.transfers({ key })).toHaveLength(1);
        }
      }
      expect(await chains.balanceOf('bitcoin', TO_BTC, btc.id)).toBe(delivered);
      await chains.close();
    } finally {
      svc.abandon();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('SIGKILL while orders are being created: each answered order is there as answered, the others are made by repeating the request, every address distinct and watched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-kill-create-'));
    const svc = await serviceProcess(dir);
    const { base, dev, start, kill, post } = svc;
    const TO_EVM = '0x1111111111111111111111111111111111111111';
    try {
      await start();
      const quotes: string[] = [];
      for (let i = 0; i < 24; i++) {
        const q = await post(`${base}/quote`, { from: 'hyperliquid.usdc', to: 'hyperliquid.hype', from_amount: '1000', return_full_route: false });
        expect(q.status).toBe(200);
        quotes.push(q.body.id as string);
      }
      // All creations at once; the kill lands just after the first answer, while the others are half way.
      const answered = new Map<string, Record<string, any>>();
      let firstAnswer: () => void = () => {};
      const first = new Promise<void>((r) => (firstAnswer = r));
      const inFlight = quotes.map((quote_id) =>
        post(`${base}/order`, { quote_id, to_address: TO_EVM }).then(
          (r) => {
            if (r.status === 201) answered.set(quote_id, r.body);
            firstAnswer();
          },
          () => undefined, // cut by the kill: never answered
        ),
      );
      await first;
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20)));
      await kill();
      await Promise.all(inFlight);
      // The kill landed inside the creations: some were answered, some were not.
      expect(answered.size).toBeGreaterThan(0);
      expect(answered.size).toBeLessThan(quotes.length);
      await start();

      // The client repeats every request: an answered order comes back as it was, an unanswered one is made now.
      const orders: Array<Record<string, any>> = [];
      for (const quote_id of quotes) {
        const r = await post(`${base}/order`, { quote_id, to_address: TO_EVM });
        expect([200, 201]).toContain(r.status);
        expect(r.body.status).toBe('awaiting_deposit');
        const before = answered.get(quote_id);
        if (before) expect({ id: r.body.id, deposit_address: r.body.deposit_address }).toEqual({ id: before.id, deposit_address: before.deposit_address });
        orders.push(r.body);
      }
      expect(new Set(orders.map((o) => (o.deposit_address as string).toLowerCase())).size).toBe(quotes.length);

      // Every deposit address is watched: a deposit to it reaches its order.
      for (const o of orders) {
        const d = await post(`${dev}/deposits`, { to: o.deposit_address, asset: 'hyperliquid.usdc', amount: '1000', from: SENDER });
        expect(d.status).toBe(201);
      }
      // One deadline for all the orders: each wait has what is left of it.
      const end = Date.now() + 30_000;
      for (const o of orders) {
        await waitUntil(async () => (await svc.get(o.id as string)).status !== 'awaiting_deposit', `order ${o.id} to see its deposit`, end - Date.now());
      }
      await svc.stop();
    } finally {
      svc.abandon();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('late deposits, overpayments and cancellations with their refunds in flight survive SIGKILL: each refunded once, the audit clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-kill-refunds-'));
    const svc = await serviceProcess(dir);
    const { dev, start, kill, post, get } = svc;
    const usdc = parseChainAsset('base.usdc', 'from');
    const killSoon = async () => {
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 150)));
      await kill();
      await start();
    };
    const order = async (amount: string) => {
      const q = await post(`${svc.base}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: amount, return_full_route: false });
      expect(q.status).toBe(200);
      const o = await post(`${svc.base}/order`, { quote_id: q.body.id, to_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' });
      expect(o.status).toBe(201);
      return o.body;
    };
    const until = (id: string, done: (o: Record<string, any>) => boolean) =>
      waitFor(() => get(id), done, (o) => `order ${id} stuck: ${JSON.stringify(o)}`, 30_000);
    try {
      await start();
      // A: delivered, then a late deposit whose refund the kill may interrupt.
      const a = await order('30');
      await post(`${dev}/deposits`, { to: a.deposit_address, asset: 'base.usdc', amount: '30', from: SENDER });
      await until(a.id, (o) => o.status === 'delivered');
      await post(`${dev}/deposits`, { to: a.deposit_address, asset: 'base.usdc', amount: '7', from: SENDER });
      await killSoon();
      // B: an overpayment, its excess refunded while the route runs.
      const b = await order('20');
      await post(`${dev}/deposits`, { to: b.deposit_address, asset: 'base.usdc', amount: '26', from: SENDER });
      await killSoon();
      // C: underfunded, cancelled by the operator; the kill lands during the cancellation's refund.
      const c = await order('50');
      await post(`${dev}/deposits`, { to: c.deposit_address, asset: 'base.usdc', amount: '12', from: SENDER });
      await until(c.id, (o) => o.status === 'underfunded');
      expect((await post(`${dev}/orders/${c.id}/unwind`, {})).status).toBe(200);
      await killSoon();

      const aDone = await until(a.id, (o) => o.refunds?.length === 1);
      const bDone = await until(b.id, (o) => o.status === 'delivered' && o.refunds?.length === 1);
      const cDone = await until(c.id, (o) => o.status === 'expired' && o.refunds?.length === 1);
      expect([aDone.refunds[0].reason, bDone.refunds[0].reason, cDone.refunds[0].reason]).toEqual(['late_deposit', 'excess', 'cancelled']);
      await svc.stop();

      const chains = openSimChains({ file: join(dir, 'router.sqlite'), clock: new ManualClock(), pollMs: 0 });
      const expected: Array<[Record<string, any>, bigint]> = [[a, 7_000_000n], [b, 6_000_000n], [c, 12_000_000n]];
      for (const [o, amount] of expected) {
        const refunds = (await chains.transfers()).filter((t) => t.key.startsWith(`${o.id}:refund:`));
        // One refund of the whole free amount: what reached the sender plus its cost, nothing twice.
        expect(refunds.reduce((s, t) => s + t.amount, 0n)).toBe(amount);
        expect(refunds.filter((t) => !t.key.endsWith(':cost')).map((t) => t.to)).toEqual([SENDER]);
        expect(await chains.balanceOf('base', o.deposit_address, usdc.id)).toBe(0n);
      }
      await chains.close();

      // The operator's audit of the data dir: every difference 0.
      const audit = await runRouterCli(['admin', 'audit', '--data-dir', dir]);
      expect(audit.stdout.trimEnd().split('\n').at(-1)).toBe('audit: clean');
      expect(audit.code).toBe(0);
    } finally {
      svc.abandon();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
