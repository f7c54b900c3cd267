// GET /metrics in cluster mode: every worker and the edge serve their own on their own port (ROUTER_METRICS_PORT,
// one per process of the host), each with its role's figures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { startTestCluster } from '../support/cluster.js';
import { declared, scrape, total } from '../support/prometheus.js';
import { call } from '../support/retrying-fetch.js';

const SHARDS = 8;
const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    name: 'cluster-metrics',
    workers: 1,
    env: { ROUTER_LEASE_TTL_MS: '1500', ROUTER_SHARDS: String(SHARDS) },
  });
}, 60_000);

afterAll(() => cluster?.stop());

describe('Operators see it too: GET /metrics on every worker and edge, each on its own port', () => {
  it('after a quote and an order, the edge shows its requests and bus calls, the worker its routing, store, orders and leases', async () => {
    const [worker] = cluster.workers;
    expect(cluster.edge.metricsUrl).not.toBeNull();
    expect(worker!.metricsUrl).not.toBeNull();
    expect(worker!.metricsUrl).not.toBe(cluster.edge.metricsUrl);

    const q = await call('POST', `${cluster.url}/quote`, { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await call('POST', `${cluster.url}/order`, { quote_id: q.body.id, to_address: TO });
    expect(o.status).toBe(201);
    // Renewals run every third of the lease TTL (500 ms here).
    await new Promise((r) => setTimeout(r, 1_200));

    const edge = await scrape(cluster.edge.metricsUrl!);
    expect(declared(edge.text).get('router_http_request_duration_seconds')).toBe('histogram');
    expect(total(edge.samples, 'router_http_request_duration_seconds_count', { role: 'edge', family: 'A', route: '/quote', status: '200' })).toBe(1);
    expect(total(edge.samples, 'router_http_request_duration_seconds_count', { role: 'edge', family: 'A', route: '/order', status: '201' })).toBe(1);
    expect(total(edge.samples, 'router_bus_request_duration_seconds_count', { kind: 'quote', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    // One message per order from the edge: the worker binds the quote and creates the order.
    expect(total(edge.samples, 'router_bus_request_duration_seconds_count', { kind: 'quote', command: 'quote.order', outcome: 'ok' })).toBe(1);
    expect(total(edge.samples, 'router_bus_request_duration_seconds_count', { kind: 'order', command: 'order.create' })).toBe(0);
    expect(total(edge.samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);

    const w = await scrape(worker!.metricsUrl!);
    expect(total(w.samples, 'router_quote_duration_seconds_count', { role: 'worker', outcome: 'quoted' })).toBe(1);
    expect(total(w.samples, 'router_venue_quotes_total', { outcome: 'quoted' })).toBeGreaterThan(0);
    expect(total(w.samples, 'router_store_transactions_total', { op: 'save', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(total(w.samples, 'router_store_transactions_total', { op: 'create_numbered', outcome: 'ok' })).toBe(1);
    expect(total(w.samples, 'router_orders', { status: 'awaiting_deposit' })).toBe(1);
    expect(total(w.samples, 'router_actors_in_memory')).toBeGreaterThanOrEqual(2);
    expect(total(w.samples, 'router_shards_owned')).toBe(SHARDS);
    expect(total(w.samples, 'router_shard_moves_total', { direction: 'acquired' })).toBe(SHARDS);
    expect(total(w.samples, 'router_lease_renewals_total', { outcome: 'ok' })).toBeGreaterThan(0);
    // The edge routes nothing and holds no lease: those figures are the workers'.
    expect(total(edge.samples, 'router_quote_duration_seconds_count')).toBe(0);
    expect(total(edge.samples, 'router_lease_renewals_total')).toBe(0);
  });
});
