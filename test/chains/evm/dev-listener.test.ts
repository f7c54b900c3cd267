// The dev listener on a chain wired to a real node: a simulated deposit there would credit the books with money the
// chain never received, so both dev listeners refuse it with a clear error (the money must come on chain), while
// simulated chains keep taking simulated deposits. The embedded service's listener, and the cluster edge's (which
// opens the workers' ledger file itself).
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChainAsset } from '../../../src/assets/index.js';
import { type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { devnetServiceEnv } from '../../../src/chains/evm/devnet.js';
import { createEdge, type Edge } from '../../../src/cluster/edge.js';
import { NATS_USERS, startNatsServer, type NatsServer } from '../../../src/cluster/nats-server.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import type { RunningService } from '../../support/service.js';
import { DEV_ROLES, useServiceOnBase } from './support.js';

const DEPOSIT = '0x00000000000000000000000000000000000000d1';
const REFUSAL = /^base is a real chain here: a simulated deposit is refused; send a real transaction to the deposit address instead\.$/;

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('the embedded dev listener', () => {
  let node: AnvilNode;
  let svc: RunningService;
  useServiceOnBase((s) => ({ node, svc } = s));

  it('refuses a simulated deposit on a chain wired to a node (400, the money must come on chain), takes one on a simulated chain', async () => {
    const r = await postJson(`${svc.devUrl}/deposits`, { to: DEPOSIT, asset: 'base.usdc', amount: '5', from: DEV_ROLES.user.address });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(REFUSAL);
    // Nothing was booked for it.
    expect(await svc.service.chains.balanceOf('base', DEPOSIT, parseChainAsset('base.usdc', 'asset').id)).toBe(0n);
    const sim = await postJson(`${svc.devUrl}/deposits`, { to: DEPOSIT, asset: 'arbitrum.usdc', amount: '5', from: DEV_ROLES.user.address });
    expect(sim.status).toBe(201);
    expect(node.url).toMatch(/^http/);
  });
});

describe('the cluster edge\'s dev listener', () => {
  const dir = mkdtempSync(join(tmpdir(), 'router-edge-dev-'));
  let nats: NatsServer;
  let edge: Edge;
  let server: Server;
  let devUrl: string;
  beforeAll(async () => {
    nats = await startNatsServer({ dir });
    // The workers of this cluster would read base from a node; the edge needs no node to refuse (it never reads it).
    const config = loadConfig({
      ROUTER_DATA_DIR: dir,
      ROUTER_LOG_LEVEL: 'silent',
      ROUTER_NATS_URL: nats.url,
      ROUTER_NATS_USER: NATS_USERS.router.user,
      ROUTER_NATS_PASSWORD: NATS_USERS.router.pass,
      ROUTER_GATEWAY_SECRET: 'edge-dev-listener-test-secret-0123456789',
      ...devnetServiceEnv(new Map([['base', { url: 'http://127.0.0.1:9' }]])),
    });
    edge = await createEdge(config, { logger: createLogger('silent'), devListener: true });
    server = edge.devApp!.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const addr = server.address();
    devUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }, 30_000);
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await edge?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a simulated deposit on a chain wired to a node (400, the money must come on chain), takes one on a simulated chain', async () => {
    const r = await postJson(`${devUrl}/deposits`, { to: DEPOSIT, asset: 'base.usdc', amount: '5', from: DEV_ROLES.user.address });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(REFUSAL);
    const sim = await postJson(`${devUrl}/deposits`, { to: DEPOSIT, asset: 'arbitrum.usdc', amount: '5', from: DEV_ROLES.user.address });
    expect(sim.status).toBe(201);
    expect(sim.body.chain).toBe('arbitrum');
  });

  it('refuses POST /clock/advance (400): each worker keeps the system time', async () => {
    const r = await postJson(`${devUrl}/clock/advance`, { ms: 60_000 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('The clock can be moved only in embedded mode; each worker keeps the system time.');
  });
});
