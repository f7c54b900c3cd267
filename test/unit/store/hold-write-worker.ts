// A separate process for the SQLite tests: holds the write lock of a file for a while, as another process writing
// to it (or switching it to WAL) does. Usage: node --import tsx hold-write-worker.ts <file> <ms>; prints "held" once
// the lock is taken.
import Database from 'better-sqlite3';

const [file, ms] = process.argv.slice(2);
const db = new Database(file!);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\n');
await new Promise((resolve) => setTimeout(resolve, Number(ms)));
db.exec('COMMIT');
db.close();
