// The watch over the router's mined sends, without a node: a fake chain of receipts and remembered block hashes.
// What a real reorg does to them is in test/chains/evm/reorg-send.test.ts.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Hex, TransactionReceipt } from 'viem';
import { createLogger } from '../../../src/log.js';
import { MinedSends, WATCH_BLOCKS, rawOf } from '../../../src/chains/evm/mined-sends.js';
import type { OutboxEntry } from '../../../src/chains/evm/outbox.js';
import type { BroadcastOutcome } from '../../../src/chains/evm/rpc.js';
import { memStore } from '../../chains/evm/ledger-support.js';

const hex = (c: string, n = 64) => `0x${c.repeat(n)}` as Hex;

function entry(key: string, c: string, replacement?: string): OutboxEntry {
  return {
    v: 1, chain: 'base', key, asset: 'evm:8453.0x0000000000000000000000000000000000000000', from: hex('a', 40), to: hex('b', 40),
    amount: '1', nonce: c.charCodeAt(0), hash: hex(c), raw: hex(c, 8), at: 0,
    ...(replacement ? { replacements: [{ hash: hex(replacement), raw: hex(replacement, 8), at: 1 }] } : {}),
  };
}

/** A chain the test edits: the height, the hashes the scan remembered, the receipts, and what a broadcast answers. */
function fakeChain() {
  const entries = new Map<string, OutboxEntry>();
  const receipts = new Map<string, { hash: Hex; block: number; blockHash: Hex; status: 'success' | 'reverted' }>();
  const remembered = new Map<number, Hex>();
  const broadcasts: Hex[] = [];
  const fillers: Array<{ nonce: number; outbid: Hex }> = [];
  const lines: Array<Record<string, unknown>> = [];
  const state = { height: 100, answer: (_raw: Hex): BroadcastOutcome => ({ kind: 'accepted' }) };
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
      return state.answer(raw);
    },
    reprice: async (e) => {
      const next = { ...e, replacements: [...(e.replacements ?? []), { hash: hex('9'), raw: hex('9', 8), at: 2 }] };
      entries.set(e.key, next);
      return next;
    },
    fillNonce: async (_address, nonce, outbid) => {
      fillers.push({ nonce, outbid });
      return { kind: 'accepted' };
    },
    family: (key) => key.split(':')[0]!,
    logger: createLogger('debug', new Writable({ write: (chunk, _e, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) })),
  });
  const mine = (key: string, hash: Hex, block: number, blockHash: Hex, status: 'success' | 'reverted' = 'success') => {
    receipts.set(key, { hash, block, blockHash, status });
    remembered.set(block, blockHash);
  };
  /** Mines the send and starts watching it, as `settle` does. */
  const sent = async (key: string, c: string, block: number, opts: { replacement?: string; minedHash?: Hex } = {}) => {
    entries.set(key, entry(key, c, opts.replacement));
    mine(key, opts.minedHash ?? hex(c), block, hex(String.fromCharCode(c.charCodeAt(0) + 1)));
    const r = receipts.get(key)!;
    await sends.record(key, { transactionHash: r.hash, blockNumber: BigInt(r.block), blockHash: r.blockHash });
  };
  /** A reorg replacing the blocks from `from` on with empty ones the scan has read. */
  const reorg = (from: number) => {
    for (const [key, r] of receipts) if (r.block >= from) receipts.delete(key);
    for (const n of remembered.keys()) if (n >= from) remembered.set(n, hex('0'));
  };
  const watched = async () => (await sends.watched()).sort((a, b) => a.block - b.block).map((s) => [s.key, s.block, s.droppedAt !== undefined]);
  return { sends, entries, receipts, remembered, broadcasts, fillers, lines, state, mine, sent, reorg, watched };
}

describe('MinedSends', () => {
  it('leaves a send alone while its block is not scanned yet or scanned with the hash its receipt named', async () => {
    const c = fakeChain();
    await c.sent('k:1', '1', 90);
    expect(await c.sends.watch()).toEqual([]);
    c.remembered.delete(90);
    expect(await c.sends.watch()).toEqual([]);
    expect(c.broadcasts).toEqual([]);
    expect(await c.watched()).toEqual([['k:1', 90, false]]);
  });

  it('sends without a receipt after their blocks were replaced go back one at a time, in the order first mined, each answered at its new block', async () => {
    const c = fakeChain();
    // The fee-bumped replacement was the one mined: its bytes are the ones sent again.
    await c.sent('x:payout', '2', 90, { replacement: '3', minedHash: hex('3') });
    await c.sent('x:top-up', '1', 91);
    c.reorg(90);
    expect(await c.sends.watch()).toEqual([]);
    expect(c.broadcasts).toEqual([hex('3', 8)]);
    expect(await c.watched()).toEqual([['x:payout', 90, true], ['x:top-up', 91, true]]);
    expect(c.lines.filter((l) => l.msg === 'a send removed by a reorg is broadcast again')).toHaveLength(1);
    // Not mined yet: broadcast again, and the one after it still waits.
    expect(await c.sends.watch()).toEqual([]);
    expect(c.broadcasts).toEqual([hex('3', 8), hex('3', 8)]);

    c.mine('x:payout', hex('3'), 95, hex('5'));
    expect(await c.sends.watch()).toEqual([{ key: 'x:payout', txId: hex('3'), block: 95 }]);
    expect(c.broadcasts.slice(2)).toEqual([hex('1', 8)]);
    c.mine('x:top-up', hex('1'), 96, hex('6'));
    expect(await c.sends.watch()).toEqual([{ key: 'x:top-up', txId: hex('1'), block: 96 }]);
    expect(c.broadcasts).toHaveLength(3);
    // Watched at the new blocks, and quiet there.
    expect(await c.watched()).toEqual([['x:payout', 95, false], ['x:top-up', 96, false]]);
    expect(await c.sends.watch()).toEqual([]);
    expect(await c.sends.unrestored()).toEqual([]);
  });

  it('a send refused for its fees is replaced at higher fees and those bytes are broadcast', async () => {
    const c = fakeChain();
    await c.sent('k:1', '1', 90);
    c.reorg(90);
    c.state.answer = (raw) => (raw === hex('1', 8) ? { kind: 'rejected', reason: 'max fee per gas less than block base fee' } : { kind: 'accepted' });
    await c.sends.watch();
    expect(c.broadcasts).toEqual([hex('1', 8), hex('9', 8)]);
    expect((await c.sends.watched())[0]!.hash).toBe(hex('9'));
    c.mine('k:1', hex('9'), 97, hex('7'));
    expect(await c.sends.watch()).toEqual([{ key: 'k:1', txId: hex('9'), block: 97 }]);
  });

  it('a send mined again elsewhere by the node itself is answered at its new block without a broadcast', async () => {
    const c = fakeChain();
    await c.sent('k:1', '1', 90);
    c.remembered.set(90, hex('8'));
    c.mine('k:1', hex('1'), 92, hex('7'));
    expect(await c.sends.watch()).toEqual([{ key: 'k:1', txId: hex('1'), block: 92 }]);
    expect(c.broadcasts).toEqual([]);
  });

  it('a node answering a height below a send\'s block (behind, or replacing blocks) proves nothing: the send is kept and not broadcast until the node has its block with another hash', async () => {
    const c = fakeChain();
    await c.sent('k:1', '1', 100);
    c.receipts.clear();
    c.state.height = 99;
    expect(await c.sends.watch()).toEqual([]);
    expect(c.broadcasts).toEqual([]);
    expect(await c.sends.watched()).toMatchObject([{ key: 'k:1', block: 100 }]);
    expect((await c.sends.watched())[0]!.droppedAt).toBeUndefined();
    // The node has block 100 again, another one than the send's: read again and, gone, broadcast again.
    c.state.height = 100;
    c.remembered.set(100, hex('e'));
    await c.sends.watch();
    expect(c.broadcasts).toEqual([hex('1', 8)]);
  });

  it('a send mined again that reverts is given up; the later sends of its order are held, their nonces filled; another order\'s go back', async () => {
    const c = fakeChain();
    await c.sent('x:sweep', '1', 90);
    await c.sent('y:payout', '4', 91);
    await c.sent('x:payout', '6', 92);
    c.reorg(90);
    await c.sends.watch();
    // The sweep is mined again and reverts: what it moved left the chain with the reorg.
    c.mine('x:sweep', hex('1'), 95, hex('5'), 'reverted');
    await c.sends.watch();
    expect(c.broadcasts).toEqual([hex('1', 8), hex('4', 8)]);
    c.mine('y:payout', hex('4'), 96, hex('6'));
    expect(await c.sends.watch()).toEqual([{ key: 'y:payout', txId: hex('4'), block: 96 }]);
    // x's payout is never broadcast: its nonce is taken by a self-transfer outbidding it.
    expect(c.broadcasts).toHaveLength(2);
    expect(c.fillers).toEqual([{ nonce: '6'.charCodeAt(0), outbid: hex('6', 8) }]);
    expect(await c.sends.unrestored()).toEqual([{ key: 'x:sweep', reason: 'reverted' }, { key: 'x:payout', reason: 'held' }]);
    expect(await c.watched()).toEqual([['y:payout', 96, false]]);
    const errors = c.lines.filter((l) => l.level === 50).map((l) => l.key);
    expect(errors).toEqual(['x:sweep', 'x:payout']);
  });

  it('a send whose nonce another transaction took is given up and named for an operator', async () => {
    const c = fakeChain();
    await c.sent('x:payout', '1', 90);
    c.reorg(90);
    c.state.answer = () => ({ kind: 'nonce-too-low', reason: 'nonce too low' });
    await c.sends.watch();
    expect(await c.sends.unrestored()).toEqual([{ key: 'x:payout', reason: 'nonce_taken' }]);
    expect(await c.sends.watched()).toEqual([]);
    expect(c.lines.find((l) => l.level === 50)?.msg).toMatch(/another transaction took its nonce/);
  });

  it(`a send refused for ${WATCH_BLOCKS} blocks is given up; a send ${WATCH_BLOCKS} blocks deep is no longer watched`, async () => {
    const c = fakeChain();
    await c.sent('x:payout', '1', 90);
    await c.sent('y:payout', '3', 91);
    c.reorg(91);
    c.state.answer = () => ({ kind: 'rejected', reason: 'insufficient funds for gas * price + value' });
    await c.sends.watch();
    c.state.height = 90 + WATCH_BLOCKS - 1;
    await c.sends.watch();
    expect(await c.watched()).toEqual([['x:payout', 90, false], ['y:payout', 91, true]]);
    c.state.height = 100 + WATCH_BLOCKS;
    await c.sends.watch();
    expect(await c.sends.watched()).toEqual([]);
    expect(await c.sends.unrestored()).toEqual([{ key: 'y:payout', reason: 'expired' }]);
  });

  it('rawOf finds the bytes of the original or of a replacement', () => {
    const e = entry('k', '1', '2');
    expect(rawOf(e, hex('1'))).toBe(hex('1', 8));
    expect(rawOf(e, hex('2'))).toBe(hex('2', 8));
    expect(rawOf(e, hex('3'))).toBeNull();
  });
});
