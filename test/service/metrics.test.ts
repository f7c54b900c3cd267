// GET /metrics of the embedded service (on the dev listener): Prometheus text that operators scrape, whose figures
// move with the traffic the service served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { declared, scrape, total } from '../support/prometheus.js';
import { startService, type RunningService } from '../support/service.js';

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => svc.stop());

describe('Operators see it too: GET /metrics on the dev listener of embedded mode', () => {
  it('after a quote and an order, the exposition lists every metric and its counters moved', async () => {
    const before = await scrape(`${svc.devUrl}/metrics`);
    const q = await svc.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: TO });
    expect(o.status).toBe(201);
    const got = await fetch(`${svc.url}/order/${o.body.id}`);
    expect(got.status).toBe(200);

    const after = await scrape(`${svc.devUrl}/metrics`);
    expect(after.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const types = declared(after.text);
    expect(Object.fromEntries([...types].filter(([name]) => name.startsWith('router_')))).toEqual({
      router_actors_in_memory: 'gauge',
      router_actors_passivated_total: 'counter',
      router_bus_request_duration_seconds: 'histogram',
      router_http_request_duration_seconds: 'histogram',
      router_lease_renewals_total: 'counter',
      router_orders: 'gauge',
      router_quote_duration_seconds: 'histogram',
      router_quotes_in_flight: 'gauge',
      router_requests_refused_total: 'counter',
      router_shard_moves_total: 'counter',
      router_shards_owned: 'gauge',
      router_store_transactions_total: 'counter',
      router_store_write_duration_seconds: 'histogram',
      router_venue_quote_duration_seconds: 'histogram',
      router_venue_quotes_total: 'counter',
    });
    // Default process metrics of prom-client.
    expect(types.get('process_cpu_seconds_total')).toBe('counter');
    expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');

    const s = after.samples;
    const moved = (name: string, where: Record<string, string> = {}) => total(s, name, where) - total(before.samples, name, where);
    // Requests by family and matched route template, never the raw path (the order id is not a label).
    expect(moved('router_http_request_duration_seconds_count', { family: 'A', method: 'POST', route: '/quote', status: '200' })).toBe(1);
    expect(moved('router_http_request_duration_seconds_count', { family: 'A', method: 'POST', route: '/order', status: '201' })).toBe(1);
    expect(moved('router_http_request_duration_seconds_count', { family: 'A', method: 'GET', route: '/order/:id', status: '200' })).toBe(1);
    expect(after.text).not.toContain(o.body.id);
    // One routing for the quote; venues answered it.
    expect(moved('router_quote_duration_seconds_count', { search: 'exact_input', outcome: 'quoted' })).toBe(1);
    expect(moved('router_venue_quotes_total', { outcome: 'quoted' })).toBeGreaterThan(0);
    expect(s.some((x) => x.name === 'router_venue_quotes_total' && x.labels.venue !== undefined)).toBe(true);
    // The order exists in the store, by status, read at scrape time.
    expect(total(s, 'router_orders', { status: 'awaiting_deposit' })).toBe(1);
    // Durable writes: the quote's quoted snapshot and its binding saved, the order created in one numbered write.
    expect(moved('router_store_transactions_total', { op: 'save', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(moved('router_store_write_duration_seconds_count', { op: 'save' })).toBeGreaterThanOrEqual(2);
    expect(moved('router_store_transactions_total', { op: 'create_numbered', outcome: 'ok' })).toBe(1);
    // Bus requests of the edge to the actors: quote.request, quote.order (the host binds and creates), order.get.
    expect(moved('router_bus_request_duration_seconds_count', { kind: 'quote', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(moved('router_bus_request_duration_seconds_count', { kind: 'quote', command: 'quote.order', outcome: 'ok' })).toBe(1);
    expect(moved('router_bus_request_duration_seconds_count', { kind: 'order', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    // Actors in memory: at least the quote and the order just made.
    expect(total(s, 'router_actors_in_memory')).toBeGreaterThanOrEqual(2);
    // Every series says which process it comes from.
    expect(s.filter((x) => x.name.startsWith('router_')).every((x) => x.labels.role === 'embedded')).toBe(true);
  });

  it('a path no route knows is labelled `unmatched`, so clients cannot mint label values', async () => {
    const res = await fetch(`${svc.url}/no/such/path/4711`);
    expect(res.status).toBe(404);
    const { samples, text } = await scrape(`${svc.devUrl}/metrics`);
    expect(total(samples, 'router_http_request_duration_seconds_count', { family: 'A', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // No label value carries the path (a sample's value may hold those digits by chance: 0.4711 s of CPU).
    expect(samples.filter((x) => Object.values(x.labels).some((v) => v.includes('/no/such') || v.includes('4711')))).toEqual([]);
    expect(text).not.toContain('/no/such/path');
  });
});

describe('Operators see it too: actors in memory and passivated', () => {
  it('an idle quote leaves memory: the passivation counter moves and the in-memory gauge falls', async () => {
    const idle = await startService({ ROUTER_IDLE_MS: '100' });
    try {
      const q = await idle.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
      expect(q.status).toBe(200);
      const read = async () => (await scrape(`${idle.devUrl}/metrics`)).samples;
      const s = await pollUntil(read, (samples) => total(samples, 'router_actors_passivated_total', { kind: 'quote' }) >= 1, 5_000, 100);
      expect(total(s, 'router_actors_passivated_total', { kind: 'quote' })).toBeGreaterThanOrEqual(1);
      expect(total(s, 'router_actors_in_memory')).toBe(0);
    } finally {
      await idle.stop();
    }
  });
});
