// `router admin` prints answers of the admin subject readably: aligned tables, times as ISO, bigints as decimals;
// and a command line becomes one request, or a usage error, before any connection is made.
import { describe, expect, it } from 'vitest';
import { planCall } from '../../../src/cli/admin-args.js';
import { renderActor, renderActors, renderCounts, renderServices, renderShards, table, type ServiceInstance } from '../../../src/cli/admin-render.js';
import type { AdminActorAnswer } from '../../../src/protocol/admin.js';
import { roundTrip } from '../../../src/store/codec.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);

describe('tables are aligned and carry no trailing blanks', () => {
  it('pads every column but the last to its widest cell', () => {
    expect(table(['A', 'LONG HEADER', 'C'], [['xyz', 'b', ''], ['1', '2', '3']])).toBe(
      ['A    LONG HEADER  C', 'xyz  b', '1    2            3'].join('\n'),
    );
  });
  it('prints rows only when there is no header', () => {
    expect(table(null, [['status', 'x'], ['version', '2']])).toBe('status   x\nversion  2');
  });
});

describe('admin actor: state, context and transitions with times', () => {
  // Through the codec, as the answer arrives over NATS.
  const answer: AdminActorAnswer = roundTrip({
    kind: 'order',
    id: 'ord-1',
    status: 'executing',
    state: { value: { executing: 'step' }, status: 'active' },
    context: { amountIn: 2500000000n, to: '0xabc' },
    version: 2,
    epoch: 11,
    shard: 2,
    wakeAt: null,
    updatedAt: T0 + 60_000,
    history: [{ status: 'awaiting_deposit', at: T0 }, { status: 'executing', at: T0 + 60_000 }],
  });

  it('prints fields, the history with ISO times and the context with bigints as decimals', () => {
    expect(renderActor(answer)).toBe(
      [
        'order ord-1',
        'status   executing',
        'state    {"executing":"step"} (active)',
        'version  2',
        'epoch    11',
        'shard    2',
        'wake at  -',
        'updated  2025-01-02T03:05:05.000Z',
        '',
        'history',
        'AT                        STATUS',
        '2025-01-02T03:04:05.000Z  awaiting_deposit',
        '2025-01-02T03:05:05.000Z  executing',
        '',
        'context',
        '{\n  "amountIn": "2500000000",\n  "to": "0xabc"\n}',
      ].join('\n'),
    );
  });

  it('says so when there is no history, no status and no XState snapshot', () => {
    const text = renderActor({ ...answer, status: null, state: null, history: [], wakeAt: T0 });
    expect(text).toContain('status   -\nstate    -\n');
    expect(text).toContain('wake at  2025-01-02T03:04:05.000Z');
    expect(text).toContain('history\n(none)\n');
  });

  it('prints a plain state value as it is', () => {
    expect(renderActor({ ...answer, state: { value: 'delivered', status: 'done' } })).toContain('state    delivered (done)');
  });
});

describe('admin actors: a page of summaries and the cursor of the next', () => {
  const row = { kind: 'order' as const, version: 1, epoch: 10, shard: 0, wakeAt: null, updatedAt: T0 };
  it('prints a table and the --after of the next page', () => {
    const text = renderActors({
      kind: 'order', status: ['awaiting_deposit', 'funded'], limit: 2, next: 'ord-2',
      actors: [{ ...row, id: 'ord-1', status: 'awaiting_deposit' }, { ...row, id: 'ord-2', status: null, wakeAt: T0 }],
    });
    expect(text).toBe(
      [
        'order actors with status awaiting_deposit | funded: 2 shown',
        'ID     STATUS            VERSION  EPOCH  SHARD  WAKE AT                   UPDATED',
        'ord-1  awaiting_deposit  1        10     0      -                         2025-01-02T03:04:05.000Z',
        'ord-2  -                 1        10     0      2025-01-02T03:04:05.000Z  2025-01-02T03:04:05.000Z',
        'more: --after ord-2',
      ].join('\n'),
    );
  });
  it('says when the list is empty and ended', () => {
    expect(renderActors({ kind: 'quote', status: null, limit: 50, next: null, actors: [] })).toBe('quote actors: 0 shown\nend of list');
  });
});

describe('admin shards: owners and epochs of every shard, live workers', () => {
  it('prints the summary, the workers with their shard counts and every shard', () => {
    const text = renderShards({
      total: 2,
      unowned: 1,
      shards: [{ shard: 0, owner: 'w-a', epoch: 10, renewedAt: T0 }, { shard: 1, owner: null, epoch: null, renewedAt: null }],
      workers: [{ id: 'w-a', seenAt: T0, pid: 101, host: 'host-a', shards: 1 }],
    });
    expect(text).toBe(
      [
        '2 shards, 1 owned, 1 unowned; 1 live worker',
        '',
        'WORKER  SHARDS  PID  HOST    SEEN',
        'w-a     1       101  host-a  2025-01-02T03:04:05.000Z',
        '',
        'SHARD  OWNER  EPOCH  RENEWED',
        '0      w-a    10     2025-01-02T03:04:05.000Z',
        '1      -      -      -',
      ].join('\n'),
    );
  });
  it('says when no worker is alive', () => {
    expect(renderShards({ total: 1, unowned: 1, shards: [{ shard: 0, owner: null, epoch: null, renewedAt: null }], workers: [] }))
      .toContain('1 shard, 0 owned, 1 unowned; 0 live workers\n\n(no live workers)\n');
  });
});

describe('admin counts: actors per kind and status, memory, workers', () => {
  it('prints the table, totals, the answering worker\'s actors in memory and the live workers', () => {
    expect(renderCounts({
      actors: [{ kind: 'order', status: 'awaiting_deposit', count: 3 }, { kind: 'quote', status: null, count: 12 }],
      totals: { quote: 12, order: 3 },
      worker: { id: 'w-a', active: 7 },
      workers: 2,
    })).toBe(
      [
        'KIND   STATUS            COUNT',
        'order  awaiting_deposit  3',
        'quote  -                 12',
        '',
        'total: quote 12, order 3',
        'in memory of worker w-a: 7',
        'live workers: 2',
      ].join('\n'),
    );
  });
  it('prints unknown when the worker cannot tell its actors in memory, and an empty store', () => {
    const text = renderCounts({ actors: [], totals: { quote: 0, order: 0 }, worker: { id: 'w-b', active: null }, workers: 1 });
    expect(text).toContain('(no actors stored)');
    expect(text).toContain('in memory of worker w-b: unknown');
  });
});

describe('admin services: instances found by standard discovery', () => {
  const instance = (id: string, worker: string, requests: number): ServiceInstance => ({
    info: {
      type: 'io.nats.micro.v1.info_response' as never,
      name: 'router-admin', id, version: '0.2.47', description: 'Operator view', metadata: { worker },
      endpoints: [{ name: 'actor', subject: 'router.admin.actor', queue_group: 'router-admin' }],
    },
    stats: {
      type: 'io.nats.micro.v1.stats_response' as never,
      name: 'router-admin', id, version: '0.2.47', started: '2025-01-02T03:04:05.000Z',
      endpoints: [
        { name: 'actor', subject: 'router.admin.actor', num_requests: requests, num_errors: 1, processing_time: 0, average_processing_time: 0 },
        { name: 'counts', subject: 'router.admin.counts', num_requests: 1, num_errors: 0, processing_time: 0, average_processing_time: 0 },
      ],
    },
  });
  it('prints one row per instance with its worker and request counts, then the endpoints', () => {
    expect(renderServices([instance('AAA', 'w-a', 4), instance('BBB', 'w-b', 0)])).toBe(
      [
        'router-admin: 2 instances — Operator view',
        'ID   VERSION  WORKER  STARTED                   REQUESTS  ERRORS',
        'AAA  0.2.47   w-a     2025-01-02T03:04:05.000Z  5         1',
        'BBB  0.2.47   w-b     2025-01-02T03:04:05.000Z  1         1',
        '',
        'ENDPOINT  SUBJECT             QUEUE',
        'actor     router.admin.actor  router-admin',
      ].join('\n'),
    );
  });
  it('says when no instance answered', () => {
    expect(renderServices([])).toBe('no router-admin instance answered');
  });
});

describe('a command line becomes one request of the admin subject', () => {
  it.each([
    [['actor', ['order', 'ord-1'], {}], 'router.admin.actor', { kind: 'order', id: 'ord-1' }],
    [['actors', ['order'], {}], 'router.admin.actors', { kind: 'order' }],
    [['actors', ['order'], { status: ['a', 'b'], limit: '500', after: 'x' }], 'router.admin.actors', { kind: 'order', status: ['a', 'b'], limit: 500, after: 'x' }],
    [['shards', [], {}], 'router.admin.shards', {}],
    [['counts', [], {}], 'router.admin.counts', {}],
  ] as const)('%j → %s', (args, subject, body) => {
    const call = planCall(args[0], [...args[1]], args[2] as never);
    expect(call.subject).toBe(subject);
    expect(call.body).toEqual(body);
  });

  it.each([
    [['actor', ['order'], {}], 'admin actor takes <kind> <id>.'],
    [['actors', [], {}], 'admin actors takes <kind>.'],
    [['shards', ['x'], {}], 'admin shards takes no arguments.'],
    [['counts', [], { limit: '5' }], '--status, --limit and --after belong to `admin actors`.'],
    [['actors', ['order'], { limit: '0' }], '--limit must be an integer from 1 to 500.'],
    [['actors', ['order'], { limit: '501' }], '--limit must be an integer from 1 to 500.'],
    [['actors', ['order'], { limit: '5e1' }], '--limit must be an integer from 1 to 500.'],
    [['nope', [], {}], 'unknown admin command "nope".'],
    [['', [], {}], 'missing admin command.'],
  ] as const)('%j is a usage error', (args, message) => {
    expect(() => planCall(args[0], [...args[1]], args[2] as never)).toThrow(message);
  });
});
