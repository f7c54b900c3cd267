// The refund effect against a keyed ledger: a known key answers its first transfer whatever the request says, so the
// effect compares what it was answered with what it asked. A key that paid another amount or address is not this
// refund: answered failed, for an operator, never booked as paid.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { ORDER_EFFECTS } from '../../../machines/order.machine.js';
import { orderEffects } from '../../../actors/kinds/order-effects.js';
import { openSimChains } from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/log.js';
import type { PlannedRefund } from '../../../src/orders/money.js';
import { BASE_USDC } from '../../support/fixtures.js';

const DEPOSIT = '0x00000000000000000000000000000000000000d1';
const CLIENT = '0x000000000000000000000000000000000000dEaD';
const OTHER = '0x1111111111111111111111111111111111111111';

function world() {
  const clock = new ManualClock();
  const chains = openSimChains({ file: ':memory:', clock, pollMs: 0 });
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
  const effects = orderEffects({ clock, chains, vaults: { issue: async () => { throw new Error('no vaults here'); } }, market: { venue: () => { throw new Error('no venues here'); } }, logger });
  const refund = (r: PlannedRefund) => toPromise(createActor(effects[ORDER_EFFECTS.refund], { input: r }).start());
  return { chains, refund, lines };
}

const planned = (over: Partial<PlannedRefund> = {}): PlannedRefund => ({
  key: 'o1:refund:0xabc:0', reason: 'excess', chain: 'base', asset: BASE_USDC, from: DEPOSIT, to: CLIENT, amount: 5_000n, cost: 100n, depositTxId: '0xabc', ...over,
});

describe('order effects: a refund answered with another transfer under its key', () => {
  it('pays once, answers paid again for the same refund, and answers failed for the same key with another amount or address', async () => {
    const w = world();
    await w.chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: CLIENT, to: DEPOSIT, amount: 20_000n });
    expect(await w.refund(planned())).toMatchObject({ status: 'paid' });
    expect(await w.refund(planned())).toMatchObject({ status: 'paid' });
    expect(await w.refund(planned({ amount: 9_000n }))).toMatchObject({ status: 'failed', error: expect.stringMatching(/already paid 4900 to .*, not 8900/) });
    expect(await w.refund(planned({ to: OTHER }))).toMatchObject({ status: 'failed' });
    expect(await w.chains.balanceOf('base', CLIENT, BASE_USDC)).toBe(4_900n);
  });
});

describe('order effects: a refund the chain refuses', () => {
  it('answers failed and logs the reason at warn, so a refund that can never be paid is seen while it is retried', async () => {
    const w = world();
    // Nothing arrived at the deposit address: the ledger refuses the transfer.
    expect(await w.refund(planned())).toMatchObject({ status: 'failed', error: expect.stringMatching(/holds 0/) });
    const warned = w.lines.filter((l) => l.msg === 'refund refused; retried later');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, key: 'o1:refund:0xabc:0', to: CLIENT, reason: 'excess', err: expect.stringMatching(/holds 0/) });
  });
});
