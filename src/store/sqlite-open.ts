// Opening a SQLite file that other processes of the host may open at the same moment (the store and the simulated
// chains share one file; a local cluster's processes share it too): private modes, WAL, and synchronous=FULL.
import type Database from 'better-sqlite3';
import { openPrivateDatabase, restrictSqliteFiles } from './private-files.js';

/** What a process sharing the file waits for another's lock by default, at open and at each statement. */
export const BUSY_TIMEOUT_MS = 5_000;

/** The pause before the `tries`-th new try of work that met a busy file: doubling from 2 ms, at most 50 ms. */
export const busyPauseMs = (tries: number): number => Math.min(50, 2 ** tries);

/** SQLITE_BUSY and its extended codes (…_RECOVERY, …_SNAPSHOT, …_TIMEOUT). */
export function isBusy(err: unknown): boolean {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('SQLITE_BUSY');
}

/**
 * Switches the file to WAL, waiting for another process's write to end. The switch reads the file's header, then
 * upgrades that read to a write; SQLite answers such an upgrade busy at once, without its busy handler (two
 * upgraders waiting on each other would deadlock), so several processes opening one rollback-journal file at once
 * would fail here. The wait blocks the thread: a file is opened before its process serves anything.
 */
function switchToWal(db: Database.Database, waitMs: number): void {
  const since = performance.now();
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 1; ; tries++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusy(err) || performance.now() - since >= waitMs) throw err;
      Atomics.wait(sleeper, 0, 0, busyPauseMs(tries));
    }
  }
}

/**
 * Opens `file` privately (private-files.ts) in WAL mode with synchronous=FULL (a commit has reached the disk when it
 * returns). `busyTimeoutMs` is what a statement waits for another process's lock, and the switch to WAL too.
 */
export function openWalDatabase(file: string, busyTimeoutMs = BUSY_TIMEOUT_MS): Database.Database {
  const db = openPrivateDatabase(file);
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  switchToWal(db, busyTimeoutMs);
  db.pragma('synchronous = FULL');
  // The WAL files exist now; SQLite gave them the database's mode, and older ones left readable are tightened.
  restrictSqliteFiles(file);
  return db;
}
