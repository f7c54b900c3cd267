// The data dir holds the vault seed, every snapshot and the deposit-address map: only its owner may read it. The modes
// are set with chmod after creation, because the mode given to mkdir/open is narrowed by the process umask (a umask of
// 0277 would make a directory its owner cannot write) and chmod is not.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, constants as fsConstants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Files SQLite keeps beside a database: the write-ahead log, its shared-memory index, a rollback journal. */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Creates `dir` and its missing parents with mode 0700. A directory that already exists keeps its mode: it may be
 * a mount point or a directory an operator prepared, and the files in it are private on their own.
 */
export function ensurePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  // mkdirSync returns the first directory it created; every level from there down to `dir` is new.
  const top = resolve(first);
  const steps = relative(top, resolve(dir)).split(sep).filter((s) => s !== '');
  let path = top;
  chmodSync(path, PRIVATE_DIR_MODE);
  for (const step of steps) {
    path = join(path, step);
    chmodSync(path, PRIVATE_DIR_MODE);
  }
}

const isMissing = (err: unknown) => err instanceof Error && 'code' in err && err.code === 'ENOENT';

/**
 * Mode 0600 on `file` when it exists with any other permission bits. A file that is gone, before the stat or between
 * it and the chmod, is left alone: another process sharing the database deletes its rollback journal at each commit
 * and its -wal and -shm when it closes last.
 */
function restrict(file: string): void {
  try {
    if ((statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

/**
 * Mode 0600 on a SQLite database and the companions that exist now. SQLite creates a new -wal or -shm with the
 * database file's own permissions, so a database that is 0600 before it is opened keeps them private; this also
 * tightens files left readable by builds that did not set modes.
 */
export function restrictSqliteFiles(file: string): void {
  if (file === ':memory:') return;
  restrict(file);
  for (const suffix of SQLITE_COMPANIONS) restrict(`${file}${suffix}`);
}

/**
 * Opens a SQLite database file privately: its directory created 0700 when missing, the file created empty with 0600
 * before SQLite sees it (SQLite would create it 0644 minus the umask), existing files and companions set to 0600.
 * ':memory:' opens as it is.
 */
export function openPrivateDatabase(file: string): Database.Database {
  if (file === ':memory:') return new Database(file);
  ensurePrivateDir(dirname(file));
  try {
    // O_EXCL: a file another process created in the meantime is not truncated, and is restricted just below.
    closeSync(openSync(file, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  restrictSqliteFiles(file);
  return new Database(file);
}
