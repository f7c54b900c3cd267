// GET /orders pages through 1,000 orders while new ones are created between pages: a walk with `nextCursor` sees
// every order that existed when it began exactly once, newest first, and none created behind it. The orders are
// written straight into the service's store index (the list never loads an actor, so no actor is needed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/index.js';
import type { OrderSummary } from '../../../src/orders/summary.js';
import type { ActorStore } from '../../../src/store/types.js';
import { DEST, startC, type HarnessC } from './support.js';

const FROM = findAsset('base', 'USDC')!.id;
const TO = findAsset('arbitrum', 'USDC')!.id;
const T0 = Date.parse('2026-11-01T00:00:00Z');

function summary(i: number): OrderSummary {
  const amountIn = 1_000_000n + BigInt(i);
  const step = { venue: 'relay' as const, from: FROM, to: TO, execution: { mode: 'evm_gas_desk' as const, chain: 8453 }, stepAmountIn: amountIn, venueAmountIn: amountIn - 10n, venueAmountOut: amountIn - 20n, stepAmountOut: amountIn - 20n };
  return {
    quoteId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, from: FROM, to: TO,
    route: { from: FROM, to: TO, amountIn, steps: [step], delivery: { amountIn: amountIn - 20n, executionCost: 5n, amountOut: amountIn - 25n }, estimatedAmountOut: amountIn - 25n },
    quoteMode: 'exact_input', quotedIn: amountIn, quotedOut: amountIn - 25n, minOut: null, maxIn: null, executedIn: null, executedOut: null,
    executedFees: null, depositTxId: null, payoutTxId: null, refundTxId: null, sender: null, integrator: null, lastSourceUpdateAt: null, terminalAt: null,
  };
}

/** Order `i`, created at T0 + ⌊i/3⌋ s: three orders share each instant, so the id breaks ties. */
async function put(store: ActorStore, i: number): Promise<string> {
  const id = `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`;
  const createdAt = T0 + Math.floor(i / 3) * 1000;
  await store.save({
    kind: 'order', id, snapshot: { listed: true }, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: createdAt, status: 'awaiting_deposit',
    index: { sender: null, destination: DEST, refund: null, orderType: 'market', createdAt, listStatus: 'unfilled', summary: summary(i) },
  });
  return id;
}

let h: HarnessC;
beforeAll(async () => {
  h = await startC();
});
afterAll(() => h.close());

describe('GET /orders keyset pagination: 1,000 orders, creations interleaved between pages', () => {
  it('no order is skipped or repeated, the walk is newest first, and orders created during it are not in later pages', async () => {
    const store = h.svc.service.store;
    const before: string[] = [];
    for (let i = 0; i < 1000; i++) before.push(await put(store, i));
    let next = 1000;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await h.orders(`?limit=37${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(r.status).toBe(200);
      seen.push(...(r.body.items as Array<{ orderId: string }>).map((x) => x.orderId));
      cursor = r.body.nextCursor as string | null;
      pages++;
      // New orders arrive between pages (newer than every order already listed).
      for (let k = 0; k < 5; k++) await put(store, next++);
    } while (cursor !== null && pages < 100);
    expect(pages).toBe(Math.ceil(1000 / 37));
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    expect([...seen].sort()).toEqual([...before].sort());
    // Newest first: createdAt descending, then id descending; the ids were made in creation order.
    expect(seen).toEqual([...before].reverse());
  }, 120_000);
});

describe('limit: default 50, clamped to at most 100', () => {
  it('with more than 100 orders stored: no limit answers 50 items, limit=1000 answers 100', async () => {
    expect((await h.svc.service.store.listOrders({ limit: 101 })).length).toBe(101);
    const plain = await h.orders();
    expect(plain.status).toBe(200);
    expect(plain.body.items).toHaveLength(50);
    const clamped = await h.orders('?limit=1000');
    expect(clamped.status).toBe(200);
    expect(clamped.body.items).toHaveLength(100);
    expect(clamped.body.nextCursor).toEqual(expect.any(String));
  });
});
