// The SQLite adapter against the store contract, on a fresh file per test, plus what only a file can show.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { storeContract } from './store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeContract('SQLite', async () => openSqliteStore(join(dir, `s${n++}.sqlite`)));

describe('SQLite store: what was saved survives closing and reopening the file', () => {
  it('reopens with the same snapshot and version', async () => {
    const file = join(dir, 'reopen.sqlite');
    const a = openSqliteStore(file);
    expect(await a.nextSequence('vault:evm')).toBe(0);
    await a.save({ kind: 'order', id: 'x', snapshot: { amount: 5n }, expectedVersion: 0, epoch: 0, wakeAt: 10, updatedAt: 1 });
    await a.close();
    const b = openSqliteStore(file);
    await a.close().catch(() => {});
    expect(await b.load('order', 'x')).toMatchObject({ version: 1, snapshot: { amount: 5n }, wakeAt: 10 });
    expect(await b.nextSequence('vault:evm')).toBe(1);
    await b.close();
  });
});
