// A local cluster knows its processes serve from their `ready` message on the IPC channel, not from a log line, so
// a cluster whose processes log nothing at all starts as quickly as a chatty one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../src/cluster/local-cluster.js';
import { isReadyMessage } from '../../src/cluster/ready.js';
import { startTestCluster } from '../support/cluster.js';

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ name: 'cluster-ready', workers: 1, metricsPort: null, env: { ROUTER_LOG_LEVEL: 'silent' } });
}, 60_000);

afterAll(() => cluster?.stop());

describe('processes of a local cluster say they serve whatever their log level', () => {
  it('a cluster logging nothing starts, and its edge answers /health and a quote through the worker', async () => {
    expect(cluster.edge.lines.filter((l) => l.includes('"listening"'))).toEqual([]);
    expect(cluster.workers[0]!.lines.filter((l) => l.includes('"worker started"'))).toEqual([]);
    expect((await fetch(`${cluster.url}/health`)).status).toBe(200);
    const res = await fetch(`${cluster.url}/quote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '100', return_full_route: false }),
    });
    expect(res.status).toBe(200);
  }, 30_000);

  it('only a message of type ready counts as ready', () => {
    expect(isReadyMessage({ type: 'ready', mode: 'edge' })).toBe(true);
    expect(isReadyMessage({ type: 'log', line: '"listening"' })).toBe(false);
    expect(isReadyMessage('ready')).toBe(false);
    expect(isReadyMessage(null)).toBe(false);
  });
});
