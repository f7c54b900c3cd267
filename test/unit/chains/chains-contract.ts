// The one contract every Chains adapter passes: the simulated ledger (test/unit/chains/sim-chains.test.ts) and the
// hybrid facade with base real on anvil (test/chains/evm/hybrid-contract.test.ts). It uses only the port: funding
// goes through MINT_ACCOUNT, time through the harness's `advance`, outside payments through its `deposit`, and the
// user accounts are the harness's (see `ChainsHarness`).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import type { ChainName } from '../../../src/assets/types.js';
import { InsufficientFunds, MINT_ACCOUNT, accountKey, poolAccount, type Chains, type Deposit } from '../../../src/chains/index.js';
import { InvalidAmount, InvalidRequest, UnknownAsset } from '../../../src/errors.js';

export interface ChainsHarness {
  chains: Chains;
  /** Moves the chains' time forward (simulated: the manual clock; anvil: increase time and mine). */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
  /**
   * The suite's user accounts for this case; default ALICE, BOB, CAROL. An adapter over a real chain answers fresh
   * addresses it can sign for (a transfer from a user account is a real transaction there, signed with its key), so
   * one case never sees another's transfers on the shared node. `carol` is spelt checksummed (EIP-55).
   */
  accounts?: { alice: string; bob: string; carol: string };
  /**
   * Chains backed by a real node (e.g. base on anvil); absent = none. On them the suite compares a deposit's
   * addresses normalised (the node answers lower-case hex, not the request's spelling).
   */
  realChains?: readonly ChainName[];
  /**
   * Makes an outside payment on `chain`: `amount` of `asset` sent to `to` by a sender outside the router (simulated:
   * `simulateDeposit`; real: a real ERC-20 transfer from a funded dev account), answering its tx id, block and sender.
   * Absent = the adapter cannot make one and the cases that need it are left out.
   */
  deposit?(d: { chain: ChainName; asset: string; to: string; amount: bigint }): Promise<{ txId: string; block: number; from: string }>;
}

export function assetId(chain: ChainName, symbol: string): string {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`test asset ${chain} ${symbol} missing`);
  return a.id;
}

export const ALICE = '0x1111111111111111111111111111111111111111';
export const BOB = '0x2222222222222222222222222222222222222222';
/** A checksummed spelling (EIP-55) of an address, to show that case does not split accounts. */
export const CAROL = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const ALICE_ = ALICE;
const BOB_ = BOB;
const CAROL_ = CAROL;
export const SATOSHI = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
export const HAL = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';

const BASE_USDC = assetId('base', 'USDC');
const ETH = assetId('ethereum', 'ETH');
const BTC = 'bitcoin.btc';

let seq = 0;
const key = (label: string): string => `${label}:${process.pid}:${Date.now()}:${seq++}`;

export function chainsContract(name: string, open: () => Promise<ChainsHarness>): void {
  describe(`Chains contract: ${name}`, () => {
    let h: ChainsHarness;
    let chains: Chains;
    // The user accounts of this case (the harness's, else the module's constants).
    let ALICE: string;
    let BOB: string;
    let CAROL: string;
    beforeEach(async () => {
      h = await open();
      chains = h.chains;
      ({ alice: ALICE, bob: BOB, carol: CAROL } = h.accounts ?? { alice: ALICE_, bob: BOB_, carol: CAROL_ });
    });
    afterEach(async () => {
      await h.close();
    });

    /** How a deposit read back spells an address: as the request did, or normalised on a real chain (the node's hex). */
    const spelt = (chain: ChainName, address: string): string => (h.realChains?.includes(chain) ? accountKey(chain, address) : address);

    // `fund` sends from the mint. On a real chain the mint is the router's treasury, so this is a real payout from
    // it (the harness keeps the treasury stocked), not a user's deposit; an outside payment is `h.deposit`.
    const fund = (chain: ChainName, asset: string, to: string, amount: bigint) =>
      chains.transfer({ key: key('fund'), chain, asset, from: MINT_ACCOUNT, to, amount });

    describe('transfers move balances', () => {
      it('a transfer from the mint funds an account, and a transfer between accounts moves the amount', async () => {
        await fund('base', BASE_USDC, ALICE, 1_000_000n);
        const t = await chains.transfer({ key: key('pay'), chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 250_000n });
        expect(t).toMatchObject({ chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 250_000n });
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(750_000n);
        expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(250_000n);
        // Balances are per chain: the same address holds nothing of it elsewhere.
        expect(await chains.balanceOf('ethereum', BOB, ETH)).toBe(0n);
      });

      it('amounts beyond 2^64 survive (wei of large balances)', async () => {
        const big = 123_456_789_000_000_000_000_000_000_000n;
        await fund('ethereum', ETH, ALICE, big);
        await chains.transfer({ key: key('big'), chain: 'ethereum', asset: ETH, from: ALICE, to: BOB, amount: big - 1n });
        expect(await chains.balanceOf('ethereum', BOB, ETH)).toBe(big - 1n);
        expect(await chains.balanceOf('ethereum', ALICE, ETH)).toBe(1n);
      });

      it('tx ids look like the chain\'s own: 0x + 64 hex on EVM and Hyperliquid, 64 hex on Bitcoin', async () => {
        const evm = await fund('base', BASE_USDC, ALICE, 5n);
        const btc = await fund('bitcoin', BTC, SATOSHI, 5n);
        const hl = await fund('hyperliquid', assetId('hyperliquid', 'USDC'), ALICE, 5n);
        expect(evm.txId).toMatch(/^0x[0-9a-f]{64}$/);
        expect(hl.txId).toMatch(/^0x[0-9a-f]{64}$/);
        expect(btc.txId).toMatch(/^[0-9a-f]{64}$/);
        expect(new Set([evm.txId, btc.txId, hl.txId]).size).toBe(3);
      });

      it('transfers() lists transfers in the order they were made, filtered by chain, address, key or tx id', async () => {
        const a = await fund('base', BASE_USDC, ALICE, 10n);
        const b = await chains.transfer({ key: key('x'), chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 3n });
        const c = await fund('bitcoin', BTC, SATOSHI, 7n);
        expect((await chains.transfers({ chain: 'base' })).map((t) => t.txId)).toEqual([a.txId, b.txId]);
        expect((await chains.transfers({ address: BOB })).map((t) => t.txId)).toEqual([b.txId]);
        expect((await chains.transfers({ address: SATOSHI })).map((t) => t.txId)).toEqual([c.txId]);
        expect(await chains.transfers({ key: b.key })).toEqual([b]);
        expect(await chains.transfers({ txId: c.txId })).toEqual([c]);
        expect((await chains.transfers()).map((t) => t.txId)).toEqual([a.txId, b.txId, c.txId]);
        expect(await chains.ledger('base').transfers()).toEqual([a, b]);
      });

      it('EVM addresses are one account whatever their case', async () => {
        await fund('arbitrum', assetId('arbitrum', 'USDC'), CAROL, 40n);
        expect(await chains.balanceOf('arbitrum', CAROL.toLowerCase(), assetId('arbitrum', 'USDC'))).toBe(40n);
        await chains.transfer({
          key: key('case'), chain: 'arbitrum', asset: assetId('arbitrum', 'USDC'), from: CAROL.toUpperCase().replace('0X', '0x'), to: BOB, amount: 40n,
        });
        expect(await chains.balanceOf('arbitrum', CAROL, assetId('arbitrum', 'USDC'))).toBe(0n);
      });

      it('a ChainLedger is the facade bound to one chain', async () => {
        const base = chains.ledger('base');
        expect(base.chain).toBe('base');
        expect(base.blockMs).toBeGreaterThan(0);
        const t = await base.transfer({ key: key('l'), asset: BASE_USDC, from: MINT_ACCOUNT, to: ALICE, amount: 9n });
        expect(t.chain).toBe('base');
        expect(await base.balanceOf(ALICE, BASE_USDC)).toBe(9n);
        expect(await base.height()).toBe(await chains.height('base'));
        expect(await base.confirmations(t)).toBe(await chains.confirmations(t));
      });
    });

    describe('each step is idempotent by its key', () => {
      it('the same key answers the first transfer and moves nothing again', async () => {
        await fund('base', BASE_USDC, ALICE, 100n);
        const req = { key: key('order:0'), chain: 'base' as const, asset: BASE_USDC, from: ALICE, to: BOB, amount: 30n };
        const first = await chains.transfer(req);
        const again = await chains.transfer(req);
        expect(again).toEqual(first);
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(70n);
        expect(await chains.transfers({ key: req.key })).toHaveLength(1);
      });

      it('a later request with the same key but other terms still answers the first transfer', async () => {
        await fund('base', BASE_USDC, ALICE, 100n);
        const first = await chains.transfer({ key: 'k-terms', chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 30n });
        const other = await chains.transfer({ key: 'k-terms', chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL, amount: 60n });
        expect(other).toEqual(first);
        expect(await chains.balanceOf('base', CAROL, BASE_USDC)).toBe(0n);
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(70n);
      });

      it('concurrent calls with one key share one transfer', async () => {
        await fund('base', BASE_USDC, ALICE, 100n);
        const req = { key: key('race'), chain: 'base' as const, asset: BASE_USDC, from: ALICE, to: BOB, amount: 60n };
        const all = await Promise.all(Array.from({ length: 25 }, () => chains.transfer(req)));
        expect(new Set(all.map((t) => t.txId)).size).toBe(1);
        expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(60n);
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(40n);
      });
    });

    describe('insufficient funds are refused and nothing moves', () => {
      it('an account cannot send more than it holds', async () => {
        await fund('base', BASE_USDC, ALICE, 100n);
        const before = await chains.transfers();
        const err = await chains
          .transfer({ key: 'k-short', chain: 'base', asset: BASE_USDC, from: ALICE, to: BOB, amount: 101n })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InsufficientFunds);
        expect(err).toMatchObject({ code: 'insufficient_funds', details: { balance: '100', amount: '101', address: ALICE } });
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(100n);
        expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(0n);
        expect(await chains.transfers()).toEqual(before);
      });

      it('an account that never held the asset cannot send it', async () => {
        await expect(chains.transfer({ key: key('empty'), chain: 'bitcoin', asset: BTC, from: SATOSHI, to: HAL, amount: 1n })).rejects.toBeInstanceOf(
          InsufficientFunds,
        );
      });

      it('a refusal is not remembered: the same key goes through once the account is funded', async () => {
        const req = { key: key('later'), chain: 'base' as const, asset: BASE_USDC, from: ALICE, to: BOB, amount: 50n };
        await expect(chains.transfer(req)).rejects.toBeInstanceOf(InsufficientFunds);
        await fund('base', BASE_USDC, ALICE, 50n);
        const t = await chains.transfer(req);
        expect(t.amount).toBe(50n);
        expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(50n);
      });

      it('requests that break the port\'s rules are refused with typed errors', async () => {
        const ok = { key: key('bad'), chain: 'base' as const, asset: BASE_USDC, from: MINT_ACCOUNT, to: ALICE, amount: 1n };
        await expect(chains.transfer({ ...ok, amount: 0n })).rejects.toBeInstanceOf(InvalidAmount);
        await expect(chains.transfer({ ...ok, amount: -5n })).rejects.toBeInstanceOf(InvalidAmount);
        await expect(chains.transfer({ ...ok, asset: ETH })).rejects.toBeInstanceOf(UnknownAsset);
        await expect(chains.transfer({ ...ok, asset: 'evm:8453.0xdead' })).rejects.toBeInstanceOf(UnknownAsset);
        await expect(chains.transfer({ ...ok, chain: 'solana' as never })).rejects.toBeInstanceOf(InvalidRequest);
        await expect(chains.transfer({ ...ok, to: '' })).rejects.toBeInstanceOf(InvalidRequest);
        expect(await chains.transfers()).toEqual([]);
      });
    });

    describe('mint and pool accounts keep conservation checkable', () => {
      it('a pool may pay out more than it received; every (chain, asset) still sums to zero', async () => {
        const pool = poolAccount('across');
        await chains.transfer({ key: key('p'), chain: 'base', asset: BASE_USDC, from: pool, to: BOB, amount: 500n });
        expect(await chains.balanceOf('base', pool, BASE_USDC)).toBe(-500n);
        await fund('base', BASE_USDC, ALICE, 200n);
        await chains.transfer({ key: key('p'), chain: 'base', asset: BASE_USDC, from: ALICE, to: pool, amount: 200n });
        expect(await chains.balanceOf('base', pool, BASE_USDC)).toBe(-300n);
        const all = await chains.balances({ chain: 'base', asset: BASE_USDC });
        expect(all.reduce((s, b) => s + b.amount, 0n)).toBe(0n);
      });

      it('sending to the mint burns: non-mint balances sum to minted − burned', async () => {
        await fund('bitcoin', BTC, SATOSHI, 1_000n);
        await fund('bitcoin', BTC, HAL, 500n);
        await chains.transfer({ key: key('burn'), chain: 'bitcoin', asset: BTC, from: SATOSHI, to: MINT_ACCOUNT, amount: 300n });
        const held = (await chains.balances({ chain: 'bitcoin', asset: BTC }))
          .filter((b) => b.address !== MINT_ACCOUNT)
          .reduce((s, b) => s + b.amount, 0n);
        expect(held).toBe(1_500n - 300n);
        expect(await chains.balanceOf('bitcoin', MINT_ACCOUNT, BTC)).toBe(-(1_500n - 300n));
      });
    });

    describe('blocks and confirmations', () => {
      it('confirmations grow by one per block as time passes', async () => {
        for (const chain of ['ethereum', 'base', 'bitcoin', 'hyperliquid'] as const) {
          const asset = chain === 'bitcoin' ? BTC : chain === 'ethereum' ? ETH : chain === 'base' ? BASE_USDC : assetId('hyperliquid', 'HYPE');
          const t = await fund(chain, asset, chain === 'bitcoin' ? SATOSHI : ALICE, 1n);
          const c0 = await chains.confirmations(t);
          const ms = chains.ledger(chain).blockMs;
          await h.advance(ms);
          expect(await chains.confirmations(t)).toBe(c0 + 1);
          await h.advance(ms * 5);
          expect(await chains.confirmations(t)).toBe(c0 + 6);
          expect(await chains.confirmations(t)).toBe((await chains.height(chain)) - t.block + 1);
        }
      });

      it('a transfer is in a block above every mined block of earlier transfers, and the height never goes back', async () => {
        const a = await fund('base', BASE_USDC, ALICE, 1n);
        const h1 = await chains.height('base');
        await h.advance(chains.ledger('base').blockMs * 3);
        const b = await fund('base', BASE_USDC, ALICE, 1n);
        expect(b.block).toBeGreaterThan(a.block);
        expect(await chains.height('base')).toBeGreaterThanOrEqual(h1 + 3);
      });

      it('requires confirmations per chain: Bitcoin and Ethereum more than one, the L2s and Hyperliquid one', () => {
        expect(chains.requiredConfirmations('bitcoin')).toBeGreaterThanOrEqual(1);
        expect(chains.requiredConfirmations('ethereum')).toBeGreaterThan(1);
        for (const c of ['base', 'arbitrum', 'robinhood', 'ink', 'hyperliquid'] as const) expect(chains.requiredConfirmations(c)).toBe(1);
      });
    });

    describe('deposits are seen with sender, asset, amount and tx id', () => {
      it('depositsTo lists the incoming transfers of an address, and only those', async () => {
        await fund('base', BASE_USDC, ALICE, 100n);
        const t = await chains.transfer({ key: key('dep'), chain: 'base', asset: BASE_USDC, from: ALICE, to: CAROL, amount: 70n });
        await chains.transfer({ key: key('out'), chain: 'base', asset: BASE_USDC, from: CAROL, to: BOB, amount: 10n });
        const deps = await chains.depositsTo('base', CAROL.toLowerCase());
        expect(deps).toHaveLength(1);
        expect(deps[0]).toMatchObject({ txId: t.txId, chain: 'base', asset: BASE_USDC, from: spelt('base', ALICE), to: spelt('base', CAROL), amount: 70n, block: t.block });
        expect(await chains.depositsTo('base', CAROL, t.block + 1)).toEqual([]);
        expect(await chains.depositsTo('ethereum', CAROL)).toEqual([]);
      });

      // On Bitcoin, simulated in every harness: on a real EVM chain `scan` leaves out the router's own sends (from
      // its treasury and gas account), so "every transfer" holds only where nothing is real; a real chain's scan is
      // held to the outside-payment cases below.
      it('scan sees every transfer of mined blocks once with a block cursor', async () => {
        const seen: Deposit[] = [];
        let cursor = 1;
        const pass = async () => {
          const toBlock = await chains.height('bitcoin');
          seen.push(...(await chains.scan('bitcoin', cursor, toBlock)));
          cursor = toBlock + 1;
        };
        const made = [];
        for (let i = 0; i < 4; i++) {
          made.push(await fund('bitcoin', BTC, SATOSHI, BigInt(i + 1)));
          await pass();
          await h.advance(chains.ledger('bitcoin').blockMs * (i % 2));
        }
        await h.advance(chains.ledger('bitcoin').blockMs);
        await pass();
        expect(seen.map((d) => d.txId)).toEqual(made.map((t) => t.txId));
      });

      it('a watch reports a deposit once it has the required confirmations, with its sender', async () => {
        const seen: Deposit[] = [];
        const w = chains.watch('ethereum', BOB, (d) => void seen.push(d));
        await fund('ethereum', ETH, ALICE, 10n);
        const t = await chains.transfer({ key: key('w'), chain: 'ethereum', asset: ETH, from: ALICE, to: BOB, amount: 10n });
        const need = chains.requiredConfirmations('ethereum');
        const ms = chains.ledger('ethereum').blockMs;
        while ((await chains.confirmations(t)) < need) {
          await chains.poll();
          expect(seen).toEqual([]);
          await h.advance(ms);
        }
        await chains.poll();
        await chains.poll();
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({ txId: t.txId, from: ALICE, to: BOB, asset: ETH, amount: 10n });
        expect(seen[0]!.confirmations).toBeGreaterThanOrEqual(need);
        w.stop();
      });
    });

    // An outside payment is made by the harness (`deposit` capability), because only the simulation can conjure one
    // from the mint: on a real chain it is a real transaction from an account outside the router. Base is used, the
    // chain a hybrid harness makes real. No assumption on when it is mined: pending in the next block (simulated) or
    // mined at once (anvil's automine); the cases wait a block's time before reading mined blocks.
    describe('outside payments (capability `deposit`)', () => {
      it('a payment from outside is seen by depositsTo and scan with its sender, and booked to the receiver', async (ctx) => {
        if (!h.deposit) return ctx.skip();
        const d = await h.deposit({ chain: 'base', asset: BASE_USDC, to: BOB, amount: 5_000n });
        expect(d.txId).toMatch(/^0x[0-9a-f]{64}$/);
        const want = { txId: d.txId, chain: 'base', asset: BASE_USDC, from: spelt('base', d.from), to: spelt('base', BOB), amount: 5_000n, block: d.block };
        expect(await chains.depositsTo('base', BOB)).toEqual([expect.objectContaining(want)]);
        await h.advance(chains.ledger('base').blockMs);
        expect((await chains.scan('base', d.block)).filter((x) => x.txId === d.txId)).toEqual([expect.objectContaining(want)]);
        // Once scanned, the receiver holds it and may spend it (on a real chain: a real send it signs).
        expect(await chains.balanceOf('base', BOB, BASE_USDC)).toBe(5_000n);
        const out = await chains.transfer({ key: key('spend'), chain: 'base', asset: BASE_USDC, from: BOB, to: ALICE, amount: 5_000n });
        expect(out.amount).toBe(5_000n);
        expect(await chains.balanceOf('base', ALICE, BASE_USDC)).toBe(5_000n);
      });

      it('a watch reports each outside payment once it has the required confirmations, with its sender', async (ctx) => {
        if (!h.deposit) return ctx.skip();
        const seen: Deposit[] = [];
        const w = chains.watch('base', CAROL, (x) => void seen.push(x));
        const need = chains.requiredConfirmations('base');
        const made = [];
        for (const amount of [10n, 20n]) {
          const d = await h.deposit({ chain: 'base', asset: BASE_USDC, to: CAROL, amount });
          made.push(d);
          while ((await chains.confirmations({ chain: 'base', block: d.block })) < need) await h.advance(chains.ledger('base').blockMs);
          await chains.poll();
          await chains.poll();
        }
        w.stop();
        expect(seen.map((x) => [x.txId, x.from, x.amount])).toEqual(made.map((d, i) => [d.txId, spelt('base', d.from), [10n, 20n][i]]));
        for (const x of seen) expect(x.confirmations).toBeGreaterThanOrEqual(need);
      });
    });
  });
}
