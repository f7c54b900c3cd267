// Load shedding in a cluster: the edge holds the cap of quotes in flight for the whole cluster, so a full cap of slow
// quotes leaves /health fast and one more quote is refused at the edge with 503 and Retry-After, never reaching NATS.
// The edge's /metrics shows the quotes in flight and the refusal by reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { startTestCluster } from '../support/cluster.js';
import { waitUntil } from '../support/poll.js';
import { scrape, total } from '../support/prometheus.js';

const CAP = 2;
const QUOTE = { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', quote_mode: 'fast', return_full_route: false };

let cluster: LocalCluster;

beforeAll(async () => {
  // Slow venues (ten times the catalog's latency) cut off at 1.5 s: every quote holds its slot for a second or more.
  cluster = await startTestCluster({
    name: 'cluster-overload',
    workers: 1,
    env: {
      ROUTER_MAX_QUOTES_IN_FLIGHT: String(CAP),
      ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0',
      ROUTER_SIM_LATENCY_SCALE: '10',
      ROUTER_DEADLINE_FAST_MS: '1500',
      ROUTER_LOG_LEVEL: 'warn',
    },
  });
}, 60_000);

afterAll(() => cluster?.stop());

const postQuote = () =>
  fetch(`${cluster.url}/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(QUOTE) });

describe('Load shedding through the edge of a cluster', () => {
  it('with the cap full of slow quotes, /health answers within 100 ms and one more quote gets 503 with Retry-After; /metrics shows both', async () => {
    const edgeMetrics = cluster.edge.metricsUrl!;
    // Settled either way, so a failed check below cannot leave a rejection behind when the cluster stops.
    const held = Array.from({ length: CAP }, () => postQuote().then((r) => r.status, (err: unknown) => String(err)));
    await waitUntil(async () => total((await scrape(edgeMetrics)).samples, 'router_quotes_in_flight') >= CAP, 'the held quotes to fill the cap', 5000, 20);

    const t0 = performance.now();
    const health = await fetch(`${cluster.url}/health`);
    expect(health.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(100);

    const shed = await postQuote();
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(Object.keys((await shed.json()) as object)).toEqual(['error']);

    const during = (await scrape(edgeMetrics)).samples;
    expect(total(during, 'router_requests_refused_total', { reason: 'cap' })).toBe(1);
    // The refused quote never reached a worker: the edge sent the held quotes only.
    expect(total(during, 'router_bus_request_duration_seconds_count', { command: 'quote.request' })).toBe(0);

    for (const status of await Promise.all(held)) expect([200, 422]).toContain(status);
    const after = (await scrape(edgeMetrics)).samples;
    expect(total(after, 'router_quotes_in_flight')).toBe(0);
    expect(total(after, 'router_bus_request_duration_seconds_count', { command: 'quote.request' })).toBe(CAP);
  }, 60_000);
});
