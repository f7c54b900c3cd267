// The metrics wrappers alone: each passes its port through unchanged and records what it saw, in its own registry.
import { Router } from '@koa/router';
import Koa from 'koa';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assetById } from '../../../src/assets/index.js';
import { createInProcessBus } from '../../../src/bus/index.js';
import { OrderNotFound, SnapshotConflict, toErrorData } from '../../../src/errors.js';
import {
  createMetrics, createMetricsApp, instrumentApp, instrumentBus, instrumentMarket, instrumentRouter, instrumentStore, observeOrdersOf,
  type Metrics,
} from '../../../src/metrics/index.js';
import { askVenue } from '../../../src/routing/ask-venue.js';
import type { Router as QuoteRouter, RoutingResult } from '../../../src/routing/index.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { createSimMarket } from '../../../src/venues/index.js';
import { parseExposition, total } from '../../support/prometheus.js';
import { orderViewOf } from '../../support/fixtures.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function samples(m: Metrics) {
  return parseExposition((await m.scrape()).body);
}

describe('metrics: one registry per process', () => {
  it('two registries do not share figures, and neither is prom-client\'s global one', async () => {
    const a = createMetrics({ role: 'embedded', defaultMetrics: false });
    const b = createMetrics({ role: 'worker', defaultMetrics: false });
    a.leaseRenewals.inc({ outcome: 'ok' });
    expect(total(await samples(a), 'router_lease_renewals_total')).toBe(1);
    expect(total(await samples(b), 'router_lease_renewals_total')).toBe(0);
    const { register } = await import('prom-client');
    expect(await register.getSingleMetric('router_lease_renewals_total')).toBeUndefined();
  });
});

describe('instrumentStore: durable writes timed and counted around any store', () => {
  it('counts each save, sequence and key as one transaction, a refused version as a conflict, and reads pass through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-metrics-'));
    const raw = openSqliteStore(join(dir, 'm.sqlite'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => raw.close());
    const m = createMetrics({ role: 'embedded', defaultMetrics: false });
    const store = instrumentStore(raw, m);
    observeOrdersOf(store, m);
    const save = (expectedVersion: number) =>
      store.save({ kind: 'order', id: 'o1', snapshot: { n: expectedVersion }, expectedVersion, epoch: 0, wakeAt: null, updatedAt: 1, status: 'awaiting_deposit' });
    expect(await save(0)).toBe(1);
    await expect(save(0)).rejects.toBeInstanceOf(SnapshotConflict);
    expect(await store.nextSequence('vault')).toBe(0);
    await store.putKey('space', 'k', 'v');
    expect(await store.getKey('space', 'k')).toBe('v');
    expect((await store.load('order', 'o1'))?.version).toBe(1);

    const s = await samples(m);
    expect(total(s, 'router_store_transactions_total', { op: 'save', outcome: 'ok' })).toBe(1);
    expect(total(s, 'router_store_transactions_total', { op: 'save', outcome: 'conflict' })).toBe(1);
    expect(total(s, 'router_store_transactions_total', { op: 'next_sequence', outcome: 'ok' })).toBe(1);
    expect(total(s, 'router_store_transactions_total', { op: 'put_key', outcome: 'ok' })).toBe(1);
    expect(total(s, 'router_store_write_duration_seconds_count', { op: 'save' })).toBe(2);
    expect(total(s, 'router_orders', { status: 'awaiting_deposit' })).toBe(1);
  });
});

describe('instrumentBus: bus requests timed by kind, command and outcome', () => {
  it('an answered request is ok, a failure is labelled with its error code, and the typed error still reaches the caller', async () => {
    const m = createMetrics({ role: 'edge', defaultMetrics: false });
    const bus = instrumentBus(createInProcessBus(5_000, { verifyCodec: true }), m);
    cleanups.push(() => bus.close());
    await bus.serve(async (e) =>
      e.ref.id === 'missing' ? { ok: false, error: toErrorData(new OrderNotFound('no such order')) } : { ok: true, value: orderViewOf() },
    );
    await bus.request({ kind: 'order', id: 'o1' }, { type: 'order.get' });
    await expect(bus.request({ kind: 'order', id: 'missing' }, { type: 'order.get' })).rejects.toBeInstanceOf(OrderNotFound);
    const s = await samples(m);
    expect(total(s, 'router_bus_request_duration_seconds_count', { kind: 'order', command: 'order.get', outcome: 'ok' })).toBe(1);
    expect(total(s, 'router_bus_request_duration_seconds_count', { kind: 'order', command: 'order.get', outcome: 'order_not_found' })).toBe(1);
  });
});

describe('instrumentMarket and instrumentRouter: quote latency and venue answers per venue and outcome', () => {
  it('a venue that answers is quoted, a halted one failed, one that never answers timed_out at its deadline', async () => {
    const m = createMetrics({ role: 'worker', defaultMetrics: false });
    const sim = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const market = instrumentMarket(sim, m);
    const venue = market.venues()[0]!;
    const [fromId, toId] = venue.routes()[0]!;
    const from = assetById(fromId);
    const to = assetById(toId);
    const amount = 10n ** BigInt(from.decimals);
    expect((await askVenue(venue, from, to, amount, 1_000)).status).toBe('quoted');
    sim.setHalted(venue.id, true);
    expect((await askVenue(venue, from, to, amount, 1_000)).status).toBe('failed');
    sim.setHalted(venue.id, false);
    sim.setBehaviour(venue.id, { timeoutRate: 1 });
    expect((await askVenue(venue, from, to, amount, 30)).status).toBe('timed_out');
    const s = await samples(m);
    for (const outcome of ['quoted', 'failed', 'timed_out']) {
      expect(total(s, 'router_venue_quotes_total', { venue: venue.id, outcome })).toBe(1);
      expect(total(s, 'router_venue_quote_duration_seconds_count', { venue: venue.id, outcome })).toBe(1);
    }
    expect(market.usdPrice(from)).toBe(sim.usdPrice(from));
  });

  it('an instrumented venue keeps its quote bound, so the multi-hop search still prunes through it', () => {
    const sim = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    const market = instrumentMarket(sim, createMetrics({ role: 'worker', defaultMetrics: false }));
    const venue = market.venues()[0]!;
    const original = sim.venue(venue.id);
    const [fromId, toId] = venue.routes()[0]!;
    const from = assetById(fromId);
    const to = assetById(toId);
    const amount = 10n ** BigInt(from.decimals);
    expect(original.quoteBound).toBeDefined();
    expect(venue.quoteBound?.(from, to, amount)).toBe(original.quoteBound?.(from, to, amount));
  });

  it('a routing is timed as quoted, none (nothing quoted) or error', async () => {
    const m = createMetrics({ role: 'worker', defaultMetrics: false });
    const result = (best: RoutingResult['best']): RoutingResult => ({ best, refundCost: 0n, audit: { singleHop: [], multiHop: { paths: 0, complete: true, hops: null, attempts: [], routes: [], setupError: null } },
    });
    let next: 'none' | 'error' = 'none';
    const inner: QuoteRouter = {
      route: async () => {
        if (next === 'error') throw new Error('boom');
        return result(null);
      },
      routeBest: async () => ({ best: null, refundCost: 0n }),
      exactOutput: async () => ({ ...result(null), rounds: 1 }),
    };
    const router = instrumentRouter(inner, m);
    const req = { from: 'base.usdc', to: 'arbitrum.usdc', amountIn: 1n, mode: 'fast' as const, allowlist: [], blocklist: [] };
    await router.route(req);
    next = 'error';
    await expect(router.route(req)).rejects.toThrow('boom');
    await router.routeBest(req);
    await router.exactOutput({ from: 'base.usdc', to: 'arbitrum.usdc', amountOut: 1n, mode: 'fast', allowlist: [], blocklist: [] });
    const s = await samples(m);
    expect(total(s, 'router_quote_duration_seconds_count', { search: 'exact_input', outcome: 'none' })).toBe(2);
    expect(total(s, 'router_quote_duration_seconds_count', { search: 'exact_input', outcome: 'error' })).toBe(1);
    expect(total(s, 'router_quote_duration_seconds_count', { search: 'exact_output', outcome: 'none' })).toBe(1);
  });
});

async function listen(app: Koa): Promise<string> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

describe('instrumentApp: request latency per family and matched route template', () => {
  it('labels a request by its route template, method and status, placed before middleware already added', async () => {
    const m = createMetrics({ role: 'edge', defaultMetrics: false });
    const app = new Koa();
    const router = new Router();
    router.get('/order/:id', (ctx) => {
      ctx.body = { id: ctx.params.id };
    });
    // A middleware added before instrumentation that answers on its own is still timed.
    app.use(async (ctx, next) => {
      if (ctx.path === '/teapot') {
        ctx.status = 418;
        ctx.body = 'no';
        return;
      }
      await next();
    });
    app.use(router.routes());
    instrumentApp(app, 'A', m);
    const url = await listen(app);
    expect((await fetch(`${url}/order/abc-123`)).status).toBe(200);
    expect((await fetch(`${url}/order/def-456`)).status).toBe(200);
    expect((await fetch(`${url}/teapot`)).status).toBe(418);
    const s = await samples(m);
    expect(total(s, 'router_http_request_duration_seconds_count', { family: 'A', method: 'GET', route: '/order/:id', status: '200' })).toBe(2);
    expect(total(s, 'router_http_request_duration_seconds_count', { family: 'A', route: 'unmatched', status: '418' })).toBe(1);
    expect((await m.scrape()).body).not.toContain('abc-123');
  });

  it('createMetricsApp serves GET /metrics in the text format and nothing else', async () => {
    const m = createMetrics({ role: 'worker' });
    const url = await listen(createMetricsApp(m));
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('role="worker"');
    expect((await fetch(`${url}/other`)).status).toBe(404);
  });
});

describe('HotHistogram: venue answers kept as plain counts, written as Prometheus text when scraped', () => {
  it('writes cumulative buckets up to +Inf, the sum and count, and the counter beside it, each series with the default labels', async () => {
    const { HotHistogram } = await import('../../../src/metrics/hot-series.js');
    const h = new HotHistogram('t_seconds', 'test', [0.1, 1], { name: 't_total', help: 'test count' });
    const s = h.series({ venue: 'a"b', outcome: 'quoted' });
    for (const v of [0.05, 0.1, 0.5, 3]) s.observe(v);
    h.series({ venue: 'idle', outcome: 'failed' });
    const text = h.exposition({ role: 'worker' });
    expect(text).toContain('# TYPE t_seconds histogram');
    expect(text).toContain('# TYPE t_total counter');
    const samples = parseExposition(text);
    const where = { venue: 'a\\"b', outcome: 'quoted', role: 'worker' };
    expect(total(samples, 't_seconds_bucket', { ...where, le: '0.1' })).toBe(2);
    expect(total(samples, 't_seconds_bucket', { ...where, le: '1' })).toBe(3);
    expect(total(samples, 't_seconds_bucket', { ...where, le: '+Inf' })).toBe(4);
    expect(total(samples, 't_seconds_sum', where)).toBeCloseTo(3.65);
    expect(total(samples, 't_seconds_count', where)).toBe(4);
    expect(total(samples, 't_total', where)).toBe(4);
    // A series made but never observed is written at zero, so rates start from a known point.
    expect(samples.some((x) => x.name === 't_total' && x.labels.venue === 'idle' && x.value === 0)).toBe(true);
  });
});
