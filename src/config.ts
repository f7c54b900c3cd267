// The one typed config, built from an injected environment at start. Absent = default; present but invalid
// stops the start with a ConfigError naming the variable. Nothing else in the service reads process.env.
import { ConfigError } from './errors.js';
import { parseSeed, type MasterSeed } from './vaults/seed.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Dev listener (loopback only): ROUTER_DEV_LISTENER on|off (default on, embedded mode), ROUTER_DEV_PORT (8090). */
  dev: { enabled: boolean; port: number };
  /** How often the deposit watcher scans the chains (ROUTER_DEPOSIT_POLL_MS, default 1000). */
  depositPollMs: number;
  /** Where Family A listens (ROUTER_PORT_A, default 8080) and on which address (ROUTER_HOST, default 0.0.0.0). */
  portA: number;
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
  /** Shards of the actor space (ROUTER_SHARDS, default 128). */
  shards: number;
  /** ROUTER_VAULT_SEED (BIP-39 mnemonic or 64-byte hex), parsed at once so the text never sits in the config;
   *  null = embedded mode generates `<dataDir>/vault-seed` on first start. */
  vaultSeed: MasterSeed | null;
  orders: {
    /** ROUTER_ORDER_MAX_ATTEMPTS, default 5: attempts of one step before the order is stalled. */
    maxAttempts: number;
    /** ROUTER_ORDER_BACKOFF_MS, default 2000: first retry delay, doubling. */
    backoffMs: number;
    /** ROUTER_ORDER_SHORTFALL_TOLERANCE_BPS, default 100: a step re-priced this far below its quote freezes the order. */
    shortfallToleranceBps: number;
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

function str(env: Env, name: string, dflt: string): string {
  const raw = env[name];
  if (raw === undefined) return dflt;
  if (raw.trim() === '') throw new ConfigError(`${name} must not be blank.`);
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  return {
    portA: int(env, 'ROUTER_PORT_A', 8080, 0, 65535),
    dev: {
      enabled: oneOf(env, 'ROUTER_DEV_LISTENER', 'on', ['on', 'off']) === 'on',
      port: int(env, 'ROUTER_DEV_PORT', 8090, 0, 65535),
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
    shards: int(env, 'ROUTER_SHARDS', 128, 1, 65_536),
    vaultSeed: env.ROUTER_VAULT_SEED === undefined || env.ROUTER_VAULT_SEED === '' ? null : parseSeed(env.ROUTER_VAULT_SEED),
    orders: {
      maxAttempts: int(env, 'ROUTER_ORDER_MAX_ATTEMPTS', 5, 1, 100),
      backoffMs: int(env, 'ROUTER_ORDER_BACKOFF_MS', 2000, 1, 3_600_000),
      shortfallToleranceBps: int(env, 'ROUTER_ORDER_SHORTFALL_TOLERANCE_BPS', 100, 0, 10_000),
    },
  };
}
