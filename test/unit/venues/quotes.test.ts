// Quotes of the simulated venues: seeded latency, failures and timeouts, the abort signal, and the latency scale.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VenueFailed } from '../../../src/errors.js';
import { VENUE_IDS, VENUE_SPECS, createSimMarket, type SimMarket, type VenueId } from '../../../src/venues/index.js';
import { assetById, never } from './helpers.js';

function firstRoute(m: SimMarket, id: VenueId) {
  const [a, b] = m.venue(id).routes()[0]!;
  return { from: assetById(a), to: assetById(b) };
}

/** A modest amount of `from` worth about 1000 USD, so every venue can fill it. */
function thousandUsd(m: SimMarket, id: VenueId) {
  const r = firstRoute(m, id);
  return { ...r, amountIn: (1_000n * 10n ** 8n * 10n ** BigInt(r.from.decimals)) / m.usdPrice(r.from) };
}

/** Every quote's outcome, in call order per venue: an amount, a failure text, or 'timeout' (aborted at 30 ms). */
async function outcomes(seed: number, rounds: number): Promise<string[]> {
  const m = createSimMarket({ seed, latencyScale: 0, failures: true });
  // Catalog faults are rare; raise them on two venues so the sequence surely holds failures and timeouts.
  m.setBehaviour('mayan', { failureRate: 0.3, timeoutRate: 0.2 });
  m.setBehaviour('transit', { failureRate: 0.3, timeoutRate: 0.2 });
  const perVenue = await Promise.all(
    VENUE_IDS.map(async (id) => {
      const got: string[] = [];
      const { from, to, amountIn } = thousandUsd(m, id);
      for (let i = 0; i < rounds; i++) {
        const ac = new AbortController();
        const t = setTimeout(() => ac.abort(new Error('cut off')), 30);
        try {
          const q = await m.venue(id).quote({ from, to, amountIn, signal: ac.signal });
          got.push(`${id}:${q.amountOut}`);
        } catch (err) {
          got.push(`${id}:${(err as Error).message === 'cut off' ? 'timeout' : (err as Error).message}`);
        } finally {
          clearTimeout(t);
        }
      }
      return got;
    }),
  );
  return perVenue.flat();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('quotes are deterministic for a seed and a call order', () => {
  it('repeats every amount, failure and timeout with the same seed, and differs with another', async () => {
    const a = await outcomes(42, 12);
    expect(a.some((o) => o.endsWith(':timeout'))).toBe(true);
    expect(a.some((o) => /^mayan: |^transit: /.test(o.slice(o.indexOf(':') + 1)))).toBe(true);
    const b = await outcomes(42, 12);
    const c = await outcomes(43, 12);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('repeats the latencies with the same seed (fake clock)', async () => {
    vi.useFakeTimers();
    const latencies = async (seed: number) => {
      const m = createSimMarket({ seed, latencyScale: 1, failures: false });
      const out: number[] = [];
      for (const id of ['mayan', 'relay', 'lifi_standard'] as const) {
        const { from, to, amountIn } = thousandUsd(m, id);
        for (let i = 0; i < 5; i++) {
          const start = Date.now();
          const p = m.venue(id).quote({ from, to, amountIn, signal: never() });
          await vi.runAllTimersAsync();
          await p;
          out.push(Date.now() - start);
        }
      }
      return out;
    };
    const a = await latencies(5);
    expect(await latencies(5)).toEqual(a);
    expect(await latencies(6)).not.toEqual(a);
    expect(a.every((ms) => ms > 0)).toBe(true);
  });
});

describe('latency follows each venue: slow venues often miss the 1.5 s fast cut-off, nearly all answer within 10 s', () => {
  it('samples log-normal latencies around each venue median (fake clock)', async () => {
    vi.useFakeTimers();
    const m = createSimMarket({ seed: 3, latencyScale: 1, failures: false });
    const n = 60;
    const share = async (id: VenueId, limitMs: number) => {
      const { from, to, amountIn } = thousandUsd(m, id);
      let over = 0;
      for (let i = 0; i < n; i++) {
        const start = Date.now();
        const p = m.venue(id).quote({ from, to, amountIn, signal: never() });
        await vi.runAllTimersAsync();
        await p;
        if (Date.now() - start > limitMs) over++;
      }
      return over / n;
    };
    expect(await share('lifi_standard', 1500)).toBeGreaterThan(0.6);
    expect(await share('near_intents', 1500)).toBeGreaterThan(0.6);
    expect(await share('relay', 1500)).toBe(0);
    expect(await share('hyperliquid_spot', 1500)).toBe(0);
    expect(await share('lifi_standard', 10_000)).toBeLessThan(0.05);
  });

  it('keeps every catalog median under the optimal limit and the slow ones above the fast cut-off', () => {
    for (const id of VENUE_IDS) expect(VENUE_SPECS[id].latency.medianMs).toBeLessThan(3_000);
    const slow = VENUE_IDS.filter((id) => VENUE_SPECS[id].latency.medianMs > 1_500);
    expect(slow.length).toBeGreaterThanOrEqual(3);
  });
});

describe('a quote honours its abort signal', () => {
  it('rejects promptly with the signal reason when aborted during the latency', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 1, failures: false });
    const { from, to, amountIn } = thousandUsd(m, 'lifi_standard');
    m.setBehaviour('lifi_standard', { medianLatencyMs: 5_000, sigma: 0 });
    const ac = new AbortController();
    const reason = new Error('deadline passed');
    const started = performance.now();
    const p = m.venue('lifi_standard').quote({ from, to, amountIn, signal: ac.signal });
    setTimeout(() => ac.abort(reason), 20);
    await expect(p).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 1, failures: false });
    const { from, to, amountIn } = thousandUsd(m, 'across');
    const ac = new AbortController();
    ac.abort(new Error('too late'));
    await expect(m.venue('across').quote({ from, to, amountIn, signal: ac.signal })).rejects.toThrow('too late');
  });

  it('a timeout never answers by itself, leaves no timer, and rejects when the signal aborts', async () => {
    vi.useFakeTimers();
    const m = createSimMarket({ seed: 1, latencyScale: 1, failures: false });
    m.setBehaviour('chainflip', { timeoutRate: 1 });
    const { from, to, amountIn } = thousandUsd(m, 'chainflip');
    const ac = new AbortController();
    let settled = false;
    const p = m.venue('chainflip').quote({ from, to, amountIn, signal: ac.signal });
    p.catch(() => {}).finally(() => (settled = true));
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBe(false);
    ac.abort(new Error('cut off'));
    await expect(p).rejects.toThrow('cut off');
  });

  it('clears the latency timer when aborted', async () => {
    vi.useFakeTimers();
    const m = createSimMarket({ seed: 1, latencyScale: 1, failures: false });
    const { from, to, amountIn } = thousandUsd(m, 'mayan');
    const ac = new AbortController();
    const p = m.venue('mayan').quote({ from, to, amountIn, signal: ac.signal });
    expect(vi.getTimerCount()).toBe(1);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('latencyScale 0 answers at once, still asynchronously', () => {
  it('quotes all 21 venues in a few milliseconds', async () => {
    const m = createSimMarket({ seed: 9, latencyScale: 0, failures: false });
    const started = performance.now();
    let syncSettled = false;
    const all = Promise.all(VENUE_IDS.map((id) => m.venue(id).quote({ ...thousandUsd(m, id), signal: never() })));
    void all.then(() => (syncSettled = true));
    expect(syncSettled).toBe(false);
    const quotes = await all;
    expect(performance.now() - started).toBeLessThan(200);
    expect(quotes.map((q) => q.venue)).toEqual([...VENUE_IDS]);
    for (const q of quotes) expect(q.amountOut).toBeGreaterThan(0n);
  });
});

describe('failures: false never fails nor times out', () => {
  it('answers every quote of every venue over many rounds', async () => {
    const m = createSimMarket({ seed: 123, latencyScale: 0, failures: false });
    for (const id of VENUE_IDS) {
      expect(m.behaviour(id)).toMatchObject({ failureRate: 0, timeoutRate: 0 });
    }
    const results = await Promise.all(
      VENUE_IDS.flatMap((id) => {
        const { from, to, amountIn } = thousandUsd(m, id);
        return Array.from({ length: 40 }, () => m.venue(id).quote({ from, to, amountIn, signal: AbortSignal.timeout(2_000) }));
      }),
    );
    expect(results).toHaveLength(21 * 40);
  });

  it('with failures on, a failing venue rejects with VenueFailed and one of its own texts', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: true });
    m.setBehaviour('okx', { failureRate: 1, timeoutRate: 0 });
    const { from, to, amountIn } = thousandUsd(m, 'okx');
    const err = await m.venue('okx').quote({ from, to, amountIn, signal: never() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueFailed);
    const texts = VENUE_SPECS.okx.failureMessages.map((t) => `okx: ${t}`);
    expect(texts).toContain((err as Error).message);
  });

  it('a halted venue refuses quotes', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false });
    m.setHalted('relay', true);
    await expect(m.venue('relay').quote({ ...thousandUsd(m, 'relay'), signal: never() })).rejects.toThrow(/halted/);
    m.setHalted('relay', false);
    await expect(m.venue('relay').quote({ ...thousandUsd(m, 'relay'), signal: never() })).resolves.toMatchObject({ venue: 'relay' });
  });
});

describe('silent venues never answer a quote (the knob of the deadline benchmark)', () => {
  it('a venue listed in `silent` times out every quote even with failures off; the others answer as before', async () => {
    const m = createSimMarket({ seed: 1, latencyScale: 0, failures: false, silent: ['relay'] });
    expect(m.behaviour('relay')).toMatchObject({ timeoutRate: 1 });
    expect(m.behaviour('across')).toMatchObject({ timeoutRate: 0 });
    const ac = new AbortController();
    let settled = false;
    const p = m.venue('relay').quote({ ...thousandUsd(m, 'relay'), signal: ac.signal }).finally(() => (settled = true));
    await expect(m.venue('across').quote({ ...thousandUsd(m, 'across'), signal: never() })).resolves.toMatchObject({ venue: 'across' });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    ac.abort(new Error('deadline'));
    await expect(p).rejects.toThrow('deadline');
  });
});
