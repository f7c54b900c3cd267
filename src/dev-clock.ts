// The dev listener's clock offset (POST /clock/advance), kept in the data dir. Everything stored under the moved clock
// stays stored under it: the orders' deadlines and durable wake-ups, the simulated chains' blocks and the deposit
// feed's cursors. A restart that went back to the system time would leave those in the future: deposits made after it
// would sit in blocks not mined yet until the system time caught up. So a restart resumes at the offset reached.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'dev-clock-offset';

/** The offset stored in `dataDir`, 0 when none was; a file that is not a whole number of milliseconds >= 0 is refused. */
export function readClockOffset(dataDir: string): number {
  let text: string;
  try {
    text = readFileSync(join(dataDir, FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const offset = Number(text.trim());
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`${join(dataDir, FILE)} holds ${JSON.stringify(text.trim())}, not a clock offset in milliseconds.`);
  }
  return offset;
}

/** Stores the offset durably before the clock moves (written aside, synced, then renamed over the old one). */
export function writeClockOffset(dataDir: string, offset: number): void {
  const path = join(dataDir, FILE);
  const aside = `${path}.tmp`;
  const fd = openSync(aside, 'w');
  try {
    writeSync(fd, `${offset}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(aside, path);
  // The rename itself is durable once the directory is synced.
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
