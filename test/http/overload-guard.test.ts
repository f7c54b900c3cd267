// The guard alone: the token buckets of the rate limit (refill, Retry-After, bounded memory), the quote slots, and
// the configuration knobs of both.
import { describe, expect, it } from 'vitest';
import { createBuckets, createEdgeGuard, TURN_BUDGET_FLOOR } from '../../http/overload.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { createMetrics, meteredGuard } from '../../src/metrics/index.js';
import { parseExposition, total } from '../support/prometheus.js';

describe('Per-client rate limit: token buckets by remote address', () => {
  it('a new client may send the burst at once; the next request waits for one token (Retry-After in whole seconds)', () => {
    let t = 0;
    const b = createBuckets({ perMinute: 120, burst: 3, maxClients: 10 }, () => t);
    expect([b.take('a'), b.take('a'), b.take('a')]).toEqual([0, 0, 0]);
    // 120 a minute = one token every 500 ms: a wait below a second is still said as 1 s.
    expect(b.take('a')).toBe(1);
    t += 500;
    expect(b.take('a')).toBe(0);
    expect(b.take('a')).toBe(1);
  });

  it('clients are separate: one client at its limit leaves another untouched', () => {
    const b = createBuckets({ perMinute: 60, burst: 1, maxClients: 10 }, () => 0);
    expect(b.take('a')).toBe(0);
    expect(b.take('a')).toBe(1);
    expect(b.take('b')).toBe(0);
  });

  it('a slow rate says how long: 6 a minute after an empty bucket is a 10 s Retry-After', () => {
    const b = createBuckets({ perMinute: 6, burst: 1, maxClients: 10 }, () => 0);
    expect(b.take('a')).toBe(0);
    expect(b.take('a')).toBe(10);
  });

  it('bounded memory: never more than maxClients buckets, however many addresses send', () => {
    let t = 0;
    const b = createBuckets({ perMinute: 60, burst: 5, maxClients: 100 }, () => t);
    for (let i = 0; i < 10_000; i++) {
      b.take(`10.0.${i >> 8}.${i & 255}`);
      t += 1;
      expect(b.size()).toBeLessThanOrEqual(100);
    }
  });

  it('idle buckets are evicted: once refilled to full they are dropped as later requests arrive', () => {
    let t = 0;
    const b = createBuckets({ perMinute: 60, burst: 2, maxClients: 1000 }, () => t);
    for (let i = 0; i < 50; i++) b.take(`c${i}`);
    expect(b.size()).toBe(50);
    // Two tokens at one a second: after 2 s every bucket is full, the same as no bucket.
    t += 2_000;
    for (let i = 0; i < 30; i++) b.take('busy');
    expect(b.size()).toBe(1);
  });
});

describe('Load shedding: the quote slots', () => {
  it('takes a slot per quote in flight, refuses one more with 503 and Retry-After, and gives slots back even on failure', async () => {
    const guard = createEdgeGuard({ maxQuotesInFlight: 2, shedRetryAfterSeconds: 3, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: null });
    const releases: Array<() => void> = [];
    const hold = () =>
      guard.quoteSlot(() => new Promise<void>((r) => releases.push(r)));
    const a = hold();
    const b = hold();
    expect(guard.inFlight()).toBe(2);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '3' } });
    releases.forEach((r) => r());
    await Promise.all([a, b]);
    expect(guard.inFlight()).toBe(0);
    await expect(guard.quoteSlot(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(guard.inFlight()).toBe(0);
  });

  it('tells its hook why it refused: cap, then the rate limit; an admitted quote tells nothing', async () => {
    const reasons: string[] = [];
    const guard = createEdgeGuard(
      { maxQuotesInFlight: 1, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: { perMinute: 60, burst: 1, maxClients: 10 } },
      { refused: (reason) => reasons.push(reason) },
    );
    let release = () => {};
    const held = guard.quoteSlot(() => new Promise<void>((r) => (release = r)));
    expect(reasons).toEqual([]);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503 });
    const client = { ip: '10.0.0.1', path: '/quote' } as never;
    await guard.rateLimit(client, async () => undefined);
    await expect(guard.rateLimit(client, async () => undefined)).rejects.toMatchObject({ status: 429 });
    expect(reasons).toEqual(['cap', 'rate_limited']);
    release();
    await held;
  });

  it('meteredGuard: the metrics count each refusal by reason and read the quotes in flight at each scrape', async () => {
    const metrics = createMetrics({ role: 'edge', defaultMetrics: false });
    const guard = meteredGuard(metrics, (hooks) =>
      createEdgeGuard(
        { maxQuotesInFlight: 1, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: { perMinute: 60, burst: 1, maxClients: 10 } },
        hooks,
      ),
    );
    const scrape = async () => parseExposition((await metrics.scrape()).body);
    let release = () => {};
    const held = guard.quoteSlot(() => new Promise<void>((r) => (release = r)));
    expect(total(await scrape(), 'router_quotes_in_flight')).toBe(1);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503 });
    const client = { ip: '10.0.0.1', path: '/quote' } as never;
    await guard.rateLimit(client, async () => undefined);
    await expect(guard.rateLimit(client, async () => undefined)).rejects.toMatchObject({ status: 429 });
    release();
    await held;
    const after = await scrape();
    expect(total(after, 'router_requests_refused_total', { reason: 'cap' })).toBe(1);
    expect(total(after, 'router_requests_refused_total', { reason: 'rate_limited' })).toBe(1);
    expect(total(after, 'router_requests_refused_total')).toBe(2);
    expect(total(after, 'router_quotes_in_flight')).toBe(0);
  });

  it('per-turn admission refuses with reason turn once the turn has admitted its share', async () => {
    const reasons: string[] = [];
    const guard = createEdgeGuard(
      { maxQuotesInFlight: 0, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 2, maxTurnMs: 0, rateLimit: null },
      { refused: (reason) => reasons.push(reason) },
    );
    const never = new Promise<void>(() => undefined);
    void guard.quoteSlot(() => never);
    void guard.quoteSlot(() => never);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503 });
    expect(reasons).toEqual(['turn']);
    await new Promise((r) => setImmediate(r));
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
  });

  it('a cap of 0 is no cap', async () => {
    const guard = createEdgeGuard({ maxQuotesInFlight: 0, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: null });
    const never = new Promise<void>(() => undefined);
    for (let i = 0; i < 100; i++) void guard.quoteSlot(() => never);
    expect(guard.inFlight()).toBe(100);
  });
});

describe('Config: the overload and retention knobs', () => {
  it('defaults: a cap of 64 quotes in flight, a 25 ms turn budget, Retry-After 1 s, no rate limit, quotes kept 1 h after expiry, swept every minute', () => {
    const c = loadConfig({});
    expect(c.overload).toEqual({ maxQuotesInFlight: 64, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 40, maxAdmissionsPerTurn: 0, maxTurnMs: 25, rateLimit: null });
    expect(c.retention).toEqual({ quoteRetentionMs: 3_600_000, sweepMs: 60_000 });
  });

  it('a rate sets the limit on, with its burst and client bound; 0 is off', () => {
    expect(loadConfig({ ROUTER_RATE_LIMIT_PER_MINUTE: '120' }).overload.rateLimit).toEqual({ perMinute: 120, burst: 20, maxClients: 100_000 });
    expect(loadConfig({ ROUTER_RATE_LIMIT_PER_MINUTE: '120', ROUTER_RATE_LIMIT_BURST: '5', ROUTER_RATE_LIMIT_CLIENTS: '10' }).overload.rateLimit)
      .toEqual({ perMinute: 120, burst: 5, maxClients: 10 });
    expect(loadConfig({ ROUTER_RATE_LIMIT_PER_MINUTE: '0' }).overload.rateLimit).toBeNull();
  });

  for (const [name, value] of [
    ['ROUTER_MAX_QUOTES_IN_FLIGHT', '-1'],
    ['ROUTER_SHED_RETRY_AFTER_S', '0'],
    ['ROUTER_RATE_LIMIT_PER_MINUTE', 'lots'],
    ['ROUTER_RATE_LIMIT_BURST', '0'],
    ['ROUTER_QUOTE_RETENTION_MS', '1h'],
    ['ROUTER_QUOTE_SWEEP_MS', '10'],
  ] as const) {
    it(`${name}=${JSON.stringify(value)} stops the start naming the variable`, () => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
    });
  }
});

describe('Load shedding on event loop lag: quotes are shed while the loop is kept late, whatever the cap', () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // the CPU-bound work of many quotes at once
    }
  };

  it('a loop kept busy (every tick 60 ms late) sheds quotes with 503; once it keeps time again quotes pass', async () => {
    const guard = createEdgeGuard({ maxQuotesInFlight: 1000, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 40, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: null });
    await new Promise((r) => setTimeout(r, 150));
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
    // Busy work between the meter's ticks, tick after tick, as a saturated loop does.
    for (let k = 0; k < 8; k++) {
      busy(60);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(guard.eventLoopDelayMs()).toBeGreaterThan(40);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(guard.eventLoopDelayMs()).toBeLessThanOrEqual(40);
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
  });

  it('one long pause (a GC, a compile) sheds nothing', async () => {
    const guard = createEdgeGuard({ maxQuotesInFlight: 1000, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 40, maxAdmissionsPerTurn: 0, maxTurnMs: 0, rateLimit: null });
    await new Promise((r) => setTimeout(r, 150));
    busy(200);
    await new Promise((r) => setTimeout(r, 30));
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
  });
});

describe('Load shedding of a burst: at most maxAdmissionsPerTurn quotes are admitted in one turn of the event loop', () => {
  it('the ninth quote of one turn is shed with 503; in the next turn quotes are admitted again', async () => {
    const guard = createEdgeGuard({ maxQuotesInFlight: 1000, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 8, maxTurnMs: 0, rateLimit: null });
    const never = new Promise<void>(() => undefined);
    for (let i = 0; i < 8; i++) void guard.quoteSlot(() => never);
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    await new Promise((r) => setImmediate(r));
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
    expect(guard.inFlight()).toBe(8);
  });
});

describe('Load shedding of a burst by time: a turn of the event loop admits quotes for at most maxTurnMs', () => {
  it('quotes are admitted while the turn is young; once it has run past the budget the next is shed; the next turn admits again', async () => {
    let t = 1000;
    const reasons: string[] = [];
    const guard = createEdgeGuard(
      { maxQuotesInFlight: 1000, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 25, rateLimit: null, now: () => t },
      { refused: (reason) => reasons.push(reason) },
    );
    const never = new Promise<void>(() => undefined);
    // Each admitted quote's CPU work advances the turn's clock by 10 ms: the floor's quotes are admitted however long
    // they take, and the next one finds the turn past its 25 ms.
    for (let i = 0; i < TURN_BUDGET_FLOOR; i++) {
      void guard.quoteSlot(() => never);
      t += 10;
    }
    await expect(guard.quoteSlot(async () => undefined)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    expect(reasons).toEqual(['turn']);
    await new Promise((r) => setImmediate(r));
    await expect(guard.quoteSlot(async () => undefined)).resolves.toBeUndefined();
    expect(guard.inFlight()).toBe(TURN_BUDGET_FLOOR);
  });

  it('a few quotes in one long turn (a GC pause among them) are all admitted: the budget applies past the floor only', async () => {
    let t = 0;
    const guard = createEdgeGuard({ maxQuotesInFlight: 1000, shedRetryAfterSeconds: 1, maxEventLoopDelayMs: 0, maxAdmissionsPerTurn: 0, maxTurnMs: 25, rateLimit: null, now: () => t });
    const never = new Promise<void>(() => undefined);
    void guard.quoteSlot(() => never);
    t += 200; // a pause far past the budget
    for (let i = 1; i < 10; i++) await expect(Promise.race([guard.quoteSlot(() => never), Promise.resolve('admitted')])).resolves.toBe('admitted');
    expect(guard.inFlight()).toBe(10);
  });
});
