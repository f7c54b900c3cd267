// The reorg walk over remembered block hashes and the reading of broadcast errors, without a node.
import { describe, expect, it } from 'vitest';
import { BlockHashes, HASH_WINDOW, findReorg } from '../../../src/chains/evm/block-hashes.js';
import { classifyBroadcastError } from '../../../src/chains/evm/rpc.js';
import { RpcRequestError, TimeoutError } from 'viem';
import { memStore } from './ledger-support.js';

const h = (fork: string, n: number) => `${fork}-${n}`;

describe('findReorg', () => {
  it('finds the lowest replaced block, null when the top still matches or was never remembered', async () => {
    const hashes = new BlockHashes(memStore(), 'base');
    await hashes.remember(Array.from({ length: 10 }, (_, i) => ({ number: i + 1, hash: h('a', i + 1) })));
    expect(await findReorg(hashes, 10, async (n) => h('a', n))).toBeNull();
    expect(await findReorg(hashes, 10, async (n) => (n >= 8 ? h('b', n) : h('a', n)))).toEqual({ from: 8, upTo: 10, depth: 3, beyondWindow: false });
    expect(await findReorg(hashes, 50, async (n) => h('b', n))).toBeNull();
  });

  it('reports a reorg reaching the bottom of the ring as beyondWindow', async () => {
    const hashes = new BlockHashes(memStore(), 'base');
    const top = HASH_WINDOW + 20;
    await hashes.remember(Array.from({ length: top }, (_, i) => ({ number: i + 1, hash: h('a', i + 1) })));
    // The ring keeps the last HASH_WINDOW blocks; older slots were overwritten.
    expect(await hashes.get(1)).toBeNull();
    expect(await hashes.get(top)).toBe(h('a', top));
    expect(await findReorg(hashes, top, async (n) => h('b', n))).toEqual({ from: top - HASH_WINDOW + 1, upTo: top, depth: HASH_WINDOW, beyondWindow: true });
  });
});

describe('classifyBroadcastError', () => {
  const nodeSays = (message: string) => new RpcRequestError({ body: {}, url: 'http://x', error: { code: -32003, message } });
  it('tells duplicates, used nonces, refusals and unreachable nodes apart', () => {
    expect(classifyBroadcastError(nodeSays('transaction already imported'))).toEqual({ kind: 'known' });
    expect(classifyBroadcastError(nodeSays('already known'))).toEqual({ kind: 'known' });
    expect(classifyBroadcastError(nodeSays('nonce too low')).kind).toBe('nonce-too-low');
    expect(classifyBroadcastError(nodeSays('Insufficient funds for gas * price + value'))).toEqual({ kind: 'rejected', reason: 'Insufficient funds for gas * price + value' });
    expect(classifyBroadcastError(new TimeoutError({ body: {}, url: 'http://x' })).kind).toBe('unreachable');
    expect(classifyBroadcastError(new Error('fetch failed')).kind).toBe('unreachable');
  });
});
