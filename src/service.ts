// The composition root of embedded mode: builds store, market, router, actor host, bus and the Family A and B apps from
// one Config. It listens on nothing (src/main.ts does), so tests and benchmarks build the same service in-process.
// Like main.ts it is allowed to import actors/ and http/: it is where the layers meet.
import { join } from 'node:path';
import type Koa from 'koa';
import {
  createDepositFeed, createQuoteJanitor, createRuntime, depositAddressEntry, orderKind, quoteKind, withOrderPlacement, type AnyActorKindSpec,
  type DepositFeed, type Runtime,
} from '../actors/index.js';
import { createApp, createAppB, createAppC, createDevApp, createEdgeGuard, createIssuedQuotes, loadOrCreateGatewaySecret, type EdgeGuard } from '../http/index.js';
import type { Chains, SimChains } from './chains/types.js';
import { createInProcessBus } from './bus/index.js';
import type { Bus } from './bus/types.js';
import { ManualClock } from './clock.js';
import { readClockOffset, writeClockOffset } from './dev-clock.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { OrderDeposit, OrderDepositVanished } from './protocol/index.js';
import { createRouter } from './routing/index.js';
import type { AssetId, ChainName } from './assets/types.js';
import { openSqliteStore, type SqliteStore } from './store/index.js';
import { checkSeedFingerprint, withShardCount } from './store/data-set.js';
import type { ActorStore, KeyEntry } from './store/types.js';
import { createSimMarket, type SimMarket } from './venues/index.js';
import { openSimChains } from './chains/index.js';
import { openHybridChains } from './chains/hybrid-chains.js';
import { ConfigError } from './errors.js';
import { timeOrderedId } from './ids.js';
import { createVaultDirectory, createVaults, deriveAddressesAhead, directoryEntry, loadOrCreateSeed, recordingVaults, schemeOf, type VaultDirectory } from './vaults/index.js';
import { createMetrics, instrumentApp, instrumentBus, instrumentMarket, instrumentRouter, instrumentStore, meteredGuard, observeOrdersOf, type Metrics } from './metrics/index.js';

export interface EmbeddedService {
  appA: Koa;
  /** Family B (the gateway), served on ROUTER_PORT_B. */
  appB: Koa;
  /** Family C (typed currencies), served on ROUTER_PORT_C. */
  appC: Koa;
  /** The dev listener's app (simulated deposits, clock); null when ROUTER_DEV_LISTENER=off. Listen on loopback only. */
  devApp: Koa | null;
  /** The load shedding and rate limit the three apps share. */
  guard: EdgeGuard;
  chains: Chains;
  deposits: DepositFeed;
  bus: Bus;
  runtime: Runtime;
  store: SqliteStore;
  clock: ManualClock;
  /** This process's Prometheus registry, served as GET /metrics on the dev listener. */
  metrics: Metrics;
  /** Start taking messages, firing durable wake-ups, polling deposits and sweeping old quotes (the entry point
   *  runs it once, before it listens). */
  start(): Promise<void>;
  /** Stop taking messages, finish in-flight work, flush snapshots, close the store. */
  close(): Promise<void>;
}

/** What every actor host builds, embedded or worker: the simulated world, vaults, routing and the two actor kinds.
 *  `tell` reaches an order (through whatever bus the host uses) for the deposit feed. */
export async function composeActorHost(
  config: Config,
  deps: {
    store: ActorStore;
    clock: ManualClock;
    logger: Logger;
    tell: (id: string, command: OrderDeposit | OrderDepositVanished) => Promise<unknown>;
    /** Embedded mode only: generate the vault seed into the data dir when ROUTER_VAULT_SEED is unset. */
    generateSeed: boolean;
    /** Times quotes and venue answers when given. */
    metrics?: Metrics;
  },
): Promise<{ chains: SimChains; deposits: DepositFeed; kinds: AnyActorKindSpec[]; market: SimMarket; closeVaults: () => Promise<void> }> {
  const { store, clock, logger } = deps;
  const market = createSimMarket(config.sim);
  // The simulated ledger lives in `router.sqlite` of the data dir (beside the embedded store's tables, ledger_*), so
  // processes of one host share one simulated world.
  const sim = openSimChains({ file: join(config.dataDir, 'router.sqlite'), clock });
  const seed = await loadOrCreateSeed({ configured: config.vaultSeed, dataDir: config.dataDir, logger, allowGenerate: deps.generateSeed });
  await checkSeedFingerprint(store, seed.fingerprint);
  const ahead = config.deriveAhead > 0 ? deriveAddressesAhead(seed, { ahead: config.deriveAhead, logger }) : null;
  const drawn = createVaults({ seed, sequences: store, ...(ahead ? { ahead } : {}) });
  let vaults = drawn;
  let directory: VaultDirectory | null = null;
  let chains: SimChains = sim;
  const { rpc, treasuryKey, gasKey } = config.evm;
  if (Object.keys(rpc).length > 0) {
    // Real EVM chains: the simulated ledger stays the books, and sends from deposit addresses need their keys, found
    // from the address through the directory the vaults write before an address is shown.
    if (!treasuryKey || !gasKey) throw new ConfigError('ROUTER_EVM_RPC_* needs ROUTER_EVM_TREASURY_KEY and ROUTER_EVM_GAS_KEY.');
    const dir = createVaultDirectory({ seed, store });
    directory = dir;
    vaults = recordingVaults(vaults, dir);
    chains = openHybridChains({
      sim,
      rpc,
      store,
      treasuryKey: treasuryKey.reveal(),
      gasKey: gasKey.reveal(),
      depositAddresses: {
        has: async (address) => (await dir.indexOf('bip44-evm', address)) !== null,
        keyOf: (address) => dir.evmKeyOf(address),
      },
      requiredConfirmations: config.evm.confirmations,
      logger,
    });
  }
  const { metrics } = deps;
  const routed = createRouter({
    market: metrics ? instrumentMarket(market, metrics) : market,
    deadlines: config.routing.deadlines,
    pathLimit: config.routing.pathLimit,
    maxHops: config.routing.maxHops,
  });
  const router = metrics ? instrumentRouter(routed, metrics) : routed;
  const deposits = createDepositFeed({ chains, store, logger, tell: deps.tell });
  // An order's deposit address is shown only once these entries are stored: they are written with its first snapshot.
  const vaultKeys = (v: { chain: ChainName; index: number; address: string }, orderId: string, asset: AssetId): KeyEntry[] => [
    depositAddressEntry(v.chain, v.address, orderId, asset),
    ...(directory ? [directoryEntry({ scheme: schemeOf(v.chain), index: v.index, address: v.address })] : []),
  ];
  const kinds = [
    quoteKind({ router, prices: market, clock }),
    orderKind({
      clock, vaults, chains, market, router, policy: config.orders, limits: config.orders.maxDeposit, onVault: deposits.register,
      vaultAt: drawn, vaultKeys, logger,
    }),
  ];
  return { chains, deposits, kinds, market, closeVaults: async () => ahead?.close() };
}

export async function createEmbeddedService(
  config: Config,
  opts: { logger: Logger; clock?: ManualClock; newId?: () => string },
): Promise<EmbeddedService> {
  // The system clock, movable forward by the dev listener (POST /clock/advance) and resumed at the offset it reached.
  // A clock given by the caller (tests) is the caller's: its offset is neither read nor stored.
  const ownClock = opts.clock === undefined;
  const clock = opts.clock ?? new ManualClock();
  if (ownClock) clock.advance(readClockOffset(config.dataDir));
  const metrics = createMetrics({ role: 'embedded' });
  const rawStore = await withShardCount(openSqliteStore(join(config.dataDir, 'router.sqlite')), config.shards);
  const store = instrumentStore(rawStore, metrics);
  observeOrdersOf(store, metrics);
  const bus = instrumentBus(createInProcessBus(config.requestTimeoutMs, { verifyCodec: config.busVerifyCodec }), metrics);
  const { chains, deposits, kinds, market, closeVaults } = await composeActorHost(config, {
    store,
    clock,
    logger: opts.logger,
    tell: (id, command) => bus.request({ kind: 'order', id }, command),
    generateSeed: true,
    metrics,
  });
  const runtime = createRuntime({
    store, clock, logger: opts.logger, kinds, shards: config.shards, idleMs: config.cluster.idleMs,
    onPassivate: (ref) => metrics.actorsPassivated.inc({ kind: ref.kind }),
  });
  metrics.observeActorsInMemory(runtime.activeCount);
  const janitor = createQuoteJanitor({
    store, clock, logger: opts.logger, retentionMs: config.retention.quoteRetentionMs, idleMs: config.cluster.idleMs, everyMs: config.retention.sweepMs,
  });
  let stopServing: (() => Promise<void>) | null = null;
  let started: Promise<void> | null = null;
  // One guard for the three families: the cap is this process's, and a client is one client on any port.
  const guard = meteredGuard(metrics, (hooks) => createEdgeGuard(config.overload, hooks));
  // The quotes this process issued: an order made from one needs no round trip to read it back.
  const quotes = createIssuedQuotes();
  const appA = createApp({ bus, logger: opts.logger, newId: opts.newId ?? timeOrderedId, bodyLimitBytes: config.bodyLimitBytes, guard, quotes });
  // Without ROUTER_GATEWAY_SECRET, a secret generated once into the data dir (0600), so refund tokens survive restarts.
  const secret = await loadOrCreateGatewaySecret({ configured: config.gateway.secret, dataDir: config.dataDir, allowGenerate: true });
  const appB = createAppB({
    bus,
    logger: opts.logger,
    newId: opts.newId ?? timeOrderedId,
    gatewayId: config.gateway.id,
    secret,
    maxSlippageBps: config.gateway.maxSlippageBps,
    clock,
    guard,
    quotes,
  });
  const appC = createAppC({ bus, logger: opts.logger, newId: opts.newId ?? timeOrderedId, orders: store, secret, clock, guard, quotes });
  instrumentApp(appA, 'A', metrics);
  instrumentApp(appB, 'B', metrics);
  instrumentApp(appC, 'C', metrics);
  const devApp = config.dev.enabled
    ? createDevApp({
        logger: opts.logger,
        bodyLimitBytes: config.bodyLimitBytes,
        metrics: () => metrics.scrape(),
        async deposit({ asset, from, to, amount }) {
          const t = await chains.simulateDeposit({ chain: asset.chain, asset: asset.id, from, to, amount });
          await deposits.poll();
          return t;
        },
        unwind: (id) => bus.request({ kind: 'order', id }, { type: 'order.unwind' }),
        async haltVenue(venue, halted) {
          market.setHalted(venue, halted);
        },
        async advanceClock(ms) {
          if (ownClock) writeClockOffset(config.dataDir, clock.offsetMs + ms);
          clock.advance(ms);
          await runtime.fireDue();
          await deposits.poll();
          return { now: clock.now() };
        },
      })
    : null;
  return {
    appA,
    appB,
    appC,
    devApp,
    guard,
    chains,
    deposits,
    bus,
    runtime,
    store,
    clock,
    metrics,
    start() {
      // Once: a second call (or one made while the first runs) answers the first one's outcome.
      started ??= (async () => {
        // One process holds every actor: `quote.order` binds and creates here, without a second message.
        stopServing = await bus.serve(withOrderPlacement(runtime, { holds: () => true, bus, limits: config.orders.maxDeposit }));
        runtime.start();
        deposits.start(config.depositPollMs);
        janitor.start();
      })();
      return started;
    },
    async close() {
      await janitor.stop();
      await deposits.stop();
      await stopServing?.();
      await runtime.drain();
      await bus.close();
      await chains.close();
      await closeVaults();
      await store.close();
    },
  };
}
