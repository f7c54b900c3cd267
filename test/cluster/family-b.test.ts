// Family B end to end through a local cluster (nats-server, two workers, an edge), as `npm run cluster` runs it: the
// scenarios of test/support/family-b-scenarios.ts, which run over the embedded service too.
import { afterAll, beforeAll } from 'vitest';
import { startTestCluster } from '../support/cluster.js';
import { familyBScenarios } from '../support/family-b-scenarios.js';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    name: 'cluster-b',
    workers: 2,
    env: { ROUTER_DEPOSIT_POLL_MS: '100', ROUTER_LEASE_TTL_MS: '2000' },
  });
}, 60_000);

afterAll(() => cluster?.stop());

// The cluster's processes run on the real clock.
familyBScenarios('through the cluster edge', () => ({ url: cluster.url, urlB: cluster.urlB, devUrl: cluster.devUrl, now: () => Date.now() }), {
  waitMs: 60_000,
  testMs: 90_000,
});
