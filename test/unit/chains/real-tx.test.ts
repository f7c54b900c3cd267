// The map between bookkeeping keys and real transactions, alone over SQLite in memory.
import { describe, expect, it } from 'vitest';
import { REAL_TX_SPACE, RealTxMap } from '../../../src/chains/real-tx.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { StoredEntryError } from '../../../src/store/stored-entry.js';

describe('real transactions by bookkeeping key, and the keys of each transaction', () => {
  it('a key remembered answers its transaction; the hash lists each of its keys once, whatever its case', async () => {
    const txs = new RealTxMap(openSqliteStore(':memory:'));
    await txs.remember('o1:deliver', { txId: '0xABC', block: 5 });
    await txs.remember('o1:deliver', { txId: '0xABC', block: 6 });
    await txs.remember('o2:refund', { txId: '0xabc', block: 6 });
    expect(await txs.of('o1:deliver')).toEqual({ txId: '0xABC', block: 6 });
    expect(await txs.keysOf('0xAbC')).toEqual(['o1:deliver', 'o2:refund']);
    expect(await txs.of('o3:deliver')).toBeNull();
    expect(await txs.keysOf('0xdef')).toEqual([]);
  });

  it('a key whose transaction vanished in a reorg says so, and its hash still lists it', async () => {
    const txs = new RealTxMap(openSqliteStore(':memory:'));
    await txs.remember('deposit:base:0x1:value', { txId: '0x1', block: 9 });
    await txs.markVanished('deposit:base:0x1:value', { txId: '0x1', block: 9 });
    expect(await txs.of('deposit:base:0x1:value')).toEqual({ txId: '0x1', block: 9, vanished: true });
    expect(await txs.keysOf('0x1')).toEqual(['deposit:base:0x1:value']);
  });

  it('a stored entry of another shape is refused, naming it', async () => {
    const store = openSqliteStore(':memory:');
    await store.putKey(REAL_TX_SPACE, 'k', JSON.stringify({ txId: '0x1', block: '9' }));
    await expect(new RealTxMap(store).of('k')).rejects.toBeInstanceOf(StoredEntryError);
  });
});
