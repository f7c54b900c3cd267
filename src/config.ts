// The one typed config, built from an injected environment at start. Absent = default; present but invalid
// stops the start with a ConfigError naming the variable. Nothing else in the service reads process.env.
import { inspect } from 'node:util';
import { CHAINS } from './assets/chains.js';
import { CHAIN_NAMES, type ChainName } from './assets/types.js';
import { ConfigError } from './errors.js';
import { parseDepositLimits, type DepositLimits } from './orders/limits.js';
import { mongoDatabaseOf, mongoDatabaseProblem } from './store/mongo-url.js';
import { parseSeed, type MasterSeed } from './vaults/seed.js';
import { VENUE_IDS, type VenueId } from './venues/types.js';

/**
 * A private key from the environment (0x + 64 hex). The text sits in a private field, so JSON, String() and
 * util.inspect of the config never show it; only the code that signs calls `reveal()`.
 */
export class SecretKey {
  readonly #hex: `0x${string}`;
  constructor(hex: `0x${string}`) {
    this.#hex = hex;
    Object.freeze(this);
  }
  reveal(): `0x${string}` {
    return this.#hex;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return 'SecretKey [redacted]';
  }
  [inspect.custom](): string {
    return this.toString();
  }
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Dev listener (loopback only): ROUTER_DEV_LISTENER on|off (default on, embedded mode), ROUTER_DEV_PORT (8090). */
  dev: { enabled: boolean; port: number; requested: boolean };
  /** How often the deposit watcher scans the chains (ROUTER_DEPOSIT_POLL_MS, default 1000). */
  depositPollMs: number;
  /** Where Family A listens (ROUTER_PORT_A, default 8080) and on which address (ROUTER_HOST, default 0.0.0.0). */
  portA: number;
  /** Where Family B, the gateway, listens (ROUTER_PORT_B, default 8081), on the same ROUTER_HOST. */
  portB: number;
  /** Where Family C listens (ROUTER_PORT_C, default 8082), on the same ROUTER_HOST. */
  portC: number;
  host: string;
  /** SQLite file and, later, the embedded vault seed live here (ROUTER_DATA_DIR, default ./data). */
  dataDir: string;
  logLevel: LogLevel;
  /** Largest accepted request body in bytes (ROUTER_BODY_LIMIT_BYTES, default 65536); larger → 413. */
  bodyLimitBytes: number;
  sim: {
    /** ROUTER_SIM_SEED, integer, default 1. */
    seed: number;
    /** ROUTER_SIM_LATENCY_SCALE, number ≥ 0, default 1; 0 = venues answer at once. */
    latencyScale: number;
    /** ROUTER_SIM_FAILURES, on|off, default on: off removes random venue failures and timeouts. */
    failures: boolean;
    /** ROUTER_SIM_SILENT_VENUES, comma-separated venue ids, default none: these venues never answer a quote (every
     *  quote times out), to see a deadline at work in benchmarks and demos. */
    silent: VenueId[];
  };
  routing: {
    /** Per-venue deadlines in ms; the spec fixes 1500 and 10000. Overridable only so tests need not wait 10 s. */
    deadlines: { fast: number; optimal: number };
    /** ROUTER_MULTIHOP_PATH_LIMIT, default 64: paths enumerated before `complete: false`. */
    pathLimit: number;
    /** ROUTER_MULTIHOP_MAX_HOPS, default 3. */
    maxHops: number;
  };
  /** How long the edge waits for an actor's reply (ROUTER_REQUEST_TIMEOUT_MS, default 45000: above the worst optimal multi-hop quote, 3 hops × 10 s). */
  requestTimeoutMs: number;
  /** How long a client has to send a whole request, headers and body (ROUTER_HTTP_READ_TIMEOUT_MS, default 30000): a
   *  slower one is answered 408 and its connection closed, so slow senders cannot hold connections for Node's default
   *  five minutes. */
  httpReadTimeoutMs: number;
  /** ROUTER_BUS_VERIFY_CODEC (on | off, default off): embedded mode's bus checks every actor request and reply
   *  survives the NATS codec unchanged, at about a millisecond per quote with candidates; the test suite turns it on. */
  busVerifyCodec: boolean;
  /** Shards of the actor space (ROUTER_SHARDS, default 128). */
  shards: number;
  /** ROUTER_VAULT_SEED (BIP-39 mnemonic or 64-byte hex), parsed at once so the text never sits in the config;
   *  null = embedded mode generates `<dataDir>/vault-seed` on first start. */
  vaultSeed: MasterSeed | null;
  /** Deposit addresses a worker thread derives ahead of the vault counters (ROUTER_DERIVE_AHEAD, default 64; 0 = none:
   *  every address is derived on the event loop, inside its order's creation). */
  deriveAhead: number;
  /** Cluster mode (`worker`, `edge`, `router admin`): where NATS is and who we are to it. */
  nats: {
    /** ROUTER_NATS_URL, default nats://127.0.0.1:4222 (comma-separated list allowed). */
    servers: string[];
    /** ROUTER_NATS_USER / ROUTER_NATS_PASSWORD; default none. nats.conf defines router, worker and admin. */
    user: string | null;
    pass: string | null;
  };
  cluster: {
    /** ROUTER_WORKER_ID, default `<hostname>-<pid>`: a worker's name in leases and the admin service. */
    workerId: string | null;
    /** ROUTER_LEASE_TTL_MS, default 10000: renewed every third of it; a dead worker's shards move once its leases expire,
     *  at a live worker's next round: after at most about 4/3 of it. */
    leaseTtlMs: number;
    /** ROUTER_EDGE_RETRY_MS, default 3000: how long the edge retries "no responders" (a shard moving) before 503. */
    edgeRetryMs: number;
    /** ROUTER_IDLE_MS, default 120000: an actor idle this long leaves memory (passivation). */
    idleMs: number;
    /** ROUTER_CLUSTER_WORKERS, default 2: workers `npm run cluster` starts. */
    localWorkers: number;
  };
  /** ROUTER_STORE sqlite|mongodb (default sqlite; mongodb when MONGODB_URL is set and ROUTER_STORE is absent). */
  store: { kind: 'sqlite' | 'mongodb'; mongodbUrl: string | null };
  /** Family B (the gateway). */
  gateway: {
    /** ROUTER_GATEWAY_ID, default `swap-router`: the `gateway` field of the EIP-712 CancelOrder message. */
    id: string;
    /** ROUTER_GATEWAY_SECRET (at least 32 characters): key of the refund tokens. Null = embedded mode generates
     *  `<dataDir>/gateway-secret` once; an edge in cluster mode refuses to start without it. */
    secret: string | null;
    /** ROUTER_MAX_SLIPPAGE_BPS, default 100 (1 %): minOut = estimatedOut × (10000 − this) / 10000. */
    maxSlippageBps: number;
  };
  orders: {
    /** ROUTER_ORDER_MAX_ATTEMPTS, default 5: attempts of one step before the order is stalled. */
    maxAttempts: number;
    /** ROUTER_ORDER_BACKOFF_MS, default 2000: first retry delay, doubling. */
    backoffMs: number;
    /** ROUTER_ORDER_SHORTFALL_TOLERANCE_BPS, default 100: a step re-priced this far below its quote freezes the order. */
    shortfallToleranceBps: number;
    /** ROUTER_ORDER_MAX_DEPOSIT, default none: per source asset, the most one order takes in (`base.usdc=100000,…`,
     *  whole units). An order for more is refused (400); deposits adding up to more freeze the order. */
    maxDeposit: DepositLimits;
  };
  /** Prometheus metrics (GET /metrics). Embedded mode serves them on the dev listener; a worker or an edge on its own
   *  port, ROUTER_METRICS_PORT (default 9464; 0 = any free port; `off` = not served), on ROUTER_HOST. */
  metrics: { port: number | null };
  /** What one process takes before it refuses work, so a flood cannot starve `/health` or the answers in flight. */
  overload: {
    /** ROUTER_MAX_QUOTES_IN_FLIGHT, default 64 (0 = no cap): POST /quote requests of all families in flight in this
     *  process (embedded service or edge); one more is answered at once with 503 and Retry-After. */
    maxQuotesInFlight: number;
    /** ROUTER_SHED_RETRY_AFTER_S, default 1: the Retry-After (seconds) of a shed quote. */
    shedRetryAfterSeconds: number;
    /** ROUTER_SHED_EVENT_LOOP_DELAY_MS, default 40 (0 = off): quotes are also shed while the event loop is kept
     *  later than this (the least late of its last five 20 ms ticks). */
    maxEventLoopDelayMs: number;
    /** ROUTER_SHED_ADMISSIONS_PER_TURN, default 0 = no bound: quotes admitted in one turn of the event loop at most;
     *  a burst beyond it (many connections sending at once) is shed before its CPU work can pile up. Off by default:
     *  on an idle machine it would also refuse a burst of clients the process could serve. */
    maxAdmissionsPerTurn: number;
    /** ROUTER_SHED_TURN_BUDGET_MS, default 25 (0 = no budget): once one turn of the event loop has run this long
     *  since it admitted its first quote, its quotes past the 16th are shed; unlike a count, it adapts to what a quote costs on
     *  the machine, so a burst fills the turn until /health would wait too long and no further. Measured with 4× the
     *  cap of CPU-bound quotes: /health's median 68 ms with it, 4.4 s without (bench/README.md, bench:overload). */
    maxTurnMs: number;
    /** Per-client token bucket by remote address, null when off (ROUTER_RATE_LIMIT_PER_MINUTE unset or 0, the
     *  default): requests per minute refilled, ROUTER_RATE_LIMIT_BURST (default 20) held at most,
     *  ROUTER_RATE_LIMIT_CLIENTS (default 100000) addresses tracked at most. Beyond it: 429 with Retry-After. */
    rateLimit: { perMinute: number; burst: number; maxClients: number } | null;
  };
  /** Quotes never bound to an order leave the store ROUTER_QUOTE_RETENTION_MS (default 3600000) after they expire,
   *  swept every ROUTER_QUOTE_SWEEP_MS (default 60000). A bound quote is kept: its order needs it. */
  retention: { quoteRetentionMs: number; sweepMs: number };
  /** Real EVM chains: every chain absent from `rpc` stays on the simulated ledger. */
  evm: {
    /** ROUTER_EVM_RPC_<CHAIN> (e.g. ROUTER_EVM_RPC_BASE), an http(s) JSON-RPC URL per registry EVM chain. */
    rpc: Partial<Record<ChainName, string>>;
    /** ROUTER_EVM_TREASURY_KEY: the address holding the router's money on real chains (pools, holdings, fees). */
    treasuryKey: SecretKey | null;
    /** ROUTER_EVM_GAS_KEY: the address paying gas for sends from deposit addresses. */
    gasKey: SecretKey | null;
    /** ROUTER_EVM_CONFIRMATIONS_<CHAIN> (1–1000): confirmations a deposit on that real chain needs before it is
     *  spent or refunded; absent = the registry's figure (REQUIRED_CONFIRMATIONS). */
    confirmations: Partial<Record<ChainName, number>>;
  };
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}".`);
  const v = Number(raw.trim());
  if (v < min || v > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}".`);
  return v;
}

function num(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(v) || v < min || v > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}".`);
  }
  return v;
}

function oneOf<T extends string>(env: Env, name: string, dflt: T, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = raw.trim().toLowerCase() as T;
  if (!values.includes(v)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}".`);
  return v;
}

function venueList(env: Env, name: string): VenueId[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const ids: VenueId[] = [];
  for (const part of raw.split(',')) {
    const id = VENUE_IDS.find((v) => v === part.trim());
    if (id === undefined) throw new ConfigError(`${name} must list venue ids (${VENUE_IDS.join(', ')}), got "${part.trim()}".`);
    ids.push(id);
  }
  return ids;
}

function str(env: Env, name: string, dflt: string): string {
  const raw = env[name];
  if (raw === undefined) return dflt;
  if (raw.trim() === '') throw new ConfigError(`${name} must not be blank.`);
  return raw;
}

/** ROUTER_METRICS_PORT: a port, or `off`. Workers on one host need one port each (`npm run cluster` assigns them). */
function metricsPort(env: Env): number | null {
  const raw = env.ROUTER_METRICS_PORT;
  if (raw !== undefined && raw.trim().toLowerCase() === 'off') return null;
  return int(env, 'ROUTER_METRICS_PORT', 9464, 0, 65535);
}

function workerId(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ConfigError(`ROUTER_WORKER_ID must be 1-64 characters of A-Z a-z 0-9 _ -, got "${raw}".`);
  return raw;
}

function gatewayId(raw: string): string {
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new ConfigError(`ROUTER_GATEWAY_ID must be 1-64 characters of A-Z a-z 0-9 . _ : -, got "${raw}".`);
  return raw;
}

/** A short key would make refund tokens guessable offline; the value is never repeated in the message. */
function gatewaySecret(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length < 32) throw new ConfigError(`ROUTER_GATEWAY_SECRET must be at least 32 characters (it has ${raw.length}; value not shown).`);
  return raw;
}

function storeConfig(env: Env): Config['store'] {
  const url = env.MONGODB_URL ? env.MONGODB_URL : null;
  const kind = oneOf(env, 'ROUTER_STORE', url ? 'mongodb' : 'sqlite', ['sqlite', 'mongodb'] as const);
  if (kind === 'mongodb' && !url) throw new ConfigError('ROUTER_STORE=mongodb needs MONGODB_URL.');
  if (url && !/^mongodb(\+srv)?:\/\//.test(url)) throw new ConfigError('MONGODB_URL must start with mongodb:// or mongodb+srv://.');
  if (url) {
    // Without a database the driver silently uses `test`: workers configured with and without one would split the
    // actors over two databases. The message shows the name, never the URL (it may carry a password).
    const db = mongoDatabaseOf(url);
    if (db === null) throw new ConfigError('MONGODB_URL must name a database (mongodb://host/<database>?options).');
    const problem = mongoDatabaseProblem(db);
    if (problem !== null) throw new ConfigError(`MONGODB_URL names the database "${db}", which ${problem}.`);
  }
  return { kind, mongodbUrl: url };
}

/** The EVM chains of the registry, in registry order: the ones ROUTER_EVM_RPC_<CHAIN> may name. */
const EVM_CHAINS: readonly ChainName[] = CHAIN_NAMES.filter((c) => CHAINS[c].kind === 'evm');
const RPC_PREFIX = 'ROUTER_EVM_RPC_';
const CONFIRMATIONS_PREFIX = 'ROUTER_EVM_CONFIRMATIONS_';

/** A URL may carry an API key, so messages name the variable, never the value. */
function rpcUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (value not shown).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL (value not shown).`);
  return raw.trim();
}

function secretKey(env: Env, name: string): SecretKey | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim())) throw new ConfigError(`${name} must be a private key: 0x and 64 hex digits (value not shown).`);
  return new SecretKey(raw.trim() as `0x${string}`);
}

/** The real-chain part of the config alone (`router admin audit --data-dir` reads the chains of the service it
 *  audits, nothing else of its settings). */
export function loadEvmConfig(env: Env = process.env): Config['evm'] {
  return evmConfig(env);
}

function evmConfig(env: Env): Config['evm'] {
  const rpc: Partial<Record<ChainName, string>> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(RPC_PREFIX) || raw === undefined || raw === '') continue;
    const chain = EVM_CHAINS.find((c) => `${RPC_PREFIX}${c.toUpperCase()}` === name);
    // A misspelt chain would otherwise leave that chain simulated without a word.
    if (!chain) throw new ConfigError(`${name} names no EVM chain; use one of ${EVM_CHAINS.map((c) => RPC_PREFIX + c.toUpperCase()).join(', ')}.`);
    rpc[chain] = rpcUrl(name, raw);
  }
  const treasuryKey = secretKey(env, 'ROUTER_EVM_TREASURY_KEY');
  const gasKey = secretKey(env, 'ROUTER_EVM_GAS_KEY');
  const missing = [treasuryKey ? null : 'ROUTER_EVM_TREASURY_KEY', gasKey ? null : 'ROUTER_EVM_GAS_KEY'].filter((n) => n !== null);
  if (Object.keys(rpc).length > 0 && missing.length > 0) {
    throw new ConfigError(`${Object.keys(rpc).map((c) => RPC_PREFIX + c.toUpperCase()).join(', ')} needs ${missing.join(' and ')}: the router signs its sends on a real chain with them.`);
  }
  const confirmations: Partial<Record<ChainName, number>> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(CONFIRMATIONS_PREFIX) || raw === undefined || raw === '') continue;
    const chain = EVM_CHAINS.find((c) => `${CONFIRMATIONS_PREFIX}${c.toUpperCase()}` === name);
    if (!chain) throw new ConfigError(`${name} names no EVM chain; use one of ${EVM_CHAINS.map((c) => CONFIRMATIONS_PREFIX + c.toUpperCase()).join(', ')}.`);
    confirmations[chain] = int(env, name, 1, 1, 1000);
  }
  return { rpc, treasuryKey, gasKey, confirmations };
}

/** The environment a process started by this one gets: this one's (PATH, NODE_OPTIONS, its ROUTER_* settings),
 *  unread here, with `extra` on top. The child reads its own settings through loadConfig. */
export function childEnvironment(extra: Readonly<Record<string, string>>): Env {
  return { ...process.env, ...extra };
}

export function loadConfig(env: Env = process.env): Config {
  return {
    portA: int(env, 'ROUTER_PORT_A', 8080, 0, 65535),
    portB: int(env, 'ROUTER_PORT_B', 8081, 0, 65535),
    portC: int(env, 'ROUTER_PORT_C', 8082, 0, 65535),
    dev: {
      enabled: oneOf(env, 'ROUTER_DEV_LISTENER', 'on', ['on', 'off']) === 'on',
      port: int(env, 'ROUTER_DEV_PORT', 8090, 0, 65535),
      // Edges run the dev listener only when asked for explicitly (ROUTER_DEV_LISTENER=on).
      requested: oneOf(env, 'ROUTER_DEV_LISTENER', 'off', ['on', 'off']) === 'on',
    },
    depositPollMs: int(env, 'ROUTER_DEPOSIT_POLL_MS', 1000, 10, 600_000),
    host: str(env, 'ROUTER_HOST', '0.0.0.0'),
    dataDir: str(env, 'ROUTER_DATA_DIR', './data'),
    logLevel: oneOf<LogLevel>(env, 'ROUTER_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    bodyLimitBytes: int(env, 'ROUTER_BODY_LIMIT_BYTES', 65536, 256, 16 * 1024 * 1024),
    sim: {
      seed: int(env, 'ROUTER_SIM_SEED', 1, 0, 2 ** 32 - 1),
      latencyScale: num(env, 'ROUTER_SIM_LATENCY_SCALE', 1, 0, 100),
      failures: oneOf(env, 'ROUTER_SIM_FAILURES', 'on', ['on', 'off']) === 'on',
      silent: venueList(env, 'ROUTER_SIM_SILENT_VENUES'),
    },
    routing: {
      deadlines: {
        fast: int(env, 'ROUTER_DEADLINE_FAST_MS', 1500, 1, 60_000),
        optimal: int(env, 'ROUTER_DEADLINE_OPTIMAL_MS', 10_000, 1, 60_000),
      },
      pathLimit: int(env, 'ROUTER_MULTIHOP_PATH_LIMIT', 64, 1, 10_000),
      maxHops: int(env, 'ROUTER_MULTIHOP_MAX_HOPS', 3, 2, 4),
    },
    requestTimeoutMs: int(env, 'ROUTER_REQUEST_TIMEOUT_MS', 45_000, 100, 600_000),
    httpReadTimeoutMs: int(env, 'ROUTER_HTTP_READ_TIMEOUT_MS', 30_000, 1_000, 600_000),
    busVerifyCodec: oneOf(env, 'ROUTER_BUS_VERIFY_CODEC', 'off', ['on', 'off']) === 'on',
    shards: int(env, 'ROUTER_SHARDS', 128, 1, 65_536),
    vaultSeed: env.ROUTER_VAULT_SEED === undefined || env.ROUTER_VAULT_SEED === '' ? null : parseSeed(env.ROUTER_VAULT_SEED),
    deriveAhead: int(env, 'ROUTER_DERIVE_AHEAD', 64, 0, 4096),
    nats: {
      servers: str(env, 'ROUTER_NATS_URL', 'nats://127.0.0.1:4222').split(',').map((u) => u.trim()).filter(Boolean),
      user: env.ROUTER_NATS_USER ? env.ROUTER_NATS_USER : null,
      pass: env.ROUTER_NATS_PASSWORD ? env.ROUTER_NATS_PASSWORD : null,
    },
    cluster: {
      workerId: env.ROUTER_WORKER_ID ? workerId(env.ROUTER_WORKER_ID) : null,
      leaseTtlMs: int(env, 'ROUTER_LEASE_TTL_MS', 10_000, 1000, 600_000),
      edgeRetryMs: int(env, 'ROUTER_EDGE_RETRY_MS', 3000, 0, 60_000),
      idleMs: int(env, 'ROUTER_IDLE_MS', 120_000, 100, 86_400_000),
      localWorkers: int(env, 'ROUTER_CLUSTER_WORKERS', 2, 1, 64),
    },
    store: storeConfig(env),
    gateway: {
      id: gatewayId(str(env, 'ROUTER_GATEWAY_ID', 'swap-router')),
      secret: gatewaySecret(env.ROUTER_GATEWAY_SECRET),
      maxSlippageBps: int(env, 'ROUTER_MAX_SLIPPAGE_BPS', 100, 0, 10_000),
    },
    orders: {
      maxAttempts: int(env, 'ROUTER_ORDER_MAX_ATTEMPTS', 5, 1, 100),
      backoffMs: int(env, 'ROUTER_ORDER_BACKOFF_MS', 2000, 1, 3_600_000),
      shortfallToleranceBps: int(env, 'ROUTER_ORDER_SHORTFALL_TOLERANCE_BPS', 100, 0, 10_000),
      maxDeposit: parseDepositLimits('ROUTER_ORDER_MAX_DEPOSIT', env.ROUTER_ORDER_MAX_DEPOSIT),
    },
    metrics: { port: metricsPort(env) },
    overload: {
      maxQuotesInFlight: int(env, 'ROUTER_MAX_QUOTES_IN_FLIGHT', 64, 0, 1_000_000),
      shedRetryAfterSeconds: int(env, 'ROUTER_SHED_RETRY_AFTER_S', 1, 1, 3600),
      maxEventLoopDelayMs: int(env, 'ROUTER_SHED_EVENT_LOOP_DELAY_MS', 40, 0, 60_000),
      maxAdmissionsPerTurn: int(env, 'ROUTER_SHED_ADMISSIONS_PER_TURN', 0, 0, 1_000_000),
      maxTurnMs: int(env, 'ROUTER_SHED_TURN_BUDGET_MS', 25, 0, 60_000),
      rateLimit: rateLimitConfig(env),
    },
    retention: {
      quoteRetentionMs: int(env, 'ROUTER_QUOTE_RETENTION_MS', 3_600_000, 0, 365 * 86_400_000),
      sweepMs: int(env, 'ROUTER_QUOTE_SWEEP_MS', 60_000, 100, 86_400_000),
    },
    evm: evmConfig(env),
  };
}

/** Off unless a rate is given: the peers this API mirrors allow about 120 requests a minute, but a router behind a
 *  proxy sees one address for every client, so the operator must choose. */
function rateLimitConfig(env: Env): Config['overload']['rateLimit'] {
  const perMinute = int(env, 'ROUTER_RATE_LIMIT_PER_MINUTE', 0, 0, 6_000_000);
  const burst = int(env, 'ROUTER_RATE_LIMIT_BURST', 20, 1, 1_000_000);
  const maxClients = int(env, 'ROUTER_RATE_LIMIT_CLIENTS', 100_000, 1, 10_000_000);
  return perMinute === 0 ? null : { perMinute, burst, maxClients };
}

/**
 * `npm run devnet`: the loopback port of each devnet chain's anvil node, ROUTER_DEVNET_PORT_<CHAIN> (e.g.
 * ROUTER_DEVNET_PORT_BASE) or the given default. Kept apart from loadConfig: only the devnet starts nodes.
 */
export function loadDevnetPorts<C extends ChainName>(defaults: Readonly<Record<C, number>>, env: Env = process.env): Record<C, number> {
  const out = {} as Record<C, number>;
  for (const [chain, port] of Object.entries(defaults) as Array<[C, number]>) {
    out[chain] = int(env, `ROUTER_DEVNET_PORT_${chain.toUpperCase()}`, port, 1, 65535);
  }
  return out;
}
