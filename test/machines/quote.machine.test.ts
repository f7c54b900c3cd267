// Paths of quote.machine generated from its graph with xstate/graph; each is run against the actor host in
// alwaysReplay mode (every step restored from the store) and must end where the graph says.
import { describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { PRICE_ROUTES, quoteMachine, type QuoteContext } from '../../machines/quote.machine.js';
import { QuoteRefused } from '../../src/errors.js';
import { fromErrorData } from '../../src/errors.js';
import { encodeJson, roundTrip } from '../../src/store/codec.js';
import type { RoutingResult } from '../../src/routing/types.js';
import { quoteRequest, routingResult } from '../support/fixtures.js';
import { testHost } from '../support/host.js';

const AT = Date.parse('2026-11-22T10:00:00Z');
const done = (result: RoutingResult) => ({ type: `xstate.done.actor.${PRICE_ROUTES}`, output: { result, at: AT } });
const events = [done(routingResult(true)), done(routingResult(false)), { type: `xstate.error.actor.${PRICE_ROUTES}`, error: new Error('boom') }];

const paths = getShortestPaths(quoteMachine, {
  input: { id: 'q-graph', request: quoteRequest() },
  events: events as never,
  // Snapshots hold bigints: serialise through the service's codec.
  serializeState: (s) => encodeJson({ value: s.value, context: s.context }) as never,
  serializeEvent: (e) => encodeJson(e) as never,
});

/** The fan-out a path's events describe, as the runtime will run it. */
function routeFor(pathEvents: Array<{ type: string; output?: { result: RoutingResult } }>) {
  const last = pathEvents.at(-1);
  return async () => {
    if (!last) return new Promise<RoutingResult>(() => {});
    if (last.type.startsWith('xstate.error')) throw new Error('boom');
    return last.output!.result;
  };
}

describe('quote.machine: every state is reachable by a generated path, and the actor host ends there', () => {
  it('the graph reaches pricing, quoted and refused', () => {
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    expect(reached).toEqual(new Set(['"pricing"', '"quoted"', '"refused"']));
  });

  for (const path of paths) {
    const steps = path.steps.map((s) => s.event.type).join(' → ') || '(start)';
    const target = path.state.value as string;
    if (target === 'pricing') continue; // the host answers only once pricing has ended; covered below
    it(`${steps} ⇒ ${target}`, async () => {
      const host = testHost({ route: routeFor(path.steps.map((s) => s.event) as never), alwaysReplay: true });
      const reply = await host.runtime.handle({
        ref: { kind: 'quote', id: 'q-graph' },
        message: roundTrip({ type: 'quote.request', request: quoteRequest() }),
      });
      const stored = await host.store.load('quote', 'q-graph');
      expect((stored!.snapshot as { value: unknown }).value).toBe(target);
      // The stored snapshot survives a JSON round trip unchanged (bigints through the codec).
      expect(roundTrip(stored!.snapshot)).toEqual(stored!.snapshot);
      const ctx = (stored!.snapshot as { context: QuoteContext }).context;
      if (target === 'quoted') {
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

  it('while pricing, the actor is stored in pricing, and a restore from that snapshot prices again', async () => {
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
    expect(((await host.store.load('quote', 'q1'))!.snapshot as { value: unknown }).value).toBe('pricing');
    release(routingResult(true));
    expect((await pending).ok).toBe(true);
    expect(calls).toBe(1);
    await host.close();
  });
});
