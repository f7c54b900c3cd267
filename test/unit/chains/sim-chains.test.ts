// The simulated chains adapter: the shared contract, then what only the simulation has (clock-driven blocks,
// simulated deposits, a SQLite file that survives restarts and SIGKILL, processes sharing it, conservation).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainName } from '../../../src/assets/types.js';
import {
  BLOCK_MS,
  InsufficientFunds,
  MINT_ACCOUNT,
  REQUIRED_CONFIRMATIONS,
  accountKey,
  isUnbounded,
  openSimChains,
  poolAccount,
  type Deposit,
  type SimChains,
  type SimChainsOptions,
  type Transfer,
} from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';
import { ConfigError, Unavailable } from '../../../src/errors.js';
import { pollUntil } from '../../support/poll.js';
import { ALICE, BOB, CAROL, HAL, SATOSHI, assetId, chainsContract } from './chains-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-chains-'));
let n = 0;
const freshFile = (): string => join(dir, `c${n++}.sqlite`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START = 1_700_000_000_000;
const BASE_USDC = assetId('base', 'USDC');
const BTC = 'bitcoin.btc';

function open(over: Partial<SimChainsOptions> = {}): { chains: SimChains; clock: ManualClock; file: string } {
  const clock = (over.clock as ManualClock | undefined) ?? new ManualClock(undefined, START);
  const file = over.file ?? freshFile();
  return { chains: openSimChains({ file, clock, pollMs: 0, ...over }), clock, file };
}

chainsContract('simulated SQLite ledger', async () => {
  const { chains, clock } = open();
  let senders = 0;
  return {
    chains,
    advance: async (ms) => clock.advance(ms),
    // An outside payment: minted into a sender of its own, then sent (what the dev listener does).
    deposit: async (d) => {
      const from = `0x${(0x3333_0000 + senders++).toString(16).padStart(40, '0')}`;
      const t = await chains.simulateDeposit({ ...d, from });
      return { txId: t.txId, block: t.block, from };
    },
    close: () => chains.close(),
  };
});

/** Waits for something the background (setImmediate, the poll timer) does, up to 2 s; the caller then checks it. */
async function eventually(done: () => boolean): Promise<void> {
  await pollUntil(done, (ok) => ok, 2_000, 5);
}

/** Every invariant the ledger promises about its money, checked from its own records. */
async function checkConservation(chains: SimChains): Promise<void> {
  const transfers = await chains.transfers();
  const balances = await chains.balances();
  // Replay: balances are exactly what the transfers add up to.
  const replay = new Map<string, bigint>();
  const minted = new Map<string, bigint>();
  for (const t of transfers) {
    const from = `${t.chain}|${accountKey(t.chain, t.from)}|${t.asset}`;
    const to = `${t.chain}|${accountKey(t.chain, t.to)}|${t.asset}`;
    replay.set(from, (replay.get(from) ?? 0n) - t.amount);
    replay.set(to, (replay.get(to) ?? 0n) + t.amount);
    const pair = `${t.chain}|${t.asset}`;
    if (t.from === MINT_ACCOUNT) minted.set(pair, (minted.get(pair) ?? 0n) + t.amount);
    if (t.to === MINT_ACCOUNT) minted.set(pair, (minted.get(pair) ?? 0n) - t.amount);
  }
  const stored = new Map(balances.map((b) => [`${b.chain}|${b.address}|${b.asset}`, b.amount]));
  for (const [k, v] of replay) expect(stored.get(k) ?? 0n, k).toBe(v);
  for (const [k, v] of stored) expect(replay.get(k), k).toBe(v);
  // Conservation: per (chain, asset), non-mint balances = minted − burned; bounded accounts never below zero.
  const held = new Map<string, bigint>();
  for (const b of balances) {
    if (!isUnbounded(b.address)) expect(b.amount, `${b.address} ${b.asset}`).toBeGreaterThanOrEqual(0n);
    if (b.address === MINT_ACCOUNT) continue;
    const pair = `${b.chain}|${b.asset}`;
    held.set(pair, (held.get(pair) ?? 0n) + b.amount);
  }
  for (const pair of new Set([...held.keys(), ...minted.keys()])) expect(held.get(pair) ?? 0n, pair).toBe(minted.get(pair) ?? 0n);
}

describe('simulated blocks follow the clock', () => {
  it('a new transfer is pending (0 confirmations) in the next block, and has 1 once that block is mined', async () => {
    const { chains, clock } = open();
    const h0 = await chains.height('base');
    const t = await chains.transfer({ key: 'k', chain: 'base', asset: BASE_USDC, from: MINT_ACCOUNT, to: ALICE, amount: 1n });
    expect(t.block).toBe(h0 + 1);
    expect(t.at).toBe(START);
    expect(await chains.confirmations(t)).toBe(0);
    clock.advance(BLOCK_MS.base - 1);
    expect(await chains.confirmations(t)).toBe(0);
    clock.advance(1);
    expect(await chains.confirmations(t)).toBe(1);
    await chains.close();
  });

  it('each chain produces blocks at its own interval (ethereum 12 s, bitcoin 10 min, L2s 2 s or less, hyperliquid 1 s)', async () => {
    expect(BLOCK_MS).toMatchObject({ ethereum: 12_000, bitcoin: 600_000, hyperliquid: 1_000 });
    for (const c of ['base', 'arbitrum', 'robinhood', 'ink'] as const) expect(BLOCK_MS[c]).toBeLessThanOrEqual(2_000);
    const { chains, clock } = open();
    const before = new Map<ChainName, number>();
    for (const c of Object.keys(BLOCK_MS) as ChainName[]) before.set(c, await chains.height(c));
    clock.advance(1_200_000);
    for (const c of Object.keys(BLOCK_MS) as ChainName[]) {
      expect((await chains.height(c)) - before.get(c)!, c).toBe(1_200_000 / BLOCK_MS[c]);
    }
    await chains.close();
  });

  it('the confirmation table: bitcoin 2, ethereum 3, L2s and hyperliquid 1; both tables can be overridden', async () => {
    expect(REQUIRED_CONFIRMATIONS).toEqual({ ethereum: 3, base: 1, arbitrum: 1, robinhood: 1, ink: 1, bitcoin: 2, hyperliquid: 1 });
    const { chains, clock } = open({ blockMs: { bitcoin: 1_000 }, requiredConfirmations: { bitcoin: 6 } });
    expect(chains.requiredConfirmations('bitcoin')).toBe(6);
    expect(chains.ledger('bitcoin').blockMs).toBe(1_000);
    const h = await chains.height('bitcoin');
    clock.advance(3_000);
    expect(await chains.height('bitcoin')).toBe(h + 3);
    await chains.close();
    expect(() => open({ blockMs: { base: 0 } })).toThrow(ConfigError);
    expect(() => open({ requiredConfirmations: { ethereum: -1 } })).toThrow(ConfigError);
  });

  it('a changed block interval at reopen continues from the current height instead of jumping', async () => {
    const first = open();
    first.clock.advance(120_000);
    const h = await first.chains.height('ethereum');
    await first.chains.close();
    const again = open({ file: first.file, clock: first.clock, blockMs: { ethereum: 1_000 } });
    expect(await again.chains.height('ethereum')).toBe(h);
    first.clock.advance(5_000);
    expect(await again.chains.height('ethereum')).toBe(h + 5);
    await again.chains.close();
  });
});

describe('simulated deposits (the dev listener\'s hook)', () => {
  it('mints into the sender and sends to the deposit address; the answer is the sending transfer', async () => {
    const { chains } = open();
    const t = await chains.simulateDeposit({ chain: 'bitcoin', asset: BTC, from: SATOSHI, to: HAL, amount: 150_000n });
    expect(t).toMatchObject({ chain: 'bitcoin', asset: BTC, from: SATOSHI, to: HAL, amount: 150_000n });
    expect(t.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(await chains.balanceOf('bitcoin', HAL, BTC)).toBe(150_000n);
    expect(await chains.balanceOf('bitcoin', SATOSHI, BTC)).toBe(0n);
    expect(await chains.balanceOf('bitcoin', MINT_ACCOUNT, BTC)).toBe(-150_000n);
    const all = await chains.transfers();
    expect(all.map((x) => [x.from, x.to])).toEqual([[MINT_ACCOUNT, SATOSHI], [SATOSHI, HAL]]);
    expect(all[0]!.key).toBe(`mint:${t.key}`);
    const [dep] = await chains.depositsTo('bitcoin', HAL);
    expect(dep).toMatchObject({ txId: t.txId, from: SATOSHI, amount: 150_000n, confirmations: 0 });
    await checkConservation(chains);
    await chains.close();
  });

  it('is idempotent by key: the same deposit twice mints and sends once', async () => {
    const { chains } = open();
    const d = { chain: 'base' as const, asset: BASE_USDC, from: ALICE, to: CAROL, amount: 5_000_000n, key: 'dev:1' };
    const a = await chains.simulateDeposit(d);
    const b = await chains.simulateDeposit(d);
    expect(b).toEqual(a);
    expect(a.key).toBe('dev:1');
    expect(await chains.balanceOf('base', CAROL, BASE_USDC)).toBe(5_000_000n);
    expect(await chains.transfers()).toHaveLength(2);
    // Without a key every call is a new deposit.
    await chains.simulateDeposit({ ...d, key: undefined });
    await chains.simulateDeposit({ ...d, key: undefined });
    expect(await chains.balanceOf('base', CAROL, BASE_USDC)).toBe(15_000_000n);
    await checkConservation(chains);
    await chains.close();
  });

  it('a deposit from a pool or the mint is not minted first', async () => {
    const { chains } = open();
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: poolAccount('relay'), to: BOB, amount: 7n });
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: MINT_ACCOUNT, to: BOB, amount: 3n });
    expect((await chains.transfers()).map((t) => t.from)).toEqual([poolAccount('relay'), MINT_ACCOUNT]);
    expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(10n);
    await chains.close();
  });

  it('an invalid deposit is refused before anything is minted', async () => {
    const { chains } = open();
    await expect(chains.simulateDeposit({ chain: 'base', asset: BTC, from: ALICE, to: BOB, amount: 1n })).rejects.toThrow(/not on chain base/);
    await expect(chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 0n })).rejects.toThrow();
    expect(await chains.transfers()).toEqual([]);
    await chains.close();
  });
});

describe('deposit watches deliver at least once, deduplicable by tx id', () => {
  it('reports a pending deposit at once when asked for 0 confirmations, without a poll', async () => {
    const { chains } = open();
    const seen: Deposit[] = [];
    chains.watch('base', CAROL, (d) => void seen.push(d), { minConfirmations: 0 });
    const t = await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL.toLowerCase(), amount: 9n });
    await eventually(() => seen.length > 0);
    expect(seen).toEqual([{ txId: t.txId, chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL.toLowerCase(), amount: 9n, block: t.block, confirmations: 0 }]);
    await chains.close();
  });

  it('the poll timer reports a deposit once the clock has mined enough blocks', async () => {
    const { chains, clock } = open({ pollMs: 10 });
    const seen: string[] = [];
    chains.watch('bitcoin', HAL, (d) => void seen.push(d.txId));
    const t = await chains.simulateDeposit({ chain: 'bitcoin', asset: BTC, from: SATOSHI, to: HAL, amount: 1n });
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([]);
    clock.advance(BLOCK_MS.bitcoin * REQUIRED_CONFIRMATIONS.bitcoin);
    await eventually(() => seen.length > 0);
    expect(seen).toEqual([t.txId]);
    await chains.close();
  });

  it('a callback that throws or rejects gets the deposit again on a later poll, then no more', async () => {
    const { chains } = open();
    let calls = 0;
    let rejects = 0;
    chains.watch('base', BOB, () => {
      calls++;
      if (calls === 1) throw new Error('actor busy');
    }, { minConfirmations: 0 });
    chains.watch('base', BOB, async () => {
      rejects++;
      if (rejects < 3) throw new Error('bus down');
    }, { minConfirmations: 0 });
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 1n });
    for (let i = 0; i < 5; i++) await chains.poll();
    expect(calls).toBe(2);
    expect(rejects).toBe(3);
    await chains.close();
  });

  it('a stopped watch reports nothing more; other addresses and chains are not reported', async () => {
    const { chains } = open();
    const seen: string[] = [];
    const w = chains.watch('base', BOB, (d) => void seen.push(d.to), { minConfirmations: 0 });
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL, amount: 1n });
    await chains.simulateDeposit({ chain: 'ethereum', asset: assetId('ethereum', 'USDC'), from: ALICE, to: BOB, amount: 1n });
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 1n });
    await chains.poll();
    w.stop();
    await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 2n });
    await chains.poll();
    expect(seen).toEqual([BOB]);
    await chains.close();
  });

  it('every top-up is its own deposit, reported once each', async () => {
    const { chains, clock } = open();
    const seen: bigint[] = [];
    chains.watch('base', CAROL, (d) => void seen.push(d.amount));
    for (const amount of [10n, 20n, 30n]) {
      await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL, amount });
      clock.advance(BLOCK_MS.base);
      await chains.poll();
    }
    await chains.poll();
    expect(seen).toEqual([10n, 20n, 30n]);
    await chains.close();
  });
});

describe('the ledger survives a restart', () => {
  it('closing and reopening the file keeps balances, transfers, heights and idempotency keys', async () => {
    const first = open();
    const { chains, clock, file } = first;
    await chains.simulateDeposit({ chain: 'bitcoin', asset: BTC, from: SATOSHI, to: HAL, amount: 1_000n, key: 'dep' });
    const step = await chains.transfer({ key: 'order-1:0', chain: 'bitcoin', asset: BTC, from: HAL, to: poolAccount('unit'), amount: 400n });
    clock.advance(BLOCK_MS.bitcoin * 3);
    const transfers = await chains.transfers();
    const balances = await chains.balances();
    const height = await chains.height('bitcoin');
    await chains.close();

    const again = openSimChains({ file, clock, pollMs: 0 });
    expect(await again.transfers()).toEqual(transfers);
    expect(await again.balances()).toEqual(balances);
    expect(await again.height('bitcoin')).toBe(height);
    expect(await again.confirmations(step)).toBe(height - step.block + 1);
    // The key of a step made before the restart is still known: retrying it moves nothing.
    expect(await again.transfer({ key: 'order-1:0', chain: 'bitcoin', asset: BTC, from: HAL, to: poolAccount('unit'), amount: 400n })).toEqual(step);
    expect(await again.balanceOf('bitcoin', HAL, BTC)).toBe(600n);
    await checkConservation(again);
    await again.close();
  });

  it('a watch made after a restart reports deposits that arrived before it (at least once)', async () => {
    const { chains, clock, file } = open();
    const before = await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 3n });
    clock.advance(BLOCK_MS.base);
    const seenBefore: string[] = [];
    chains.watch('base', BOB, (d) => void seenBefore.push(d.txId));
    await chains.poll();
    await chains.close();
    const again = openSimChains({ file, clock, pollMs: 0 });
    const seenAfter: string[] = [];
    again.watch('base', BOB, (d) => void seenAfter.push(d.txId));
    // No poll and no timer (pollMs 0): a new watch checks what is already there by itself.
    await eventually(() => seenAfter.length > 0);
    expect(seenBefore).toEqual([before.txId]);
    expect(seenAfter).toEqual([before.txId]);
    await again.close();
  });

  it('a clock behind the one that wrote the file never turns confirmations negative nor reopens a mined block', async () => {
    const { chains, clock, file } = open();
    clock.advance(BLOCK_MS.ethereum * 10);
    const t = await chains.transfer({ key: 'late', chain: 'ethereum', asset: assetId('ethereum', 'ETH'), from: MINT_ACCOUNT, to: ALICE, amount: 1n });
    await chains.close();
    const behind = new ManualClock(undefined, START);
    const again = openSimChains({ file, clock: behind, pollMs: 0 });
    expect(await again.height('ethereum')).toBe(t.block - 1);
    expect(await again.confirmations(t)).toBe(0);
    const next = await again.transfer({ key: 'next', chain: 'ethereum', asset: assetId('ethereum', 'ETH'), from: MINT_ACCOUNT, to: ALICE, amount: 1n });
    expect(next.block).toBeGreaterThanOrEqual(t.block);
    await again.close();
  });

  it('a closed ledger refuses with Unavailable', async () => {
    const { chains } = open();
    await chains.close();
    await expect(chains.balanceOf('base', ALICE, BASE_USDC)).rejects.toBeInstanceOf(Unavailable);
    await expect(chains.transfer({ key: 'x', chain: 'base', asset: BASE_USDC, from: MINT_ACCOUNT, to: ALICE, amount: 1n })).rejects.toBeInstanceOf(
      Unavailable,
    );
    await chains.close();
  });
});

function runWorker(file: string, mode: string, count: number): { done: Promise<string>; kill: () => void; lines: string[] } {
  const worker = join(import.meta.dirname, 'transfer-worker.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', worker, file, mode, String(count), String(START)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const lines: string[] = [];
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    const parts = out.split('\n');
    out = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const done = new Promise<string>((resolve, reject) => {
    // 'close', not 'exit': every line the child wrote before dying is read by then.
    child.on('close', (code, signal) => {
      if (code === 0 || signal === 'SIGKILL') resolve(lines.join('\n') + out);
      else reject(new Error(`worker exited ${code} ${signal}: ${err}`));
    });
  });
  return { done, kill: () => child.kill('SIGKILL'), lines };
}

describe('processes sharing one ledger file', () => {
  it('two handles on one file making one key concurrently share one transfer', async () => {
    const file = freshFile();
    const a = open({ file });
    const b = open({ file, clock: a.clock });
    const req = { key: 'both', chain: 'base' as const, asset: BASE_USDC, from: MINT_ACCOUNT, to: ALICE, amount: 5n };
    const all = await Promise.all([a.chains.transfer(req), b.chains.transfer(req), a.chains.transfer(req), b.chains.transfer(req)]);
    expect(new Set(all.map((t) => t.txId)).size).toBe(1);
    expect(await b.chains.balanceOf('base', ALICE, BASE_USDC)).toBe(5n);
    await a.chains.close();
    await b.chains.close();
  });

  it('a transfer committed after another handle scanned its block lands in a later block: a block cursor misses nothing', async () => {
    // The writer's clock one block behind the scanner's stands for a transfer whose commit (its fsync) is still running
    // when another process reads up to the height: its block was taken from the clock before the scan.
    const file = freshFile();
    const writer = open({ file, clock: new ManualClock(undefined, START) });
    const scanner = open({ file, clock: new ManualClock(undefined, START + BLOCK_MS.base) });
    const cursor = await scanner.chains.height('base');
    expect(await scanner.chains.scan('base', 1, cursor)).toEqual([]);
    const t = await writer.chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 4n });
    expect(t.block).toBeGreaterThan(cursor);
    scanner.clock.advance(BLOCK_MS.base);
    const next = await scanner.chains.height('base');
    expect((await scanner.chains.scan('base', cursor + 1, next)).map((d: Deposit) => d.txId)).toContain(t.txId);
    await writer.chains.close();
    await scanner.chains.close();
  });

  it('a file written before heights were sealed opens, keeps its heights and seals from then on', async () => {
    const file = freshFile();
    const old = new Database(file);
    old.exec('CREATE TABLE ledger_chains (chain TEXT PRIMARY KEY, genesis_at INTEGER NOT NULL, block_ms INTEGER NOT NULL)');
    old.prepare('INSERT INTO ledger_chains VALUES (?, ?, ?)').run('base', START - 10 * BLOCK_MS.base, BLOCK_MS.base);
    old.close();
    const { chains } = open({ file });
    expect(await chains.height('base')).toBe(11);
    expect(await chains.scan('base', 1, 11)).toEqual([]);
    const t = await chains.simulateDeposit({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 1n });
    expect(t.block).toBe(12);
    await chains.close();
  });

  it('three processes sending one key 20 times each make one transfer', async () => {
    const file = freshFile();
    await open({ file }).chains.close(); // create the schema first, so the workers do not race on it
    const outs = await Promise.all([0, 1, 2].map(() => runWorker(file, 'same-key', 20).done));
    const ids = new Set(outs.flatMap((o) => JSON.parse(o) as string[]));
    expect(ids.size).toBe(1);
    const { chains } = open({ file });
    expect(await chains.transfers()).toHaveLength(1);
    expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(1_000n);
    await chains.close();
  }, 60_000);

  it('SIGKILL at a random point: every transfer that resolved is on disk and conservation holds', async () => {
    for (const stopAfter of [3 + Math.floor(Math.random() * 10), 20 + Math.floor(Math.random() * 30)]) {
      const file = freshFile();
      const w = runWorker(file, 'stream', 0);
      while (w.lines.length < stopAfter) await new Promise((r) => setTimeout(r, 5));
      w.kill();
      await w.done;
      const printed = w.lines.filter((l) => l.startsWith('0x'));
      const { chains } = open({ file });
      const stored = await chains.transfers();
      const ids = new Set(stored.map((t: Transfer) => t.txId));
      for (const id of printed) expect(ids.has(id)).toBe(true);
      // At most the one in flight at the kill is on disk without having been printed.
      expect(stored.length - printed.length).toBeLessThanOrEqual(1);
      expect(new Set(stored.map((t) => t.key)).size).toBe(stored.length);
      await checkConservation(chains);
      await chains.close();
    }
  }, 60_000);
});

describe('conservation holds after random sequences of transfers', () => {
  const baseAccounts = [MINT_ACCOUNT, poolAccount('across'), ALICE, BOB, CAROL, CAROL.toLowerCase()];
  const btcAccounts = [MINT_ACCOUNT, poolAccount('unit'), SATOSHI, SATOSHI.toUpperCase(), HAL];
  const op = fc.record({
    bitcoin: fc.boolean(),
    from: fc.nat({ max: 5 }),
    to: fc.nat({ max: 5 }),
    amount: fc.bigInt({ min: 1n, max: 1_000n }),
    key: fc.nat({ max: 20 }),
    advance: fc.constantFrom(0, 0, 1_000, 600_000),
  });

  it('balances replay the transfers, non-mint balances = minted − burned, refusals exactly when a bounded account is short', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { chains, clock, file } = open();
        const model = new Map<string, bigint>();
        const byKey = new Map<string, Transfer>();
        try {
          for (const o of ops) {
            const chain = o.bitcoin ? 'bitcoin' : 'base';
            const accounts = o.bitcoin ? btcAccounts : baseAccounts;
            const asset = o.bitcoin ? BTC : BASE_USDC;
            const from = accounts[o.from % accounts.length]!;
            const to = accounts[o.to % accounts.length]!;
            const key = `k${o.key}`;
            const fk = `${chain}|${accountKey(chain, from)}`;
            const tk = `${chain}|${accountKey(chain, to)}`;
            const req = { key, chain: chain as ChainName, asset, from, to, amount: o.amount };
            const known = byKey.get(key);
            if (known) {
              expect(await chains.transfer(req)).toEqual(known);
            } else if (!isUnbounded(from) && (model.get(fk) ?? 0n) < o.amount) {
              await expect(chains.transfer(req)).rejects.toBeInstanceOf(InsufficientFunds);
            } else {
              byKey.set(key, await chains.transfer(req));
              model.set(fk, (model.get(fk) ?? 0n) - o.amount);
              model.set(tk, (model.get(tk) ?? 0n) + o.amount);
            }
            clock.advance(o.advance);
          }
          for (const [k, v] of model) {
            const [chain, address] = k.split('|') as [ChainName, string];
            expect(await chains.balanceOf(chain, address, chain === 'bitcoin' ? BTC : BASE_USDC)).toBe(v);
          }
          await checkConservation(chains);
          await chains.close();
          const again = openSimChains({ file, clock, pollMs: 0 });
          // The map keeps creation order, which is the ledger's order too.
          expect(await again.transfers()).toEqual([...byKey.values()]);
          await checkConservation(again);
          await again.close();
        } finally {
          await chains.close();
        }
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});
