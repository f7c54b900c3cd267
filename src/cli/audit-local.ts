// `router admin audit --data-dir <dir>`: the audit run in this process over an embedded data dir's `router.sqlite`
// (the store's tables and the simulated ledger's `ledger_*`), with the service stopped or running: SQLite in WAL mode
// lets this reader see committed state beside the service's writer, and the audit only reads. A composition root
// (it imports actors/, see eslint.config.js), loaded by `router admin` only when --data-dir is given.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runAudit } from '../../actors/audit.js';
import { openSimChains } from '../chains/index.js';
import { ManualClock } from '../clock.js';
import { auditJson, type AuditReport } from '../orders/audit.js';
import { openSqliteStore } from '../store/index.js';
import type { CliIo } from './admin.js';
import { auditExitCode, renderAudit } from './audit.js';

export class NoDataDir extends Error {}

/** `router admin audit --data-dir <dir> [--json]`: prints the audit; exit 0 clean, 1 not clean, 2 no data dir. */
export async function runLocalAudit(dir: string, opts: { json: boolean }, io: CliIo): Promise<number> {
  let report: AuditReport;
  try {
    report = await auditDataDir(dir);
  } catch (e) {
    if (!(e instanceof NoDataDir)) throw e;
    io.err(e.message);
    return 2;
  }
  const json = auditJson(report);
  io.out(opts.json ? JSON.stringify(json) : renderAudit(json));
  return auditExitCode(json);
}

export async function auditDataDir(dir: string): Promise<AuditReport> {
  const file = join(dir, 'router.sqlite');
  // Opening a missing file would create an empty data dir and audit it clean: refuse instead.
  if (!existsSync(file)) throw new NoDataDir(`${file} does not exist: --data-dir names the ROUTER_DATA_DIR of an embedded service.`);
  const store = openSqliteStore(file);
  // pollMs 0: no watch timer; the audit reads transfers and balances only.
  const chains = openSimChains({ file, clock: new ManualClock(), pollMs: 0 });
  try {
    return await runAudit({ store, chains });
  } finally {
    await chains.close();
    await store.close();
  }
}
