// The NATS bus against the bus contract on a real nats-server, plus what only NATS shows: requests go to the
// subject of the actor's shard, and "no responders" while a shard has no owner is retried before Unavailable.
import { Writable } from 'node:stream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsBus, shardOf, shardSubject } from '../../src/bus/index.js';
import { decodeJson, encodeJson } from '../../src/store/codec.js';
import { Unavailable } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { startTestNats, type TestNats } from '../support/cluster.js';
import { orderViewOf, quoteOf } from '../support/fixtures.js';
import { busContract } from '../unit/bus/bus-contract.js';

let nats: TestNats;
beforeAll(async () => {
  nats = await startTestNats('natsbus');
});
afterAll(() => nats?.stop());

const opts = { shards: 16, timeoutMs: 5_000, retryMs: 300, logger: createLogger('silent') };
const conn = (who: 'worker' | 'router' = 'worker') => nats.connectAs(who);

busContract('NATS', async () => {
  const nc = await conn();
  return { bus: createNatsBus(nc, opts), close: () => nc.close() };
});

describe('NATS bus: subjects router.shard.<n>; a shard without an owner is retried, then Unavailable', () => {
  let worker: NatsConnection;
  let edge: NatsConnection;
  beforeAll(async () => {
    worker = await conn('worker');
    edge = await conn('router');
  });
  afterAll(async () => {
    await worker.close();
    await edge.close();
  });

  it('only the owner of the actor\'s shard receives the request', async () => {
    const w = createNatsBus(worker, opts);
    const e = createNatsBus(edge, opts);
    const shard = shardOf('actor-42', 16);
    const stopOther = await w.serveShard((shard + 1) % 16, async () => ({ ok: true, value: quoteOf({ id: 'wrong shard' }) }));
    const stop = await w.serveShard(shard, async () => ({ ok: true, value: quoteOf({ id: `shard ${shard}` }) }));
    expect((await e.request({ kind: 'quote', id: 'actor-42' }, { type: 'quote.get' })).id).toBe(`shard ${shard}`);
    await stop();
    await stopOther();
  });

  it('a request made while the shard is moving waits for the new owner (within the retry window)', async () => {
    const w = createNatsBus(worker, opts);
    const e = createNatsBus(edge, { ...opts, retryMs: 3_000 });
    const shard = shardOf('moving', 16);
    const pending = e.request({ kind: 'order', id: 'moving' }, { type: 'order.get' });
    await new Promise((r) => setTimeout(r, 300));
    const stop = await w.serveShard(shard, async () => ({ ok: true, value: orderViewOf({ stage: 'arrived' }) }));
    expect((await pending).stage).toBe('arrived');
    await stop();
  });

  it('concurrent requests each get their own reply, and a reply that comes after its request timed out is dropped', async () => {
    const w = createNatsBus(worker, opts);
    const e = createNatsBus(edge, opts);
    const stops = await Promise.all(Array.from({ length: 16 }, (_, s) =>
      w.serveShard(s, async (env) => {
        if (env.ref.id === 'late') await new Promise((r) => setTimeout(r, 300));
        return { ok: true, value: orderViewOf({ id: `answer of ${env.ref.id}` }) };
      })));
    await expect(e.request({ kind: 'order', id: 'late' }, { type: 'order.get' }, { timeoutMs: 100 })).rejects.toBeInstanceOf(Unavailable);
    const ids = Array.from({ length: 50 }, (_, i) => `actor-${i}`);
    const answers = await Promise.all(ids.map((id) => e.request({ kind: 'order', id }, { type: 'order.get' })));
    expect(answers.map((order) => order.id)).toEqual(ids.map((id) => `answer of ${id}`));
    // The late answer arrives meanwhile and answers nobody.
    await new Promise((r) => setTimeout(r, 300));
    expect((await e.request({ kind: 'order', id: 'after' }, { type: 'order.get' })).id).toBe('answer of after');
    await Promise.all(stops.map((stop) => stop()));
  });

  it('a request waiting when the connection closes is Unavailable at once, not at its timeout', async () => {
    const w = createNatsBus(worker, opts);
    const own = await conn('router');
    const e = createNatsBus(own, { ...opts, timeoutMs: 20_000 });
    const shard = shardOf('stuck', 16);
    const stop = await w.serveShard(shard, () => new Promise(() => undefined));
    const t = Date.now();
    const pending = e.request({ kind: 'order', id: 'stuck' }, { type: 'order.get' });
    await new Promise((r) => setTimeout(r, 100));
    await own.close();
    await expect(pending).rejects.toBeInstanceOf(Unavailable);
    await expect(e.request({ kind: 'order', id: 'stuck' }, { type: 'order.get' })).rejects.toBeInstanceOf(Unavailable);
    expect(Date.now() - t).toBeLessThan(2_000);
    await stop();
  });

  it('a user that may not publish to the shard subjects is refused at once, not at the timeout, and not as Unavailable', async () => {
    const admin = await nats.connectAs('admin');
    const e = createNatsBus(admin, { ...opts, timeoutMs: 20_000 });
    const t = Date.now();
    const refused = await e.request({ kind: 'order', id: 'denied' }, { type: 'order.get' }).catch((err: unknown) => err);
    expect(Date.now() - t).toBeLessThan(2_000);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(Unavailable);
    expect((refused as Error).message).toMatch(/may not publish to router\.shard\./);
    await admin.close();
  });

  it('a message off the wire that is not an envelope, or whose command lacks its fields, is answered malformed_message naming the field, logged at warn, and no actor sees it', async () => {
    const lines: Array<{ level: number; msg: string; err: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const w = createNatsBus(worker, { ...opts, logger: createLogger('warn', sink) });
    const shard = shardOf('raw', 16);
    const seen: unknown[] = [];
    const stop = await w.serveShard(shard, async (env) => {
      seen.push(env);
      return { ok: true, value: orderViewOf() };
    });
    // The raw requests below do not retry "no responders" as the bus does: the subscription must reach the server first.
    await worker.flush();
    const ask = async (body: unknown) => decodeJson(new TextDecoder().decode((await edge.request(shardSubject(shard), encodeJson(body), { timeout: 2_000 })).data));
    const refused = { ok: false, error: { code: 'malformed_message', retriable: false } };
    expect(await ask({ hello: 'world' })).toMatchObject(refused);
    expect(await ask({ ref: { kind: 'wallet', id: 'raw' }, message: { type: 'order.get' } })).toMatchObject(refused);
    const deposit = await ask({ ref: { kind: 'order', id: 'raw' }, message: { type: 'deposit', txId: 't', from: '0xa', amount: 5, confirmations: 1, required: 1 } });
    expect(deposit).toMatchObject({ ...refused, error: { ...refused.error, message: 'The command "deposit" to order raw does not have the fields of this version\'s protocol: it fails at `amount`.' } });
    expect(seen).toEqual([]);
    // Each refusal is logged at warn (40) with its reason.
    expect(lines.map((l) => [l.level, l.msg])).toEqual(Array.from({ length: 3 }, () => [40, 'malformed bus message refused']));
    expect(lines[2]!.err).toContain('it fails at `amount`');
    expect(await ask({ ref: { kind: 'order', id: 'raw' }, message: { type: 'order.get' } })).toMatchObject({ ok: true });
    expect(seen).toHaveLength(1);
    await stop();
  });

  it('past the retry window the edge gets Unavailable (503)', async () => {
    const e = createNatsBus(edge, { ...opts, retryMs: 200 });
    const t = Date.now();
    await expect(e.request({ kind: 'order', id: 'orphan' }, { type: 'order.get' })).rejects.toBeInstanceOf(Unavailable);
    expect(Date.now() - t).toBeLessThan(2_000);
  });
});
