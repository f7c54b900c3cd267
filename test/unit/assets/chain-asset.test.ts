// ChainAsset (spec 2.1): reading `<chain>.<asset>` in every spelling the spec allows, refusing the rest with the
// right error, and writing an asset per format so that what is written reads back to the same asset.
import fc from 'fast-check';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { ASSETS, CHAINS, findAsset, parseChainAsset, writeAsset, type Asset } from '../../../src/assets/index.js';
import { InvalidRequest, UnknownAsset } from '../../../src/errors.js';

const EVM_ASSETS = ASSETS.filter((a) => CHAINS[a.chain].kind === 'evm');
const id = (chain: Parameters<typeof findAsset>[0], symbol: string) => findAsset(chain, symbol)!.id;

/** Any casing of a string: each letter independently upper or lower. */
const anyCase = (s: string) =>
  fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((ups) =>
    [...s].map((ch, i) => (ups[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''),
  );

function refusal(input: string, field = 'from'): InvalidRequest {
  try {
    parseChainAsset(input, field);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequest);
    return err as InvalidRequest;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe('ChainAsset (input): chain is a name or evm:<chain id>; asset is a symbol, a contract address, or eth / btc for the native coin; case-insensitive', () => {
  it('every registry asset by `<chain name>.<symbol>`, in any case', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSETS).chain((a) => fc.tuple(fc.constant(a), anyCase(`${a.chain}.${a.symbol}`))), ([a, written]) => {
        expect(parseChainAsset(written, 'from')).toBe(a);
      }),
      { numRuns: 300 },
    );
  });
  it('every EVM token by `evm:<chain id>.<address>`, the address lowercase, EIP-55 checksummed or upper case', () => {
    for (const a of EVM_ASSETS.filter((x) => !x.native)) {
      const chainId = CHAINS[a.chain].evmChainId;
      const address = a.address!;
      for (const spelling of [address, getAddress(address), `0x${address.slice(2).toUpperCase()}`]) {
        expect(parseChainAsset(`evm:${chainId}.${spelling}`, 'from'), spelling).toBe(a);
        expect(parseChainAsset(`EVM:${chainId}.${spelling}`, 'from'), spelling).toBe(a);
      }
      expect(parseChainAsset(`${a.chain}.${address}`, 'to')).toBe(a); // a chain name with an address works too
    }
  });
  it('the native coin: `eth` on every EVM chain, also the zero address and 0xEeee…EEeE; `btc` on bitcoin; `hype` on hyperliquid', () => {
    for (const chain of ['ethereum', 'base', 'arbitrum', 'robinhood', 'ink'] as const) {
      const native = findAsset(chain, 'ETH')!;
      const chainId = CHAINS[chain].evmChainId;
      for (const written of [`${chain}.eth`, `${chain}.ETH`, `evm:${chainId}.eth`, `evm:${chainId}.0x0000000000000000000000000000000000000000`,
        `evm:${chainId}.0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE`, `${chain}.0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee`]) {
        expect(parseChainAsset(written, 'from'), written).toBe(native);
      }
      expect(native.native).toBe(true);
    }
    expect(parseChainAsset('bitcoin.btc', 'from').id).toBe('bitcoin.btc');
    expect(parseChainAsset('Bitcoin.BTC', 'from').id).toBe('bitcoin.btc');
    expect(parseChainAsset('hyperliquid.hype', 'from').id).toBe('hyperliquid.0x0d01dc56dcaaca66ad901c959b4011ec');
  });
  it('Hyperliquid spot assets by their token id, in any case', () => {
    for (const a of ASSETS.filter((x) => x.chain === 'hyperliquid')) {
      expect(parseChainAsset(`hyperliquid.${a.address}`, 'from')).toBe(a);
      expect(parseChainAsset(`HYPERLIQUID.0x${a.address!.slice(2).toUpperCase()}`, 'from')).toBe(a);
    }
  });
  it('examples: base.usdc, evm:8453.0x8335…, ink.usdt0, BASE.cbBTC, arbitrum.WBTC, ink.kbtc, robinhood.usdg', () => {
    expect(parseChainAsset('base.usdc', 'from').id).toBe('evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    expect(parseChainAsset('evm:8453.0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'from').id).toBe(id('base', 'USDC'));
    expect(parseChainAsset('ink.usdt0', 'from').id).toBe(id('ink', 'USDT0'));
    expect(parseChainAsset('BASE.cbBTC', 'from').id).toBe(id('base', 'cbBTC'));
    expect(parseChainAsset('arbitrum.WBTC', 'from').id).toBe(id('arbitrum', 'WBTC'));
    expect(parseChainAsset('ink.kbtc', 'from').id).toBe(id('ink', 'kBTC'));
    expect(parseChainAsset('robinhood.usdg', 'from').id).toBe('evm:4663.0x5fc5360d0400a0fd4f2af552add042d716f1d168');
  });
});

describe('ChainAsset: written `<chain>.<asset>` — a value of any other shape is a malformed request naming the field', () => {
  const MALFORMED = ['', '.', 'base', 'base.', '.usdc', 'base..usdc', 'base.usdc.usdc', 'evm:8453', ' base.usdc', 'base.usdc ',
    'base. usdc', 'base.usdc\n', '\tbase.usdc', 'base.u sdc', 'base.usdc\u2028'];
  it.each(MALFORMED)('%j is refused as InvalidRequest (code invalid_request)', (input) => {
    const err = refusal(input);
    expect(err.code).toBe('invalid_request');
    expect(err.field).toBe('from');
    expect(err.message).toBe('`from` must be a ChainAsset written <chain>.<asset>, for example base.usdc.');
  });
  it('the message names the field it was given', () => {
    expect(refusal('nodot', 'to').message).toBe('`to` must be a ChainAsset written <chain>.<asset>, for example base.usdc.');
    expect(refusal('nodot', 'to').details).toEqual({ field: 'to' });
  });
  it('the chain ends at the FIRST dot: `evm:8453.0x…` is a chain with a colon and an address', () => {
    expect(parseChainAsset('evm:8453.0x4200000000000000000000000000000000000006', 'from').id).toBe(id('base', 'WETH'));
  });
});

describe('ChainAsset: an unknown chain or asset is UnknownAsset, one sentence naming the field and the value', () => {
  const UNKNOWN_CHAIN = ['mars.usdc', 'evm:999999.usdc', 'evm:46630.eth', 'evm:0.eth', 'evm:08453.usdc', 'evm:-1.eth', 'evm:.usdc',
    'evm:8453x.usdc', 'evm:1e3.usdc', 'optimism.usdc', 'btc.btc', 'hyperevm.hype', 'evm:99999999999999999999.eth'];
  it.each(UNKNOWN_CHAIN)('%j: unknown chain', (input) => {
    const err = refusal(input);
    expect(err).toBeInstanceOf(UnknownAsset);
    expect(err.code).toBe('unknown_asset');
    expect(err.field).toBe('from');
    expect(err.message).toBe(`\`from\` value ${input} names no supported chain; chains are ethereum, base, arbitrum, robinhood, ink, bitcoin, hyperliquid or evm:<chain id>.`);
  });
  const UNKNOWN_ASSET: ReadonlyArray<readonly [string, string]> = [
    ['base.nosuchcoin', 'base'],
    ['robinhood.usdc', 'robinhood'], // no Circle USDC on Robinhood Chain
    ['ink.usdt', 'ink'], // Ink has USDT0 only
    ['bitcoin.eth', 'bitcoin'],
    ['base.hype', 'base'],
    ['hyperliquid.eth', 'hyperliquid'],
    ['bitcoin.0x0000000000000000000000000000000000000000', 'bitcoin'],
    ['hyperliquid.0x0000000000000000000000000000000000000000', 'hyperliquid'], // HYPE is not at the EVM zero address
    ['base.0x000000000000000000000000000000000000dead', 'base'],
    ['evm:1.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 'ethereum'], // Base USDC's address on the wrong chain
    ['base.0x833589fcd6edb6e08f4c7c32d4f71b54bda0291', 'base'], // 39 hex digits
    ['hyperliquid.0x6d1e7cde53ba9467b783cb7c530ce05', 'hyperliquid'], // 31 hex digits
    ['base.weth:', 'base'],
  ];
  it.each(UNKNOWN_ASSET)('%j: no such asset on %s', (input, chain) => {
    const err = refusal(input);
    expect(err.code).toBe('unknown_asset');
    expect(err.field).toBe('from');
    expect(err.message).toBe(`\`from\` value ${input} names no supported asset on ${chain}.`);
  });
  it('a very long value is cut in the message, which stays one line ending with a period', () => {
    const input = `base.${'x'.repeat(5000)}`;
    const err = refusal(input, 'to');
    expect(err.message.length).toBeLessThan(200);
    expect(err.message).toMatch(/^`to` value base\.x+… names no supported asset on base\.$/);
  });
  it('whatever the input, the answer is an asset of the registry or an InvalidRequest (never another error)', () => {
    const piece = fc.constantFrom('base', 'evm:8453', 'evm:', 'usdc', 'eth', '0x', '.', ':', 'BTC', 'hyperliquid', ' ', '0');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(piece, { maxLength: 6 }).map((p) => p.join(''))), (input) => {
        try {
          expect(ASSETS).toContain(parseChainAsset(input, 'from'));
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidRequest);
          expect((err as InvalidRequest).message).toMatch(/^`from` [^\n]+\.$/);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('Asset names per format (spec 2.1): formatted `<chain name>.<symbol>`; raw the canonical form, `evm:<chain id>.<address>` on EVM chains', () => {
  it('formatted writes the registry symbol; raw writes the canonical id', () => {
    const baseUsdc = findAsset('base', 'USDC')!;
    expect(writeAsset(baseUsdc, 'formatted')).toBe('base.USDC');
    expect(writeAsset(baseUsdc, 'raw')).toBe('evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    const btc = findAsset('bitcoin', 'BTC')!;
    expect(writeAsset(btc, 'formatted')).toBe('bitcoin.BTC');
    expect(writeAsset(btc, 'raw')).toBe('bitcoin.btc');
    expect(writeAsset(findAsset('ethereum', 'ETH')!, 'raw')).toBe('evm:1.0x0000000000000000000000000000000000000000');
    expect(writeAsset(findAsset('base', 'cbBTC')!, 'formatted')).toBe('base.cbBTC');
    expect(writeAsset(findAsset('hyperliquid', 'UBTC')!, 'raw')).toBe('hyperliquid.0x8f254b963e8468305d409b33aa137c67');
    expect(writeAsset(findAsset('hyperliquid', 'HYPE')!, 'formatted')).toBe('hyperliquid.HYPE');
  });
  it('round trip: parseChainAsset(writeAsset(a, f)) is a, for every asset and format', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSETS), fc.constantFrom('formatted' as const, 'raw' as const), (a: Asset, f) => {
        expect(parseChainAsset(writeAsset(a, f), 'from')).toBe(a);
      }),
    );
    for (const a of ASSETS) for (const f of ['formatted', 'raw'] as const) expect(parseChainAsset(writeAsset(a, f), 'to')).toBe(a);
  });
});
