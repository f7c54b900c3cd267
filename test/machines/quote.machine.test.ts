// Paths of quote.machine generated from its graph with xstate/graph; each is run against the actor host in
// alwaysReplay mode (every step restored from the store) and must end where the graph says.
import { describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { PRICE_ROUTES, quoteMachine, type QuoteContext } from '../../machines/quote.machine.js';
import { QuoteRefused } from '../../src/errors.js';
import { fromErrorData } from '../../src/errors.js';
import { encodeJson, roundTrip } from '../../src/store/codec.js';
import type { RoutedBest, RoutingResult } from '../../src/routing/types.js';
import { QUOTE_IDLE_MS, quoteKind } from '../../actors/kinds/quote.js';
import { createRuntime } from '../../actors/runtime.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { USD_ONE } from '../../src/venues/prices.js';
import { QUOTE_VALIDITY_MS, type Quote } from '../../src/quotes/types.js';
import { oneStepRoute, quoteRequest, routingResult } from '../support/fixtures.js';
import { testHost } from '../support/host.js';

const AT = Date.parse('2026-11-22T10:00:00Z');
const done = (result: RoutingResult) => ({ type: `xstate.done.actor.${PRICE_ROUTES}`, output: { result, at: AT } });
const bind = (at: number) => ({ type: 'quote.bind', orderId: 'o-1', toAddress: '0xTo', refundAddress: null, at });
const events = [
  done(routingResult(true)),
  done(routingResult(false)),
  { type: `xstate.error.actor.${PRICE_ROUTES}`, error: new Error('boom') },
  bind(AT + 1_000),
  bind(AT + QUOTE_VALIDITY_MS + 1),
];

const paths = getShortestPaths(quoteMachine, {
  input: { id: 'q-graph', request: quoteRequest() },
  events: events as never,
  // Snapshots hold bigints: serialise through the service's codec.
  serializeState: (s) => encodeJson({ value: s.value, context: s.context }) as never,
  serializeEvent: (e) => encodeJson(e) as never,
});

/** The fan-out a path's events describe, as the runtime will run it. */
function routeFor(pathEvents: Array<{ type: string; output?: { result: RoutingResult } }>) {
  const last = pathEvents.filter((e) => e.type.startsWith('xstate.')).at(-1);
  return async () => {
    if (!last) return new Promise<RoutingResult>(() => {});
    if (last.type.startsWith('xstate.error')) throw new Error('boom');
    return last.output!.result;
  };
}

describe('quote.machine: every state is reachable by a generated path, and the actor host ends there', () => {
  it('the graph reaches pricing, quoted, refused, bound and expired', () => {
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    expect(reached).toEqual(new Set(['"pricing"', '"quoted"', '"refused"', '"bound"', '"expired"']));
  });

  for (const path of paths) {
    const steps = path.steps.map((s) => s.event.type).join(' → ') || '(start)';
    const target = path.state.value as string;
    if (target === 'pricing') continue; // the host answers only once pricing has ended; covered below
    it(`${steps} ⇒ ${target}`, async () => {
      const host = testHost({ route: routeFor(path.steps.map((s) => s.event) as never), alwaysReplay: true });
      let reply = await host.runtime.handle({
        ref: { kind: 'quote', id: 'q-graph' },
        message: roundTrip({ type: 'quote.request', request: quoteRequest() }),
      });
      // Quoting happens at the host's clock; bind events replay the path's times relative to it.
      const quotedAt = host.clock.now();
      for (const step of path.steps.filter((st) => st.event.type === 'quote.bind')) {
        const e = step.event as unknown as ReturnType<typeof bind>;
        host.clock.set(quotedAt + (e.at - AT));
        reply = await host.runtime.handle({
          ref: { kind: 'quote', id: 'q-graph' },
          message: roundTrip({ type: 'quote.bind', orderId: e.orderId, toAddress: e.toAddress, refundAddress: e.refundAddress }),
        });
      }
      const stored = await host.store.load('quote', 'q-graph');
      expect((stored!.snapshot as { value: unknown }).value).toBe(target);
      // The stored snapshot survives a JSON round trip unchanged (bigints through the codec).
      expect(roundTrip(stored!.snapshot)).toEqual(stored!.snapshot);
      const ctx = (stored!.snapshot as { context: QuoteContext }).context;
      if (target === 'bound') {
        expect(reply).toEqual({ ok: true, value: { orderId: 'o-1' } });
        expect(ctx.binding).toMatchObject({ orderId: 'o-1', toAddress: '0xTo', refundAddress: null });
      } else if (target === 'expired') {
        expect(reply.ok).toBe(false);
        if (!reply.ok) expect(reply.error.code).toBe('quote_expired');
      } else if (target === 'quoted') {
        expect(reply.ok).toBe(true);
        expect(ctx.quote!.expiresAt - ctx.quote!.quotedAt).toBe(10 * 60 * 1000);
        expect(ctx.quote!.route).toEqual(routingResult(true).best);
      } else {
        expect(reply.ok).toBe(false);
        if (!reply.ok) expect(fromErrorData(reply.error)).toBeInstanceOf(QuoteRefused);
      }
      await host.close();
    });
  }

  it('while pricing, nothing of the quote is stored (a crash then loses a quote nobody was given); the answer comes once the quoted snapshot is stored', async () => {
    let calls = 0;
    let release!: (r: RoutingResult) => void;
    const host = testHost({
      alwaysReplay: false,
      route: () => {
        calls++;
        return new Promise<RoutingResult>((r) => (release = r));
      },
    });
    const pending = host.runtime.handle({ ref: { kind: 'quote', id: 'q1' }, message: { type: 'quote.request', request: quoteRequest() } });
    await new Promise((r) => setTimeout(r, 20));
    expect(await host.store.load('quote', 'q1')).toBeNull();
    release(routingResult(true));
    expect((await pending).ok).toBe(true);
    expect(((await host.store.load('quote', 'q1'))!.snapshot as { value: unknown }).value).toBe('quoted');
    expect(calls).toBe(1);
    await host.close();
  });
});

describe('`expires_at` is ten minutes after the quote was priced, not after the request arrived', () => {
  it('venues that take 40 s leave the client the whole ten minutes from the answer', async () => {
    let release!: (r: RoutingResult) => void;
    const host = testHost({ alwaysReplay: false, route: () => new Promise<RoutingResult>((r) => (release = r)) });
    const arrived = host.clock.now();
    const pending = host.runtime.handle({ ref: { kind: 'quote', id: 'q-slow' }, message: { type: 'quote.request', request: quoteRequest() } });
    await new Promise((r) => setTimeout(r, 10));
    host.clock.advance(40_000);
    release(routingResult(true));
    const reply = await pending;
    expect(reply.ok).toBe(true);
    const quote = (reply.ok ? reply.value : null) as Quote;
    expect(quote.quotedAt).toBe(arrived + 40_000);
    expect(quote.expiresAt).toBe(arrived + 40_000 + 10 * 60 * 1000);
    await host.close();
  });
});

describe('Bounded storage: candidates are answered once and not stored', () => {
  it('the answer to quote.request carries the candidates; the stored quote keeps the route without them and still binds', async () => {
    const host = testHost({ route: async () => routingResult(true) });
    const ref = { kind: 'quote' as const, id: 'q-cands' };
    const answer = await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest({ includeCandidates: true }) } });
    expect(answer.ok && (answer.value as Quote).audit).not.toBeNull();
    const stored = (await host.store.load('quote', 'q-cands'))!.snapshot as { context: QuoteContext };
    expect(stored.context.quote!.audit).toBeNull();
    expect(stored.context.quote!.route).toEqual(answer.ok ? (answer.value as Quote).route : null);
    expect(encodeJson(stored).length).toBeLessThan(encodeJson(answer).length);
    // alwaysReplay: the bind restores the actor from the stored snapshot.
    expect(await host.runtime.handle({ ref, message: { type: 'quote.bind', orderId: 'o1', toAddress: '0xA', refundAddress: null } })).toEqual({ ok: true, value: { orderId: 'o1' } });
    await host.close();
  });

  it('a refusal with candidates answers them and stores the refusal without them', async () => {
    const host = testHost({ route: async () => routingResult(false) });
    const ref = { kind: 'quote' as const, id: 'q-refused' };
    const answer = await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest({ includeCandidates: true }) } });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect((answer.error.details as { audit: unknown }).audit).not.toBeNull();
    const stored = (await host.store.load('quote', 'q-refused'))!.snapshot as { context: QuoteContext };
    expect(stored.context.refusal!.reason).toBeTruthy();
    expect(stored.context.refusal!.audit).toBeNull();
    await host.close();
  });
});

describe('POST /order rules at the quote actor: one quote binds one order', () => {
  const ref = { kind: 'quote' as const, id: 'q-bind' };
  const bindMsg = (orderId: string, toAddress = '0xA', refundAddress: string | null = null) => ({
    type: 'quote.bind', orderId, toAddress, refundAddress,
  });

  it('Repeating the call with the same quote_id and the same addresses returns the order already created', async () => {
    const host = testHost({ route: async () => routingResult(true) });
    await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest() } });
    expect(await host.runtime.handle({ ref, message: bindMsg('first') })).toEqual({ ok: true, value: { orderId: 'first' } });
    expect(await host.runtime.handle({ ref, message: bindMsg('second') })).toEqual({ ok: true, value: { orderId: 'first' } });
    await host.close();
  });

  it('Changing the addresses for a quote already used is rejected (409)', async () => {
    const host = testHost({ route: async () => routingResult(true) });
    await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest() } });
    await host.runtime.handle({ ref, message: bindMsg('first') });
    const other = await host.runtime.handle({ ref, message: bindMsg('second', '0xB') });
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.code).toBe('quote_already_bound');
    const refund = await host.runtime.handle({ ref, message: bindMsg('third', '0xA', 'bc1q') });
    if (!refund.ok) expect(refund.error.code).toBe('quote_already_bound');
    expect(refund.ok).toBe(false);
    await host.close();
  });

  it('50 concurrent binds of one quote make exactly one order', async () => {
    const host = testHost({ route: async () => routingResult(true), alwaysReplay: false });
    await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest() } });
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => host.runtime.handle({ ref, message: bindMsg(`o${i}`) })));
    const ids = new Set(replies.map((r) => (r.ok ? (r.value as { orderId: string }).orderId : r.error.code)));
    expect(ids.size).toBe(1);
    await host.close();
  });

  it('a quote is refused on order creation after expires_at (410), and a refused quote is unknown (400)', async () => {
    const host = testHost({ route: async () => routingResult(true) });
    await host.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest() } });
    host.clock.advance(QUOTE_VALIDITY_MS + 1);
    const late = await host.runtime.handle({ ref, message: bindMsg('late') });
    expect(late.ok).toBe(false);
    if (!late.ok) expect(late.error.code).toBe('quote_expired');
    const refused = testHost({ route: async () => routingResult(false) });
    await refused.runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest() } });
    const r = await refused.runtime.handle({ ref, message: bindMsg('x') });
    if (!r.ok) expect(r.error.code).toBe('quote_not_found');
    expect(r.ok).toBe(false);
    await host.close();
    await refused.close();
  });
});

describe('A quote without candidates is routed without its audit, and leaves memory soon after its answer', () => {
  function host(route: () => Promise<RoutingResult>, routeBest: () => Promise<RoutedBest>) {
    const store = openSqliteStore(':memory:');
    const clock = new ManualClock(undefined, AT);
    const kind = quoteKind({ router: { route, routeBest, exactOutput: () => Promise.reject(new Error('exact input only')) }, prices: { usdPrice: () => USD_ONE }, clock });
    const runtime = createRuntime({ store, clock, logger: createLogger('silent'), kinds: [kind] });
    return { runtime, store };
  }
  const audited = async () => routingResult(true);
  const bare = async (): Promise<RoutedBest> => ({ best: oneStepRoute(), refundCost: 2_000n });
  const never = () => Promise.reject(new Error('not this one'));

  it('include_candidates false asks routeBest, true asks route; both answer the same quote route', async () => {
    const a = host(never, bare);
    const plain = await a.runtime.handle({ ref: { kind: 'quote', id: 'q-plain' }, message: { type: 'quote.request', request: quoteRequest({ includeCandidates: false }) } });
    const b = host(audited, never);
    const cands = await b.runtime.handle({ ref: { kind: 'quote', id: 'q-cands' }, message: { type: 'quote.request', request: quoteRequest({ includeCandidates: true }) } });
    expect(plain.ok && cands.ok).toBe(true);
    if (plain.ok && cands.ok) {
      expect((plain.value as Quote).audit).toBeNull();
      expect((cands.value as Quote).audit).not.toBeNull();
      expect((plain.value as Quote).route).toEqual((cands.value as Quote).route);
    }
    await a.runtime.drain();
    await b.runtime.drain();
  });

  it(`a quote actor leaves memory ${QUOTE_IDLE_MS} ms after its answer (not the runtime's idle time) and binds from its snapshot`, async () => {
    expect(QUOTE_IDLE_MS).toBeLessThan(10_000);
    const { runtime } = host(never, bare);
    const ref = { kind: 'quote' as const, id: 'q-idle' };
    await runtime.handle({ ref, message: { type: 'quote.request', request: quoteRequest({ includeCandidates: false }) } });
    expect(runtime.activeCount()).toBe(1);
    await new Promise((r) => setTimeout(r, QUOTE_IDLE_MS + 200));
    expect(runtime.activeCount()).toBe(0);
    expect(await runtime.handle({ ref, message: { type: 'quote.bind', orderId: 'o1', toAddress: '0xA', refundAddress: null } })).toEqual({ ok: true, value: { orderId: 'o1' } });
    await runtime.drain();
  });
});
