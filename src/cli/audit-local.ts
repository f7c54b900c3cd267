// `router admin audit --data-dir <dir>`: the audit run in this process over an embedded data dir's `router.sqlite`
// (the store's tables and the simulated ledger's `ledger_*`), with the service stopped or running: SQLite in WAL mode
// lets this reader see committed state beside the service's writer, and the audit only reads. With the service's
// ROUTER_EVM_* settings (the same variables, read by config.ts) the chains they name are read from their nodes too:
// each deposit address's on-chain balance and the treasury and gas account beside the books, as the service's own
// audit does. Loaded by `router admin` only when --data-dir is given.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runAudit } from '../orders/audit-run.js';
import { openHybridChains } from '../chains/hybrid-chains.js';
import { openSimChains } from '../chains/index.js';
import type { SimChains } from '../chains/types.js';
import { ManualClock } from '../clock.js';
import { loadEvmConfig } from '../config.js';
import { ConfigError, InvalidRequest } from '../errors.js';
import { auditJson, type AuditReport } from '../orders/audit.js';
import { openSqliteStore } from '../store/index.js';
import type { ActorStore } from '../store/types.js';
import type { CliIo } from './admin.js';
import { auditExitCode, renderAudit } from './audit.js';

export class NoDataDir extends Error {}

type Env = Record<string, string | undefined>;

/** `router admin audit --data-dir <dir> [--json]`: prints the audit; exit 0 clean, 1 not clean, 2 no data dir or a
 *  bad ROUTER_EVM_* setting. */
export async function runLocalAudit(dir: string, opts: { json: boolean; env?: Env }, io: CliIo): Promise<number> {
  let report: AuditReport;
  try {
    report = await auditDataDir(dir, opts.env);
  } catch (e) {
    if (!(e instanceof NoDataDir) && !(e instanceof ConfigError)) throw e;
    io.err(e.message);
    return 2;
  }
  const json = auditJson(report);
  io.out(opts.json ? JSON.stringify(json) : renderAudit(json));
  return auditExitCode(json);
}

export async function auditDataDir(dir: string, env?: Env): Promise<AuditReport> {
  const file = join(dir, 'router.sqlite');
  // Opening a missing file would create an empty data dir and audit it clean: refuse instead.
  if (!existsSync(file)) throw new NoDataDir(`${file} does not exist: --data-dir names the ROUTER_DATA_DIR of an embedded service.`);
  const evm = env ? loadEvmConfig(env) : loadEvmConfig();
  const store = openSqliteStore(file);
  // pollMs 0: no watch timer; the audit reads transfers and balances only.
  const sim = openSimChains({ file, clock: new ManualClock(), pollMs: 0 });
  try {
    return await runAudit({ store, chains: auditChains(sim, store, evm) });
  } finally {
    await sim.close();
    await store.close();
  }
}

/** The simulated books alone, or with the real chains the settings name: read through the same adapter the service
 *  uses, which the audit never asks to scan or send. */
function auditChains(sim: SimChains, store: ActorStore, evm: ReturnType<typeof loadEvmConfig>): SimChains {
  if (Object.keys(evm.rpc).length === 0) return sim;
  // loadEvmConfig refuses ROUTER_EVM_RPC_* without both keys; the audit needs them for the two addresses only.
  if (!evm.treasuryKey || !evm.gasKey) throw new ConfigError('ROUTER_EVM_RPC_* needs ROUTER_EVM_TREASURY_KEY and ROUTER_EVM_GAS_KEY.');
  const readOnly = (): never => {
    throw new InvalidRequest('The audit reads the chains: it neither scans for deposits nor signs.');
  };
  return openHybridChains({
    sim,
    rpc: evm.rpc,
    store,
    treasuryKey: evm.treasuryKey.reveal(),
    gasKey: evm.gasKey.reveal(),
    depositAddresses: { has: async () => readOnly(), keyOf: async () => readOnly() },
    requiredConfirmations: evm.confirmations,
    pollMs: 0,
  });
}
