// The deposit feed over a fake chain whose blocks can be replaced: a reorg found before the passes tells each owning
// order about its vanished deposits, rewinds both cursors below the first replaced block and scans the new blocks;
// a failed telling leaves the cursors so the next poll tells again; a chain without the capability is never asked.
// Cursors moved over empty blocks are stored every cursorEveryMs and on stop; a pass that told a deposit stores at once.
import { describe, expect, it } from 'vitest';
import { createDepositFeed, type DepositFeedDeps } from '../../../actors/deposit-feed.js';
import type { AssetId, ChainName } from '../../../src/assets/types.js';
import type { Deposit, Reorg } from '../../../src/chains/types.js';
import { OrderNotFound } from '../../../src/errors.js';
import { ChainMoved } from '../../../src/chains/evm/errors.js';
import { createLogger, type Logger } from '../../../src/log.js';
import { Writable } from 'node:stream';
import type { OrderDeposit, OrderDepositVanished } from '../../../src/protocol/index.js';
import { BASE_USDC } from '../../support/fixtures.js';

const ADDRESS = '0x00000000000000000000000000000000000000d1';

function fakeChain(opts: { kv?: Map<string, string>; now?: () => number; logger?: Logger } = {}) {
  const kv = opts.kv ?? new Map<string, string>();
  const told: Array<{ orderId: string; command: OrderDeposit | OrderDepositVanished }> = [];
  const state = {
    height: 10,
    deposits: [] as Deposit[],
    reorg: null as Reorg | null,
    vanished: [] as Deposit[],
    scans: [] as Array<[number, number]>,
    failTell: false,
    missing: new Set<string>(),
    /** Thrown by the next scans of base, one each, first first. */
    scanErrors: [] as Error[],
  };
  const chains: DepositFeedDeps['chains'] = {
    requiredConfirmations: (chain: ChainName) => (chain === 'base' ? 3 : 1),
    height: async (chain: ChainName) => (chain === 'base' ? state.height : 0),
    async scan(chain, from, to) {
      if (chain !== 'base') return [];
      const failure = state.scanErrors.shift();
      if (failure) throw failure;
      state.scans.push([from, to!]);
      return state.deposits
        .filter((d) => d.block >= from && d.block <= to!)
        .map((d) => ({ ...d, confirmations: state.height - d.block + 1 }));
    },
    async checkReorg(chain, upTo) {
      return chain === 'base' && state.reorg && state.reorg.from <= upTo ? state.reorg : null;
    },
    async vanished(chain, from) {
      return chain === 'base' ? state.vanished.filter((d) => d.block >= from) : [];
    },
  };
  const feed = createDepositFeed({
    chains,
    store: { getKey: async (s, k) => kv.get(`${s}|${k}`) ?? null, putKey: async (s, k, v) => void kv.set(`${s}|${k}`, v) },
    logger: opts.logger ?? createLogger('silent'),
    async tell(orderId, command) {
      if (state.failTell) throw new Error('bus down');
      if (state.missing.has(orderId)) throw new OrderNotFound(`Order ${orderId} does not exist.`);
      told.push({ orderId, command });
    },
    cursorEveryMs: 30_000,
    ...(opts.now && { now: opts.now }),
  });
  const cursor = (name: 'seen' | 'confirmed') => Number(kv.get(`deposit-cursor|base:${name}`) ?? '0');
  return { feed, state, told, cursor, kv };
}

const dep = (txId: string, block: number): Deposit => ({
  txId, chain: 'base', asset: BASE_USDC as AssetId, from: '0x00000000000000000000000000000000000000a1', to: ADDRESS, amount: 5n, block, confirmations: 1,
});

describe('deposit feed: reorgs', () => {
  it('a reorg removing a seen deposit: the order hears deposit.vanished, both cursors rewind, the new blocks are scanned', async () => {
    const { feed, state, told, cursor } = fakeChain();
    await feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    state.deposits = [dep('0xaa', 9)];
    await feed.poll();
    expect(told.map((t) => t.command.type)).toEqual(['deposit']);
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);

    // Blocks 9 and 10 replaced: the deposit is gone, another one in the new block 9.
    state.reorg = { from: 9, upTo: 10, depth: 2, beyondWindow: false };
    state.vanished = [dep('0xaa', 9)];
    state.deposits = [dep('0xbb', 9)];
    state.scans.length = 0;
    await feed.poll();
    expect(told.slice(1).map((t) => [t.orderId, t.command.type, t.command.txId])).toEqual([
      ['o-1', 'deposit.vanished', '0xaa'],
      ['o-1', 'deposit', '0xbb'],
    ]);
    // Rescanned from the first replaced block; the confirmed cursor (8) was below it and did not move back.
    expect(state.scans[0]).toEqual([9, 10]);
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);
  });

  it('a telling that fails moves no cursor: the next poll tells again', async () => {
    const { feed, state, told, cursor } = fakeChain();
    await feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    state.deposits = [dep('0xaa', 5)];
    await feed.poll();
    state.reorg = { from: 4, upTo: 10, depth: 7, beyondWindow: false };
    state.vanished = [dep('0xaa', 5)];
    state.deposits = [];
    state.failTell = true;
    await expect(feed.poll()).rejects.toThrow('bus down');
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);
    state.failTell = false;
    await feed.poll();
    expect(told.filter((t) => t.command.type === 'deposit.vanished').map((t) => t.command.txId)).toEqual(['0xaa']);
    // The rewind is stored; the new blocks read after it held no deposit, so they move the cursors in memory only.
    expect([cursor('seen'), cursor('confirmed')]).toEqual([3, 3]);
    expect(state.scans.at(-2)).toEqual([4, 10]);
    expect(state.scans.at(-1)).toEqual([4, 8]);
  });

  it('a vanished deposit to an address no order owns, or of another asset, is told to nobody', async () => {
    const { feed, state, told } = fakeChain();
    await feed.register('base', ADDRESS, 'o-1', 'base.other' as AssetId);
    state.deposits = [];
    await feed.poll();
    state.reorg = { from: 9, upTo: 10, depth: 2, beyondWindow: false };
    state.vanished = [dep('0xaa', 9), { ...dep('0xcc', 9), to: '0x00000000000000000000000000000000000000ee' }];
    await feed.poll();
    expect(told).toEqual([]);
  });
});

describe('deposit feed: chains are polled together', () => {
  /** Two chains with blocks; a store that records each putKey with the number of writes already in flight. */
  function twoChains(failing: ChainName | null) {
    const kv = new Map<string, string>();
    const inFlightAtPut: number[] = [];
    let inFlight = 0;
    const chains: DepositFeedDeps['chains'] = {
      requiredConfirmations: () => 1,
      height: async (chain: ChainName) => (chain === 'base' || chain === 'arbitrum' ? 5 : 0),
      async scan(chain) {
        if (chain === failing) throw new Error(`${chain} node down`);
        return [];
      },
    };
    const feed = createDepositFeed({
      chains,
      store: {
        getKey: async (s, k) => kv.get(`${s}|${k}`) ?? null,
        async putKey(s, k, v) {
          inFlightAtPut.push(inFlight++);
          // A durable write takes a turn or more (the SQLite adapter commits the writes of one turn together).
          await new Promise((r) => setImmediate(r));
          kv.set(`${s}|${k}`, v);
          inFlight--;
        },
      },
      logger: createLogger('silent'),
      tell: async () => undefined,
    });
    return { feed, kv, inFlightAtPut };
  }

  it('their cursor writes are asked for together, not one after another', async () => {
    const { feed, kv, inFlightAtPut } = twoChains(null);
    await feed.poll();
    expect(kv.get('deposit-cursor|base:confirmed')).toBe('5');
    expect(kv.get('deposit-cursor|arbitrum:confirmed')).toBe('5');
    expect(inFlightAtPut).toEqual([0, 1]);
  });

  it('a chain whose node fails holds back no other: the others move on, and the poll then fails with its error', async () => {
    const { feed, kv } = twoChains('base');
    await expect(feed.poll()).rejects.toThrow('base node down');
    expect(kv.get('deposit-cursor|base:confirmed')).toBeUndefined();
    expect(kv.get('deposit-cursor|arbitrum:confirmed')).toBe('5');
  });
});

describe('deposit feed: cursors over empty blocks', () => {
  it('a cursor moved over empty blocks is stored every cursorEveryMs; one whose pass told a deposit is stored at once', async () => {
    let t = 0;
    const { feed, state, told, cursor } = fakeChain({ now: () => t });
    await feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    await feed.poll(); // the first cursor of this feed is stored
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);
    state.height = 15;
    t = 29_999;
    await feed.poll();
    expect(state.scans.slice(-2)).toEqual([[11, 15], [9, 13]]);
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);
    state.height = 16;
    t = 30_000;
    await feed.poll();
    expect([cursor('seen'), cursor('confirmed')]).toEqual([16, 14]);
    // A deposit mined in block 17: the seen pass tells it and stores its cursor at once, the confirmed one waits.
    state.deposits = [dep('0xaa', 17)];
    state.height = 17;
    t = 30_001;
    await feed.poll();
    expect(told.map((x) => x.command.txId)).toEqual(['0xaa']);
    expect([cursor('seen'), cursor('confirmed')]).toEqual([17, 14]);
  });

  it('stop stores what was read; a feed started again on the same store scans on from there and tells nothing twice', async () => {
    let t = 0;
    const first = fakeChain({ now: () => t });
    await first.feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    first.state.deposits = [dep('0xaa', 9)];
    await first.feed.poll();
    first.state.height = 20;
    t = 1_000;
    await first.feed.poll();
    // Blocks 11..20 held nothing for the seen pass; the confirmed pass (9..18) told the deposit of block 9.
    expect([first.cursor('seen'), first.cursor('confirmed')]).toEqual([10, 18]);
    await first.feed.stop();
    expect([first.cursor('seen'), first.cursor('confirmed')]).toEqual([20, 18]);

    const second = fakeChain({ kv: first.kv, now: () => t });
    second.state.height = 20;
    second.state.deposits = first.state.deposits;
    await second.feed.poll();
    expect(second.state.scans).toEqual([]);
    expect(second.told).toEqual([]);
  });

  it('a feed lost without stop (a crash): the next one scans the empty blocks again from the stored cursor, and misses no deposit', async () => {
    let t = 0;
    const first = fakeChain({ now: () => t });
    await first.feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    await first.feed.poll();
    first.state.height = 20;
    t = 1_000;
    await first.feed.poll(); // blocks 11..20 read in memory only, then the process dies

    const second = fakeChain({ kv: first.kv, now: () => t });
    second.state.height = 21;
    second.state.deposits = [dep('0xbb', 21)];
    await second.feed.poll();
    expect(second.state.scans).toEqual([[11, 21], [9, 19]]);
    expect(second.told.map((x) => [x.command.type, x.command.txId])).toEqual([['deposit', '0xbb']]);
    expect([second.cursor('seen'), second.cursor('confirmed')]).toEqual([21, 19]);
  });
});

describe('deposit feed: a deposit the router sent itself', () => {
  it('from another order\'s deposit address, an internal account or a sender the chain names as the router\'s it is told with fromRouter; from a client it is not', async () => {
    const { feed, state, told } = fakeChain();
    const OTHER = '0x00000000000000000000000000000000000000d2';
    await feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    await feed.register('base', OTHER, 'o-2', BASE_USDC as AssetId);
    state.deposits = [
      { ...dep('0xc1', 8), from: '0x00000000000000000000000000000000000000a1' },
      { ...dep('0xc2', 8), from: OTHER.toUpperCase().replace('0X', '0x') },
      { ...dep('0xc3', 8), from: 'order:o-3' },
      { ...dep('0xc4', 8), from: 'fees' },
      { ...dep('0xc5', 8), from: 'pool:relay' },
      // A real chain's treasury: an address the feed cannot tell from a client's, named by the chain.
      { ...dep('0xc6', 8), from: '0x00000000000000000000000000000000000000a2', fromRouter: true },
    ];
    await feed.poll();
    const seen = told.filter((t) => t.command.type === 'deposit').slice(0, 6);
    expect(seen.map((t) => [t.command.txId, (t.command as OrderDeposit).fromRouter ?? false])).toEqual([
      ['0xc1', false],
      ['0xc2', true],
      ['0xc3', true],
      ['0xc4', true],
      ['0xc5', true],
      ['0xc6', true],
    ]);
  });
});

describe('deposit feed: a deposit on another EVM chain than its order\'s', () => {
  it('is told to nobody and logged for an operator, naming the order and its chain', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const { feed, state, told } = fakeChain({ logger: createLogger('info', sink) });
    await feed.register('arbitrum', ADDRESS, 'o-arb', BASE_USDC as AssetId);
    state.deposits = [dep('0xd1', 8)];
    await feed.poll();
    expect(told).toEqual([]);
    const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'deposit on another chain than the order\'s; left for an operator');
    expect(warned[0]).toMatchObject({ chain: 'base', txId: '0xd1', orderId: 'o-arb', orderChain: 'arbitrum' });
  });
});

describe('deposit feed: an address whose order does not exist', () => {
  it('does not hold back the chain: its deposit is skipped for an operator, the next one is told and the cursor moves on', async () => {
    const { feed, state, told, cursor } = fakeChain();
    const OTHER = '0x00000000000000000000000000000000000000d3';
    await feed.register('base', ADDRESS, 'o-gone', BASE_USDC as AssetId);
    await feed.register('base', OTHER, 'o-here', BASE_USDC as AssetId);
    state.missing.add('o-gone');
    state.deposits = [dep('0xe1', 7), { ...dep('0xe2', 8), to: OTHER }];
    await feed.poll();
    expect(told.map((t) => [t.orderId, t.command.txId])).toEqual([['o-here', '0xe2'], ['o-here', '0xe2']]);
    expect([cursor('seen'), cursor('confirmed')]).toEqual([10, 8]);
  });
});

describe('deposit feed: a poll that fails', () => {
  it('because the chain moved under its scan (a node behind, blocks being replaced) is logged at warn once a run, and the next poll tells the deposit; any other failure at error; the poll that ends the run says how many failed', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const { feed, state, told, cursor } = fakeChain({ logger: createLogger('info', sink) });
    await feed.register('base', ADDRESS, 'o-1', BASE_USDC as AssetId);
    state.deposits = [dep('0xaa', 9)];
    const moved = () => new ChainMoved('base: the node answers height 7, below block 10 asked for; scan again.');
    state.scanErrors = [moved(), moved(), moved(), new Error('disk on fire')];
    const logged = async (n: number) => {
      while (lines.length < n) await new Promise((r) => setTimeout(r, 5));
      return lines.slice(0, n).map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    feed.start(5);
    try {
      const [first, other, recovered] = await logged(3);
      expect(first).toMatchObject({ level: 40, msg: 'deposit scan failed; retried on the next poll' });
      // The second and third moved polls are at debug, below the logger's level.
      expect(other).toMatchObject({ level: 50, msg: 'deposit scan failed', err: 'Error: disk on fire', failedInARow: 4 });
      expect(recovered).toMatchObject({ level: 30, msg: 'deposit scans succeed again', failedPolls: 4 });
      while (told.length === 0) await new Promise((r) => setTimeout(r, 5));
    } finally {
      await feed.stop();
    }
    expect(told.map((t) => t.command)).toMatchObject([{ type: 'deposit', txId: '0xaa' }]);
    expect(cursor('seen')).toBe(10);
  });
});
