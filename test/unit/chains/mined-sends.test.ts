// The watch over the router's mined sends, without a node: a fake chain of receipts and remembered block hashes.
// What a real reorg does to them is in test/chains/evm/reorg-send.test.ts.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Hex, TransactionReceipt } from 'viem';
import { createLogger } from '../../../src/log.js';
import { MinedSends, WATCH_BLOCKS, rawOf } from '../../../src/chains/evm/mined-sends.js';
import type { OutboxEntry } from '../../../src/chains/evm/ledger.js';
import type { BroadcastOutcome } from '../../../src/chains/evm/rpc.js';
import { memStore } from '../../chains/evm/ledger-support.js';

const hex = (c: string, n = 64) => `0x${c.repeat(n)}` as Hex;

function entry(key: string, c: string, replacement?: string): OutboxEntry {
  return {
    v: 1, chain: 'base', key, asset: 'evm:8453.0x0000000000000000000000000000000000000000', from: hex('a', 40), to: hex('b', 40),
    amount: '1', nonce: 1, hash: hex(c), raw: hex(c, 8), at: 0,
    ...(replacement ? { replacements: [{ hash: hex(replacement), raw: hex(replacement, 8), at: 1 }] } : {}),
  };
}

/** A chain the test edits: the height, the hashes the scan remembered, the receipts, and what a broadcast answers. */
function fakeChain() {
  const entries = new Map<string, OutboxEntry>();
  const receipts = new Map<string, { hash: Hex; block: number; blockHash: Hex; status: 'success' | 'reverted' }>();
  const remembered = new Map<number, Hex>();
  const broadcasts: Hex[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const state = { height: 100, answer: { kind: 'accepted' } as BroadcastOutcome };
  const sends = new MinedSends({
    store: memStore(),
    chain: 'base',
    hashes: { get: async (n) => remembered.get(n) ?? null },
    height: async () => state.height,
    outboxEntry: async (key) => entries.get(key) ?? null,
    minedReceipt: async (e) => {
      const r = receipts.get(e.key);
      return r ? ({ transactionHash: r.hash, blockNumber: BigInt(r.block), blockHash: r.blockHash, status: r.status } as TransactionReceipt) : null;
    },
    broadcastRaw: async (raw) => {
      broadcasts.push(raw);
      return state.answer;
    },
    logger: createLogger('debug', new Writable({ write: (chunk, _e, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) })),
  });
  const mine = (key: string, hash: Hex, block: number, blockHash: Hex, status: 'success' | 'reverted' = 'success') => {
    receipts.set(key, { hash, block, blockHash, status });
    remembered.set(block, blockHash);
  };
  const record = (key: string) => {
    const r = receipts.get(key)!;
    return sends.record(key, { transactionHash: r.hash, blockNumber: BigInt(r.block), blockHash: r.blockHash });
  };
  return { sends, entries, receipts, remembered, broadcasts, lines, state, mine, record };
}

describe('MinedSends', () => {
  it('leaves a send alone while its block is not scanned yet or scanned with the hash its receipt named', async () => {
    const c = fakeChain();
    c.entries.set('k', entry('k', '1'));
    c.mine('k', hex('1'), 90, hex('f'));
    await c.record('k');
    expect(await c.sends.watch()).toEqual([]);
    c.remembered.delete(90);
    expect(await c.sends.watch()).toEqual([]);
    expect(c.broadcasts).toEqual([]);
    expect((await c.sends.watched()).map((s) => s.key)).toEqual(['k']);
  });

  it('a send whose block was replaced and that has no receipt is broadcast again until mined, then answered at its new block', async () => {
    const c = fakeChain();
    c.entries.set('top-up', entry('top-up', '1'));
    c.entries.set('payout', entry('payout', '2', '3'));
    c.mine('top-up', hex('1'), 91, hex('d'));
    // The fee-bumped replacement was the one mined: its bytes are the ones sent again.
    c.mine('payout', hex('3'), 90, hex('e'));
    await c.record('payout');
    await c.record('top-up');
    c.receipts.clear();
    c.remembered.set(90, hex('8'));
    c.remembered.set(91, hex('9'));
    expect(await c.sends.watch()).toEqual([]);
    // In the order they were mined, the replacement's bytes for the payout.
    expect(c.broadcasts).toEqual([hex('3', 8), hex('1', 8)]);
    expect((await c.sends.watched()).map((s) => [s.key, s.dropped])).toEqual([['payout', true], ['top-up', true]]);
    expect(c.lines.filter((l) => l.msg === 'a send removed by a reorg is broadcast again')).toHaveLength(2);

    // Not accepted yet (the sweep's gas is not back): broadcast again on the next look.
    c.state.answer = { kind: 'rejected', reason: 'insufficient funds for gas * price + value' };
    c.mine('top-up', hex('1'), 95, hex('5'));
    expect(await c.sends.watch()).toEqual([{ key: 'top-up', txId: hex('1'), block: 95 }]);
    expect(c.broadcasts).toHaveLength(3);
    c.mine('payout', hex('3'), 96, hex('6'));
    expect(await c.sends.watch()).toEqual([{ key: 'payout', txId: hex('3'), block: 96 }]);
    expect(c.broadcasts).toHaveLength(3);
    // Watched at the new blocks, and quiet there.
    const watched = (await c.sends.watched()).sort((a, b) => a.block - b.block);
    expect(watched.map((s) => [s.key, s.block, s.dropped])).toEqual([['top-up', 95, undefined], ['payout', 96, undefined]]);
    expect(await c.sends.watch()).toEqual([]);
  });

  it('a send mined again elsewhere by the node itself is answered at its new block without a broadcast', async () => {
    const c = fakeChain();
    c.entries.set('k', entry('k', '1'));
    c.mine('k', hex('1'), 90, hex('e'));
    await c.record('k');
    c.remembered.set(90, hex('8'));
    c.mine('k', hex('1'), 92, hex('7'));
    expect(await c.sends.watch()).toEqual([{ key: 'k', txId: hex('1'), block: 92 }]);
    expect(c.broadcasts).toEqual([]);
  });

  it('names for an operator a send whose nonce another transaction took, or that reverted when mined again, and stops watching it', async () => {
    const c = fakeChain();
    c.entries.set('taken', entry('taken', '1'));
    c.entries.set('reverts', entry('reverts', '2'));
    c.mine('taken', hex('1'), 90, hex('e'));
    c.mine('reverts', hex('2'), 91, hex('d'));
    await c.record('taken');
    await c.record('reverts');
    c.receipts.delete('taken');
    c.remembered.set(90, hex('8'));
    c.state.answer = { kind: 'nonce-too-low', reason: 'nonce too low' };
    c.mine('reverts', hex('2'), 93, hex('c'), 'reverted');
    c.remembered.set(91, hex('9'));
    expect(await c.sends.watch()).toEqual([]);
    expect(await c.sends.watched()).toEqual([]);
    const errors = c.lines.filter((l) => l.level === 50).map((l) => [l.key, l.msg]);
    expect(errors).toEqual([
      ['taken', 'a send removed by a reorg cannot be mined again: another transaction took its nonce; its booking is left for an operator'],
      ['reverts', 'a send mined again after a reorg reverted; its booking is left for an operator'],
    ]);
  });

  it(`stops watching a send ${WATCH_BLOCKS} blocks deep, below the remembered hashes`, async () => {
    const c = fakeChain();
    c.entries.set('k', entry('k', '1'));
    c.mine('k', hex('1'), 90, hex('e'));
    await c.record('k');
    c.state.height = 90 + WATCH_BLOCKS - 1;
    await c.sends.watch();
    expect(await c.sends.watched()).toHaveLength(1);
    c.state.height = 90 + WATCH_BLOCKS;
    await c.sends.watch();
    expect(await c.sends.watched()).toEqual([]);
  });

  it('rawOf finds the bytes of the original or of a replacement', () => {
    const e = entry('k', '1', '2');
    expect(rawOf(e, hex('1'))).toBe(hex('1', 8));
    expect(rawOf(e, hex('2'))).toBe(hex('2', 8));
    expect(rawOf(e, hex('3'))).toBeNull();
  });
});
