// An actor host for order tests: the real orderKind and runtime over SQLite in memory, a manual clock, a silent
// logger and the alwaysReplay mode by default. Vaults, chains and venues are in-memory fakes: the ledger keeps the
// chains port's promises (one transfer per key, bounded accounts never negative) and records every transfer for
// conservation checks; venue answers are scripted per step key.
//
// Effects are gated so a test decides when each one finishes: a host action lets at most one effect run (order
// creation lets the vault issue finish; `finishEffect` restores the order from the store and lets its effect in
// flight finish); an effect started otherwise never starts its real work, and is restarted from the snapshot by
// the next activation. Snapshot writes take one I/O turn, as a networked store's do, so the one effect always
// ends while its actor is still in memory. Without both, whether an effect ends before alwaysReplay drops its
// actor depends on microtask counts inside the runtime: an effect a few microtasks slower never ends at all, and
// one ending while the runtime evicts makes it store a stopped snapshot that never runs again (actors/runtime.ts,
// persist after evict).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createActor, fromPromise, toPromise, type AnyActorLogic } from 'xstate';
import { createRuntime, orderKind, type ActorKindSpec, type Runtime } from '../../actors/index.js';
import { ORDER_EFFECTS, orderMachine, orderWakeUp, type OrderContext, type OrderPolicy } from '../../machines/order.machine.js';
import { findAsset } from '../../src/assets/registry.js';
import type { ChainName } from '../../src/assets/types.js';
import type { Reply } from '../../src/bus/types.js';
import { InsufficientFunds, isUnbounded, MINT_ACCOUNT } from '../../src/chains/index.js';
import type { Transfer, TransferRequest } from '../../src/chains/types.js';
import { ManualClock } from '../../src/clock.js';
import { VenueFailed } from '../../src/errors.js';
import { createLogger, type Logger } from '../../src/log.js';
import { FEES_ACCOUNT, holdingAccount, holdings } from '../../src/orders/money.js';
import type { OrderTerms } from '../../src/orders/types.js';
import type { Quote } from '../../src/quotes/types.js';
import type { PricedRoute, RouteRequest } from '../../src/routing/types.js';
import { roundTrip } from '../../src/store/codec.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { ActorStore } from '../../src/store/types.js';
import type { Vault } from '../../src/vaults/index.js';
import type { Venue, VenueExecuteRequest, VenueExecution, VenueId } from '../../src/venues/types.js';
import { ARB_USDC, BASE_USDC, quoteRequest } from './fixtures.js';

export const ARB_USDT = findAsset('arbitrum', 'USDT')!.id;
export const HOST_START = Date.parse('2026-11-22T10:00:00Z');
/** What one refund transfer costs on the source chain in these tests (base units of a 6-decimal dollar). */
export const REFUND_COST = 2_000n;
export const DEFAULT_POLICY: OrderPolicy = { maxAttempts: 2, backoffMs: 1_000, shortfallToleranceBps: 100, maxAmountIn: null };

/**
 * base.usdc → (cctp_fast) → arbitrum.usdc → (kyberswap) → arbitrum.usdt, quoted 1:1 by both venues. Every asset is
 * a 6-decimal dollar, so conservation can be checked as one sum: deposited = delivered + costs + refunded + held.
 */
export function twoStepRoute(amountIn = 1_000_000_000n): PricedRoute {
  const cost0 = 20_000n;
  const cost1 = 10_000n;
  const deliveryCost = 5_000n;
  const out0 = amountIn - cost0;
  const out1 = out0 - cost1;
  return {
    from: BASE_USDC,
    to: ARB_USDT,
    amountIn,
    steps: [
      { venue: 'cctp_fast', from: BASE_USDC, to: ARB_USDC, execution: { mode: 'evm_gas_desk', chain: 8453 }, stepAmountIn: amountIn, venueAmountIn: out0, venueAmountOut: out0, stepAmountOut: out0 },
      { venue: 'kyberswap', from: ARB_USDC, to: ARB_USDT, execution: { mode: 'evm', chain: 42161 }, stepAmountIn: out0, venueAmountIn: out1, venueAmountOut: out1, stepAmountOut: out1 },
    ],
    delivery: { amountIn: out1, executionCost: deliveryCost, amountOut: out1 - deliveryCost },
    estimatedAmountOut: out1 - deliveryCost,
  };
}

export function twoStepQuote(id = 'q-order', route = twoStepRoute()): Quote {
  return {
    id,
    request: quoteRequest({ from: route.from, to: route.to, amountIn: route.amountIn }),
    route,
    audit: null,
    refundCost: REFUND_COST,
    quotedAt: HOST_START,
    usdPrices: {},
    rounds: 1,
    expiresAt: HOST_START + 10 * 60 * 1000,
  };
}

/** How a venue answers an execution: a fill (1:1 unless `amountOut` is given; below the least acceptable output
 *  the venue answers a shortfall halt instead), a venue halt, or a venue error (retriable). */
export type VenueScript = { status: 'filled'; amountOut?: bigint } | { status: 'halted'; reason: string } | { status: 'failing'; error: string };

/** A ledger as the chains port promises it: one transfer per key, ever; bounded accounts cannot go negative. */
export class FakeLedger {
  readonly transfers: Transfer[] = [];
  private readonly byKey = new Map<string, Transfer>();
  private readonly balances = new Map<string, { chain: ChainName; address: string; asset: string; amount: bigint }>();
  private seq = 0;

  constructor(private readonly clock: ManualClock) {}

  private readonly failing = new Map<string, string>();

  /** Transfers whose key starts with `prefix` fail with `error` (moving nothing) until `heal(prefix)`. */
  fail(prefix: string, error = 'The chain did not accept the transaction.'): void {
    this.failing.set(prefix, error);
  }

  heal(prefix: string): void {
    this.failing.delete(prefix);
  }

  async transfer(t: TransferRequest): Promise<Transfer> {
    const prior = this.byKey.get(t.key);
    if (prior) return prior;
    for (const [prefix, error] of this.failing) if (t.key.startsWith(prefix)) throw new Error(error);
    const balance = this.balanceOf(t.chain, t.from, t.asset);
    if (!isUnbounded(t.from) && balance < t.amount) {
      throw new InsufficientFunds(`${t.from} holds ${balance}, not ${t.amount}.`, {
        chain: t.chain, asset: t.asset, address: t.from, balance: String(balance), amount: String(t.amount),
      });
    }
    this.seq++;
    const made: Transfer = { ...t, txId: `0x${this.seq.toString(16).padStart(64, '0')}`, block: this.seq, at: this.clock.now() };
    this.byKey.set(t.key, made);
    this.transfers.push(made);
    this.add(t.chain, t.from, t.asset, -t.amount);
    this.add(t.chain, t.to, t.asset, t.amount);
    return made;
  }

  balanceOf(chain: ChainName, address: string, asset: string): bigint {
    return this.balances.get(`${chain}|${address}|${asset}`)?.amount ?? 0n;
  }

  /** Balances of every account matching `which`, summed over chains and assets. */
  held(which: (address: string) => boolean): bigint {
    return [...this.balances.values()].filter((b) => which(b.address)).reduce((s, b) => s + b.amount, 0n);
  }

  /** Sum of the transfers matching `which`. */
  sum(which: (t: Transfer) => boolean): bigint {
    return this.transfers.filter(which).reduce((s, t) => s + t.amount, 0n);
  }

  private add(chain: ChainName, address: string, asset: string, amount: bigint): void {
    const k = `${chain}|${address}|${asset}`;
    const b = this.balances.get(k) ?? { chain, address, asset, amount: 0n };
    this.balances.set(k, { ...b, amount: b.amount + amount });
  }
}

/** Venues whose executions are scripted per idempotency key `<order id>:<step index>`; a key fills once. */
export class ScriptedMarket {
  /** Every execute call, repeats included. */
  readonly calls: VenueExecuteRequest[] = [];
  /** First fills only: a repeated key answers its first fill again and is not counted. */
  readonly fills: Array<{ venue: VenueId; key: string; amountIn: bigint; amountOut: bigint }> = [];
  private readonly scripts = new Map<string, VenueScript>();
  private readonly held = new Map<string, Promise<void>>();
  private readonly filled = new Map<string, VenueExecution>();

  /** What the venue answers for `key` from now on (default: a 1:1 fill). */
  script(key: string, answer: VenueScript): void {
    this.scripts.set(key, answer);
  }

  /** The venue forgets `key`'s fill, as the simulated venues do across a restart: the next execution is priced anew. */
  forget(key: string): void {
    this.filled.delete(key);
  }

  /** Executions of `key` wait until the returned function is called. */
  hold(key: string): () => void {
    let release!: () => void;
    this.held.set(key, new Promise<void>((r) => (release = r)));
    return () => {
      this.held.delete(key);
      release();
    };
  }

  venue(id: VenueId): Venue {
    return {
      id,
      routes: () => [],
      supports: () => true,
      quote: () => Promise.reject(new VenueFailed('This test venue only executes.')),
      execute: async (req) => {
        this.calls.push(req);
        await this.held.get(req.key);
        const prior = this.filled.get(req.key);
        if (prior) return prior;
        const s = this.scripts.get(req.key) ?? { status: 'filled' };
        if (s.status === 'failing') throw new VenueFailed(s.error);
        if (s.status === 'halted') return { status: 'halted', key: req.key, reason: s.reason };
        const amountOut = s.amountOut ?? req.amountIn;
        if (amountOut < req.minAmountOut) {
          return { status: 'halted', key: req.key, reason: `${id} would return ${amountOut}, less than the least acceptable ${req.minAmountOut}.`, shortfall: true };
        }
        const fill: VenueExecution = { status: 'filled', key: req.key, amountIn: req.amountIn, amountOut, txId: `fill:${req.key}` };
        this.filled.set(req.key, fill);
        this.fills.push({ venue: id, key: req.key, amountIn: req.amountIn, amountOut });
        return fill;
      },
    };
  }
}

export interface StoredOrder {
  value: unknown;
  context: OrderContext;
  version: number;
  wakeAt: number | null;
  /** The snapshot as stored. */
  snapshot: unknown;
}

export interface OrderHost {
  runtime: Runtime;
  /** The hosted kind: the real orderKind with the gate around its effects. */
  kind: ActorKindSpec;
  /** The SQLite store under the runtime (reads here skip the write delay). */
  store: ActorStore;
  clock: ManualClock;
  ledger: FakeLedger;
  market: ScriptedMarket;
  /** Vaults issued, in order. */
  vaults: Vault[];
  /** Vault issues wait until the returned function is called. */
  holdVaults(): () => void;
  /** `order.create` (messages go through the codec, as over the bus); the vault issue may finish. */
  create(id: string, quote: Quote, toAddress: string, refundAddress?: string | null, terms?: OrderTerms): Promise<Reply>;
  /** A deposit as the watcher reports it; a txId not seen before (or mined again after it vanished) first moves the
   *  money on the fake source chain (`deposit:<txId>[:<n>]`). */
  deposit(id: string, d: { txId: string; from: string; amount: bigint; confirmations: number; required: number; fromRouter?: boolean }): Promise<Reply>;
  /**
   * A reorg removed the deposit `txId`, as the watcher reports it (`deposit.vanished`). The fake chain reverses its
   * arrival (`vanish:<txId>:<n>`, deposit address → mint) when its money still sits at the deposit address untouched
   * by the order (nothing spent, refunded or being refunded): a reorg deeper than the confirmations execution and
   * refunds wait for is out of the chains' model, and the order then keeps the deposit and names it for an operator.
   */
  vanish(id: string, txId: string): Promise<Reply>;
  get(id: string): Promise<Reply>;
  /** Moves the clock to `at` and fires the durable wake-ups due then; no effect may finish. */
  fireAt(at: number): Promise<void>;
  /** Restores the order from the store through its wake-up and lets its effect in flight finish. */
  finishEffect(id: string, effect?: OrderEffect): Promise<StoredOrder>;
  /** `order.unwind`: cancel an order before it executes, or unwind a stalled or frozen one. */
  unwind(id: string): Promise<Reply>;
  /** What the router answers when an unwind quotes the way back (default: a 1:1 one-step route, cost 1 000). */
  scriptRouteBack(answer: 'route' | 'none'): void;
  /** Every request the router was asked, in order (the ways back of unwinds). */
  routeRequests: RouteRequest[];
  load(id: string): Promise<StoredOrder>;
  close(): Promise<void>;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

export type OrderEffect = (typeof ORDER_EFFECTS)[keyof typeof ORDER_EFFECTS];

/** The router's answer for the way back: one step through `across`, 1:1 less a cost of 1 000. */
export function routeBack(from: string, to: string, amountIn: bigint): PricedRoute {
  const cost = 1_000n;
  const out = amountIn - cost;
  return {
    from, to, amountIn,
    steps: [{ venue: 'across', from, to, execution: { mode: 'evm_gas_desk', chain: 42161 }, stepAmountIn: amountIn, venueAmountIn: out, venueAmountOut: out, stepAmountOut: out }],
    delivery: { amountIn: out, executionCost: 0n, amountOut: out },
    estimatedAmountOut: out,
  };
}

export function orderHost(opts: { policy?: Partial<OrderPolicy>; alwaysReplay?: boolean; gated?: boolean; start?: number; logger?: Logger } = {}): OrderHost {
  const sqlite = openSqliteStore(':memory:');
  const store: ActorStore = new Proxy(sqlite, {
    get(target, p, receiver) {
      if (p === 'save') {
        return async (a: Parameters<ActorStore['save']>[0]) => {
          await turn();
          return target.save(a);
        };
      }
      const v: unknown = Reflect.get(target, p, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const clock = new ManualClock(undefined, opts.start ?? HOST_START);
  const ledger = new FakeLedger(clock);
  const market = new ScriptedMarket();
  const vaults: Vault[] = [];
  let vaultsHeld: Promise<void> | null = null;
  const gated = opts.gated ?? true;
  // Which effect may run next (null: any one), and how many may start.
  let allowance = 0;
  let allowed: OrderEffect | null = null;
  let routeBackAnswer: 'route' | 'none' = 'route';
  const routeRequests: RouteRequest[] = [];
  // Per txId: the arrivals reversed so far (a deposit mined again after it vanished arrives under a new key).
  const reversals = new Map<string, number>();
  const arrivalKey = (txId: string) => ((reversals.get(txId) ?? 0) === 0 ? `deposit:${txId}` : `deposit:${txId}:${reversals.get(txId)}`);

  const { maxAmountIn, ...policy } = { ...DEFAULT_POLICY, ...opts.policy };
  const real = orderKind({
    clock,
    policy,
    // The host's orders all sell BASE_USDC: its limit is the policy's.
    ...(maxAmountIn === null ? {} : { limits: new Map([[BASE_USDC, maxAmountIn]]) }),
    chains: { transfer: (t) => ledger.transfer(t), transfers: async (f) => ledger.transfers.filter((t) => (f?.key === undefined || t.key === f.key) && (f?.chain === undefined || t.chain === f.chain)) },
    market,
    router: {
      route: async (req) => {
        routeRequests.push(req);
        return {
          best: routeBackAnswer === 'route' ? routeBack(req.from, req.to, req.amountIn) : null,
          refundCost: REFUND_COST,
          audit: { singleHop: [], multiHop: { paths: 0, complete: true, hops: null, attempts: [], routes: [], setupError: null } },
        };
      },
    },
    vaults: {
      async issue(chain) {
        await vaultsHeld;
        const index = vaults.length;
        const v: Vault = { vaultId: randomUUID(), chain, scheme: 'bip44-evm', index, address: `0x${(0xdeb0_0000 + index).toString(16).padStart(40, '0')}` };
        vaults.push(v);
        return v;
      },
    },
  });
  // The gate wraps each provided effect: the real one runs only with an allowance, else it never starts.
  const provided = (real.logic as unknown as { implementations: { actors: Record<string, AnyActorLogic> } }).implementations.actors;
  const gate = (name: OrderEffect, effect: AnyActorLogic) =>
    fromPromise<unknown, unknown>(async ({ input }) => {
      if (gated) {
        if (allowance === 0 || (allowed !== null && allowed !== name)) return new Promise<never>(() => {});
        allowance--;
      }
      return toPromise(createActor(effect, { input }).start());
    });
  const kind: ActorKindSpec = {
    ...real,
    logic: (real.logic as unknown as { provide(i: unknown): AnyActorLogic }).provide({
      actors: Object.fromEntries(Object.values(ORDER_EFFECTS).map((name) => [name, gate(name, provided[name]!)])),
    }),
  };

  const runtime = createRuntime({ store, clock, logger: opts.logger ?? createLogger('silent'), alwaysReplay: opts.alwaysReplay ?? true, kinds: [kind] });
  const ref = (id: string) => ({ kind: 'order' as const, id });
  const send = (id: string, message: Record<string, unknown> & { type: string }) => runtime.handle({ ref: ref(id), message: roundTrip(message) });
  async function withOneEffect<T>(act: () => Promise<T>, effect: OrderEffect | null = null): Promise<T> {
    allowance = 1;
    allowed = effect;
    try {
      return await act();
    } finally {
      allowance = 0;
      allowed = null;
    }
  }

  async function load(id: string): Promise<StoredOrder> {
    const s = await sqlite.load('order', id);
    if (!s) throw new Error(`Order ${id} is not stored.`);
    const snap = s.snapshot as { value: unknown; context: OrderContext };
    return { value: snap.value, context: snap.context, version: s.version, wakeAt: s.wakeAt, snapshot: s.snapshot };
  }

  return {
    runtime,
    kind,
    store: sqlite,
    clock,
    ledger,
    market,
    vaults,
    holdVaults() {
      let release!: () => void;
      vaultsHeld = new Promise<void>((r) => (release = r));
      return () => {
        vaultsHeld = null;
        release();
      };
    },
    create: (id, quote, toAddress, refundAddress = null, terms) =>
      withOneEffect(() => send(id, { type: 'order.create', quote, toAddress, refundAddress, ...(terms ? { terms } : {}) })),
    async deposit(id, d) {
      const o = await load(id);
      const key = arrivalKey(d.txId);
      if (!ledger.transfers.some((t) => t.key === key)) {
        const [chain, asset] = [o.context.sourceChain, o.context.route.from];
        await ledger.transfer({ key: `mint:${key.slice('deposit:'.length)}`, chain, asset, from: MINT_ACCOUNT, to: d.from, amount: d.amount });
        await ledger.transfer({ key, chain, asset, from: d.from, to: o.context.vault!.address, amount: d.amount });
      }
      return send(id, { type: 'deposit', ...d });
    },
    async vanish(id, txId) {
      const c = (await load(id)).context;
      const d = c.deposits.find((x) => x.txId === txId);
      const arrival = ledger.transfers.find((t) => t.key === arrivalKey(txId));
      if (d && arrival && d.spent === 0n && d.refunded === 0n && c.paying?.depositTxId !== txId) {
        const n = reversals.get(txId) ?? 0;
        await ledger.transfer({ key: `vanish:${txId}:${n}`, chain: arrival.chain, asset: arrival.asset, from: arrival.to, to: MINT_ACCOUNT, amount: arrival.amount });
        reversals.set(txId, n + 1);
      }
      return send(id, { type: 'deposit.vanished', txId });
    },
    get: (id) => send(id, { type: 'order.get' }),
    async fireAt(at) {
      clock.set(at);
      await runtime.fireDue();
    },
    unwind: (id) => send(id, { type: 'order.unwind' }),
    scriptRouteBack(answer) {
      routeBackAnswer = answer;
    },
    routeRequests,
    async finishEffect(id, effect) {
      const before = await load(id);
      const wake = orderWakeUp(orderMachine.resolveState({ value: before.value as never, context: before.context }));
      if (wake?.at !== 0 || before.wakeAt !== 0) throw new Error(`Order ${id} has no effect in flight (${JSON.stringify(before.value)}).`);
      await withOneEffect(() => runtime.fireDue(), effect ?? null);
      return load(id);
    },
    load,
    async close() {
      await runtime.drain();
      await sqlite.close();
    },
  };
}

/** What the deposits brought to the order's address, less those a reorg took back. */
export function depositedNow(l: FakeLedger): bigint {
  return l.sum((t) => t.key.startsWith('deposit:')) - l.sum((t) => t.key.startsWith('vanish:'));
}

/**
 * The order's own records name every unit it holds and the fake ledger agrees account by account; every deposited
 * unit is delivered, a cost, refunded or held by the order (every asset of these tests is a 6-decimal dollar, and
 * the test venues fill 1:1 or not at all); no venue pool keeps any of a step that did not fill.
 */
export function expectOrderMoneyNamed(host: OrderHost, c: OrderContext, toAddress: string): void {
  const named = holdings(c);
  for (const h of named) expect(host.ledger.balanceOf(h.chain, h.address, h.asset), `${h.address} ${h.asset}`).toBe(h.amount);
  const l = host.ledger;
  const mine = (a: string) => a === c.vault?.address || a === holdingAccount(c.id);
  const held = l.held(mine);
  expect(held).toBe(named.reduce((s, h) => s + h.amount, 0n));
  const deposited = depositedNow(l);
  const refunded = l.sum((t) => t.key.startsWith(`${c.id}:refund:`) && !t.key.endsWith(':cost'));
  expect(l.sum((t) => t.to === toAddress) + l.sum((t) => t.to === FEES_ACCOUNT) + refunded + held).toBe(deposited);
  expect(refunded).toBe(c.refunds.reduce((s, r) => s + r.sent, 0n));
  expect(l.sum((t) => t.to.startsWith('pool:'))).toBe(c.legs.reduce((s, x) => s + x.amountIn - x.cost, 0n));
  expect(l.sum((t) => t.from.startsWith('pool:'))).toBe(c.legs.reduce((s, x) => s + x.amountOut, 0n));
}
