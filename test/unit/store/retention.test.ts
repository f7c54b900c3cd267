// The retention sweep over a real SQLite store: never-bound quotes leave once expired and the retention passed, in
// batches; bound quotes and anything younger stay; a worker sweeps only its own shards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQuoteJanitor, SWEEP_BATCH } from '../../../actors/janitor.js';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/log.js';
import { QUOTE_VALIDITY_MS } from '../../../src/quotes/types.js';
import { openSqliteStore } from '../../../src/store/index.js';
import type { ActorStore } from '../../../src/store/types.js';

const RETENTION = 60_000;
let dir: string;
let store: ActorStore;
let clock: ManualClock;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'router-retention-'));
  store = openSqliteStore(join(dir, 'router.sqlite'));
  clock = new ManualClock();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (id: string, status: string, updatedAt: number, shard = 0) =>
  store.save({ kind: 'quote', id, snapshot: { id }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt, status, shard });

const janitor = (shards?: () => readonly number[]) =>
  createQuoteJanitor({ store, clock, logger: createLogger('silent'), retentionMs: RETENTION, idleMs: 120_000, everyMs: 60_000, shards });

describe('Quote retention sweep', () => {
  it('deletes quoted, expired, refused and abandoned pricing quotes past expiry + retention; keeps bound and younger ones', async () => {
    const now = clock.now();
    const old = now - QUOTE_VALIDITY_MS - RETENTION - 1;
    for (const s of ['pricing', 'quoted', 'expired', 'refused', 'bound']) await quote(`old-${s}`, s, old);
    await quote('young', 'quoted', now - QUOTE_VALIDITY_MS - RETENTION + 1000);
    expect(await janitor().sweep()).toBe(4);
    expect((await store.list({ kind: 'quote', limit: 10 })).map((a) => a.id).sort()).toEqual(['old-bound', 'young']);
  });

  it('sweeps more than one batch in one run', async () => {
    const old = clock.now() - QUOTE_VALIDITY_MS - RETENTION - 1;
    for (let i = 0; i < SWEEP_BATCH + 7; i++) await quote(`q${i}`, 'quoted', old);
    expect(await janitor().sweep()).toBe(SWEEP_BATCH + 7);
  });

  it('a worker sweeps only the shards it owns, and nothing when it owns none', async () => {
    const old = clock.now() - QUOTE_VALIDITY_MS - RETENTION - 1;
    await quote('a', 'quoted', old, 1);
    await quote('b', 'quoted', old, 2);
    expect(await janitor(() => []).sweep()).toBe(0);
    expect(await janitor(() => [2]).sweep()).toBe(1);
    expect(await store.load('quote', 'a')).not.toBeNull();
    expect(await store.load('quote', 'b')).toBeNull();
  });

  it('never deletes a quote that may still be in memory: the passivation time bounds the cut-off from below', async () => {
    const j = createQuoteJanitor({ store, clock, logger: createLogger('silent'), retentionMs: 0, idleMs: 3_600_000_000, everyMs: 60_000 });
    await quote('q', 'quoted', clock.now() - QUOTE_VALIDITY_MS - 1000);
    expect(await j.sweep()).toBe(0);
  });
});
