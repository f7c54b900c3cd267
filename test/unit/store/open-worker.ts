// A separate process for the SQLite tests: opens the shared file (running its migration) and saves one quote.
// Usage: node --import tsx open-worker.ts <store file> <quote id>
import { openSqliteStore } from '../../../src/store/sqlite-store.js';

const [file, id] = process.argv.slice(2);
const store = openSqliteStore(file!);
await store.save({ kind: 'quote', id: id!, snapshot: {}, expectedVersion: 0, epoch: 0, wakeAt: null, updatedAt: 1, status: 'quoted' });
await store.close();
