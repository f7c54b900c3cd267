// The outbox of an EVM chain, alone: entries stored and read back through their check, the chain's signed list in
// signing order, and the fees a replacement offers.
import { describe, expect, it } from 'vitest';
import { latestRaw, openOutbox, OUTBOX_SPACE, outbidding, outboxHashes, type OutboxEntry } from '../../../src/chains/evm/outbox.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { StoredEntryError } from '../../../src/store/stored-entry.js';

const entry = (key: string, over: Partial<OutboxEntry> = {}): OutboxEntry => ({
  v: 1, chain: 'base', key, asset: 'evm:8453.0x0000000000000000000000000000000000000000', from: '0xa', to: '0xb', amount: '5', nonce: 0,
  hash: '0x01', raw: '0x02', at: 1_000, ...over,
});

describe('the outbox: an entry per key, and the keys signed on the chain in signing order', () => {
  it('an entry put is read back as stored; a key never signed reads null', async () => {
    const outbox = openOutbox(openSqliteStore(':memory:'), 'base');
    await outbox.put(entry('k1'));
    expect(await outbox.entry('k1')).toEqual(entry('k1'));
    expect(await outbox.entry('k2')).toBeNull();
  });

  it('the signed list keeps signing order, concurrent appends included, and answers each key\'s entry once', async () => {
    const outbox = openOutbox(openSqliteStore(':memory:'), 'base');
    await Promise.all(['a', 'b', 'c'].map((k) => outbox.listSigned(k)));
    await outbox.listSigned('a');
    for (const k of ['a', 'b']) await outbox.put(entry(k));
    // `c` is listed without an entry: signed, never stored, so never broadcast.
    expect((await outbox.signedEntries()).map((e) => e.key)).toEqual(['a', 'b']);
  });

  it('a stored entry of another shape is refused, naming it', async () => {
    const store = openSqliteStore(':memory:');
    await store.putKey(OUTBOX_SPACE, 'k1', JSON.stringify({ ...entry('k1'), nonce: '0' }));
    const refused = openOutbox(store, 'base').entry('k1');
    await expect(refused).rejects.toBeInstanceOf(StoredEntryError);
    await expect(refused).rejects.toThrow('The stored entry evm-outbox/k1 does not have the shape this service reads');
  });
});

describe('replacements: each outbids the last by at least 12.5 %, and the latest is broadcast', () => {
  it('the fees are the node\'s now, or 12.5 % over the last (rounded up), whichever is higher', () => {
    expect(outbidding({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 90n, maxPriorityFeePerGas: 5n })).toEqual({ maxFeePerGas: 113n, maxPriorityFeePerGas: 12n });
    expect(outbidding({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 300n, maxPriorityFeePerGas: 20n })).toEqual({ maxFeePerGas: 300n, maxPriorityFeePerGas: 20n });
    // The fee cap is never below the priority fee.
    expect(outbidding({ maxFeePerGas: 10n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 50n })).toEqual({ maxFeePerGas: 50n, maxPriorityFeePerGas: 50n });
  });

  it('every hash of a key, the original first; the bytes broadcast are the last signed', () => {
    const replaced = entry('k', { replacements: [{ hash: '0x03', raw: '0x04', at: 2_000 }, { hash: '0x05', raw: '0x06', at: 3_000 }] });
    expect(outboxHashes(replaced)).toEqual(['0x01', '0x03', '0x05']);
    expect(latestRaw(replaced)).toBe('0x06');
    expect(latestRaw(entry('k'))).toBe('0x02');
  });
});
