// The order actor hosted by the runtime with real effects (HD vaults, the simulated ledger and venues), asked
// through the in-process bus with the typed protocol, as the edge asks it.
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../../actors/runtime.js';
import { createInProcessBus } from '../../../src/bus/index.js';
import { orderKind, FEES_ACCOUNT } from '../../../actors/kinds/order.js';
import { quoteKind } from '../../../actors/kinds/quote.js';
import { openSimChains } from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/log.js';
import { createRouter } from '../../../src/routing/index.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { createVaults, parseSeed } from '../../../src/vaults/index.js';
import { createSimMarket } from '../../../src/venues/index.js';
import { quoteRequest } from '../../support/fixtures.js';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const WEEK = 7 * 24 * 3600 * 1000;

async function world() {
  const clock = new ManualClock(undefined, Date.parse('2026-11-22T10:00:00Z'));
  const store = openSqliteStore(':memory:');
  const chains = openSimChains({ file: ':memory:', clock, pollMs: 0 });
  const market = createSimMarket({ seed: 7, latencyScale: 0, failures: false });
  const router = createRouter({ market, deadlines: { fast: 200, optimal: 200 }, pathLimit: 16 });
  const vaults = createVaults({ seed: parseSeed(SEED), sequences: store });
  const runtime = createRuntime({
    store, clock, logger: createLogger('silent'), alwaysReplay: true,
    kinds: [
      quoteKind({ router, prices: market, clock }),
      orderKind({ clock, vaults, chains, market, policy: { maxAttempts: 3, backoffMs: 1000, shortfallToleranceBps: 100 } }),
    ],
  });
  const bus = createInProcessBus(10_000, { verifyCodec: true });
  await bus.serve(runtime.handle);
  const quote = await bus.request({ kind: 'quote', id: 'q1' }, { type: 'quote.request', request: quoteRequest({ amountIn: 1_000_000_000n }) });
  const order = await bus.request({ kind: 'order', id: 'o1' }, { type: 'order.create', quote, toAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', refundAddress: null });
  return { clock, store, chains, runtime, bus, quote, order };
}

describe('Order creation: status awaiting_deposit, a fresh deposit address, deposit_deadline seven days after creation', () => {
  it('answers the order and stores its deadline as a durable wake-up', async () => {
    const w = await world();
    expect(w.order.status).toBe('awaiting_deposit');
    expect(w.order.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(w.order.depositDeadline - w.order.createdAt).toBe(WEEK);
    expect((await w.store.load('order', 'o1'))!.wakeAt).toBe(w.order.depositDeadline);
  });
});

describe('awaiting_deposit → expired when deposit_deadline passes with nothing deposited', () => {
  it('fires from the store at the deadline', async () => {
    const w = await world();
    w.clock.advance(WEEK - 1);
    expect(await w.runtime.fireDue()).toBe(0);
    w.clock.advance(1);
    expect(await w.runtime.fireDue()).toBe(1);
    expect((await w.bus.request({ kind: 'order', id: 'o1' }, { type: 'order.get' })).status).toBe('expired');
  });
});

describe('awaiting_deposit → funded → executing → delivered, with refund_address set to the sender', () => {
  it('delivers amount_out to to_address and conserves every unit', async () => {
    const w = await world();
    const from = '0x000000000000000000000000000000000000dEaD';
    const dep = await w.chains.simulateDeposit({ chain: 'base', asset: w.quote.route.from, from, to: w.order.depositAddress, amount: 1_000_000_000n });
    const order = { kind: 'order' as const, id: 'o1' };
    const seen = await w.bus.request(order, { type: 'deposit', txId: dep.txId, from, amount: 1_000_000_000n, confirmations: 0, required: 1 });
    expect(seen.status).toBe('funded');
    expect(seen.refundAddress).toBe(from);
    await w.bus.request(order, { type: 'deposit', txId: dep.txId, from, amount: 1_000_000_000n, confirmations: 1, required: 1 });
    let view = seen;
    for (let i = 0; ; i++) {
      view = await w.bus.request(order, { type: 'order.get' });
      if (view.status === 'delivered' || i > 200) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(view.status).toBe('delivered');
    expect(view.amountOut! > 0n).toBe(true);
    const to = w.quote.route.to;
    expect(await w.chains.balanceOf('arbitrum', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', to)).toBe(view.amountOut);
    // Source side: what was deposited = what the venues took + the costs; nothing is left at the deposit address.
    expect(await w.chains.balanceOf('base', w.order.depositAddress, w.quote.route.from)).toBe(0n);
    const fees = await w.chains.balanceOf('base', FEES_ACCOUNT, w.quote.route.from);
    const pools = (await w.chains.balances({ chain: 'base', asset: w.quote.route.from })).filter((b) => b.address.startsWith('pool:'));
    expect(pools.reduce((s, b) => s + b.amount, 0n) + fees).toBe(1_000_000_000n);
  });
});
