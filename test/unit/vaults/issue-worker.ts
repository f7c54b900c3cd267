// A second process for the vault tests: opens the shared SQLite file, issues vaults concurrently, prints them as JSON.
// Usage: node --import tsx issue-worker.ts <store file> <count> <chain,chain,...> (seed on stdin).
import { readFileSync } from 'node:fs';
import type { ChainName } from '../../../src/assets/types.js';
import { openSqliteStore } from '../../../src/store/index.js';
import { createVaults, parseSeed } from '../../../src/vaults/index.js';

const [file, count, chains] = process.argv.slice(2);
const seed = parseSeed(readFileSync(0, 'utf8'));
const store = openSqliteStore(file!);
const vaults = createVaults({ seed, sequences: store });
const list = chains!.split(',') as ChainName[];
const issued = await Promise.all(Array.from({ length: Number(count) }, (_, i) => vaults.issue(list[i % list.length]!)));
await store.close();
process.stdout.write(JSON.stringify(issued));
