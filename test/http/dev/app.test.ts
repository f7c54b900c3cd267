// The dev listener's requests: what each accepts, what it refuses with 400 (Family A's envelope), and what reaches
// the service behind it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevApp, type DevDeps } from '../../../http/dev/app.js';
import type { VenueId } from '../../../src/venues/types.js';
import { collectedLogs } from '../family-a/support.js';

const ORDER_ID = '0b4a5f3e-6a8e-4c52-9d2b-1f0e7c1d2a3b';

describe('dev listener', () => {
  const calls: { advanced: number[]; halted: Array<[VenueId, boolean]>; unwound: string[]; deposits: unknown[] } = {
    advanced: [],
    halted: [],
    unwound: [],
    deposits: [],
  };
  const deps: DevDeps = {
    logger: collectedLogs().logger,
    bodyLimitBytes: 4096,
    async deposit(d) {
      calls.deposits.push(d);
      return { txId: 'sim-tx-1', block: 7 };
    },
    async advanceClock(ms) {
      calls.advanced.push(ms);
      return { now: Date.UTC(2026, 0, 1) + ms };
    },
    async unwind(id) {
      calls.unwound.push(id);
      return { status: 'refunding' };
    },
    async haltVenue(venue, halted) {
      calls.halted.push([venue, halted]);
    },
  };
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createDevApp(deps).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** Family A's error envelope: `{error: <one sentence>}`. */
  const errorOf = (r: { body: Record<string, unknown> }) => r.body.error;

  for (const [path, body] of [
    ['/clock/advance', [1000]],
    ['/clock/advance', 5],
    ['/venues/across/halt', 'yes'],
    ['/deposits', null],
  ] as const) {
    it(`${path} refuses a body that is not a JSON object (${JSON.stringify(body)}) with 400`, async () => {
      const r = await post(path, body);
      expect(r.status).toBe(400);
      expect(errorOf(r)).toBe('The body must be a JSON object.');
    });
  }

  it('/clock/advance moves the clock by an integer ms and answers the new time; anything else is 400 naming `ms`', async () => {
    const ok = await post('/clock/advance', { ms: 61_000 });
    expect(ok).toEqual({ status: 200, body: { now: new Date(Date.UTC(2026, 0, 1) + 61_000).toISOString() } });
    for (const ms of [-1, 1.5, '10', null]) {
      const r = await post('/clock/advance', { ms });
      expect(r.status).toBe(400);
      expect(errorOf(r)).toMatch(/^`ms` must be an integer between 0 and /);
    }
    expect(calls.advanced).toEqual([61_000]);
  });

  it('/venues/:venue/halt halts or resumes a known venue; an unknown venue or a halted that is not a boolean is 400', async () => {
    expect(await post('/venues/across/halt', { halted: true })).toEqual({ status: 200, body: { venue: 'across', halted: true } });
    expect(await post('/venues/across/halt', { halted: false })).toEqual({ status: 200, body: { venue: 'across', halted: false } });
    const unknown = await post('/venues/nowhere/halt', { halted: true });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatch(/^`venue` must be one of aave, across, /);
    const notBoolean = await post('/venues/across/halt', { halted: 'true' });
    expect(notBoolean.status).toBe(400);
    expect(errorOf(notBoolean)).toBe('`halted` must be a boolean.');
    expect(calls.halted).toEqual([['across', true], ['across', false]]);
  });

  it('/orders/:id/unwind takes a uuid in any case and answers its status; anything else is 400', async () => {
    expect(await post(`/orders/${ORDER_ID.toUpperCase()}/unwind`, {})).toEqual({ status: 200, body: { id: ORDER_ID, status: 'refunding' } });
    const r = await post('/orders/not-a-uuid/unwind', {});
    expect(r.status).toBe(400);
    expect(calls.unwound).toEqual([ORDER_ID]);
  });

  it('/deposits names the missing field', async () => {
    const r = await post('/deposits', { asset: 'base.usdc', amount: '5' });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toBe('`to` is required and must be a string.');
    expect(calls.deposits).toEqual([]);
  });

  it('/deposits takes {to, asset, amount, from} and answers 201 {tx_id, chain, block}', async () => {
    const r = await post('/deposits', { to: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', asset: 'base.usdc', amount: '5', from: '0x000000000000000000000000000000000000dEaD' });
    expect(r).toEqual({ status: 201, body: { tx_id: 'sim-tx-1', chain: 'base', block: 7 } });
    expect(calls.deposits).toHaveLength(1);
  });
});
