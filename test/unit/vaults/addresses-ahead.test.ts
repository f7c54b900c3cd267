// Deposit addresses derived ahead on a worker thread are the ones the event loop would derive, each handed out once;
// a miss, a counter that jumps, a failed or closed thread all fall back to deriving on the loop.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { createVaults, deriveAddress, deriveAddressesAhead, parseSeed, type AddressesAhead } from '../../../src/vaults/index.js';

const seed = parseSeed('legal winner thank year wave sausage worth useful legal winner thank yellow');
const logger = createLogger('silent');
let ahead: AddressesAhead | null = null;
afterEach(async () => {
  await ahead?.close();
  ahead = null;
});

/** Waits until the thread has derived what it was asked for, then takes `index`. */
async function takeWhenReady(a: AddressesAhead, scheme: 'bip44-evm' | 'bip84-p2wpkh', index: number): Promise<string | undefined> {
  await a.caughtUp();
  return a.take(scheme, index);
}

describe('Deposit addresses derived ahead on a worker thread', () => {
  it('the addresses the thread hands over are the ones derived on the loop, for both schemes, each index once', async () => {
    ahead = deriveAddressesAhead(seed, { ahead: 8, logger });
    for (const scheme of ['bip44-evm', 'bip84-p2wpkh'] as const) {
      expect(ahead.take(scheme, 0)).toBeUndefined(); // nothing asked for yet: derived on the loop
      expect(await takeWhenReady(ahead, scheme, 1)).toBe(deriveAddress(seed, scheme, 1));
      expect(ahead.take(scheme, 1)).toBeUndefined(); // handed out once
      // Taken one after another, each after the thread caught up: every address from it, none wrong.
      for (let i = 2; i < 40; i++) expect(await takeWhenReady(ahead, scheme, i)).toBe(deriveAddress(seed, scheme, i));
    }
  });

  it('a counter that jumps (another process drew meanwhile) skips what it passed and asks from the new index', async () => {
    ahead = deriveAddressesAhead(seed, { ahead: 4, logger });
    ahead.take('bip44-evm', 0);
    expect(await takeWhenReady(ahead, 'bip44-evm', 1)).toBe(deriveAddress(seed, 'bip44-evm', 1));
    expect(ahead.take('bip44-evm', 1000)).toBeUndefined();
    expect(await takeWhenReady(ahead, 'bip44-evm', 1001)).toBe(deriveAddress(seed, 'bip44-evm', 1001));
    // Indexes below the jump are never handed out again.
    expect(ahead.take('bip44-evm', 2)).toBeUndefined();
  });

  it('a vault takes its address from the thread when it has it and derives it itself otherwise; closed, it derives them all', async () => {
    ahead = deriveAddressesAhead(seed, { ahead: 4, logger });
    const vaults = createVaults({ seed, sequences: { nextSequence: async () => 0 }, ahead });
    expect(vaults.at('base', 0).address).toBe(deriveAddress(seed, 'bip44-evm', 0));
    await ahead.caughtUp();
    expect(vaults.at('ethereum', 1).address).toBe(deriveAddress(seed, 'bip44-evm', 1));
    expect(vaults.at('ethereum', 2).address).toBe(deriveAddress(seed, 'bip44-evm', 2));
    expect(vaults.at('bitcoin', 0).address).toBe(deriveAddress(seed, 'bip84-p2wpkh', 0));
    await ahead.close();
    for (let i = 3; i < 8; i++) expect(vaults.at('base', i).address).toBe(deriveAddress(seed, 'bip44-evm', i));
  });

  it('stops asking past the last index a vault can have', async () => {
    ahead = deriveAddressesAhead(seed, { ahead: 8, logger });
    const last = 2 ** 31 - 1;
    ahead.take('bip44-evm', last - 3);
    expect(await takeWhenReady(ahead, 'bip44-evm', last)).toBe(deriveAddress(seed, 'bip44-evm', last));
  });
});
