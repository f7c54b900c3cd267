// Block timing and confirmation policy per chain: how fast heights advance, and when a deposit counts as arrived.
import type { ChainName } from '../assets/types.js';

/**
 * Target block interval in ms. Ethereum and Bitcoin are the real targets; the L2s produce blocks faster than a
 * second or two (Arbitrum and its Orbit chain Robinhood about 250 ms, Base 2 s, Ink 1 s); HyperCore about 1 s
 * as the brief fixes (its real blocks are faster, which changes nothing for the router).
 */
export const BLOCK_MS: Readonly<Record<ChainName, number>> = {
  ethereum: 12_000,
  base: 2_000,
  arbitrum: 250,
  robinhood: 250,
  ink: 1_000,
  bitcoin: 600_000,
  hyperliquid: 1_000,
};

/**
 * Confirmations before a deposit is acted on. Bitcoin 2 (a one-block reorg is routine, two is rare; ~20 min);
 * Ethereum 3 (~36 s; short reorgs before finality happen); L2s and HyperCore 1: their sequencer orders
 * transactions and a soft-confirmed block is not reorganised in practice. Raising a figure only delays orders.
 */
export const REQUIRED_CONFIRMATIONS: Readonly<Record<ChainName, number>> = {
  ethereum: 3,
  base: 1,
  arbitrum: 1,
  robinhood: 1,
  ink: 1,
  bitcoin: 2,
  hyperliquid: 1,
};

/** Height at `now` for a chain whose block 1 was mined at `genesisAt`: one block per `blockMs`, never below 1. */
export function heightAt(now: number, genesisAt: number, blockMs: number): number {
  if (now <= genesisAt) return 1;
  return 1 + Math.floor((now - genesisAt) / blockMs);
}

/** `height − block + 1`, 0 while the block is not mined yet. */
export function confirmationsAt(height: number, block: number): number {
  return Math.max(0, height - block + 1);
}
