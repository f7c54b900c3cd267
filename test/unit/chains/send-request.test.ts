// An EVM send request checked before anything is read or signed (checkSendRequest): each refusal is the typed error
// of its field.
import { describe, expect, it } from 'vitest';
import { findAsset } from '../../../src/assets/registry.js';
import { checkSendRequest, type EvmSendRequest } from '../../../src/chains/evm/sender.js';
import { InvalidAddress, InvalidAmount, InvalidRequest, UnknownAsset } from '../../../src/errors.js';

const USDC_BASE = findAsset('base', 'USDC')!.id;
const USDC_ARBITRUM = findAsset('arbitrum', 'USDC')!.id;
const ok: EvmSendRequest = {
  key: 'o1:deliver', asset: USDC_BASE, from: '0x1111111111111111111111111111111111111111', to: '0x2222222222222222222222222222222222222222', amount: 5n,
};

describe('an EVM send request is checked before anything is read or signed', () => {
  it('a request of this chain passes', () => {
    expect(() => checkSendRequest(ok, 'base')).not.toThrow();
  });

  const refused: Array<[string, Partial<Record<keyof EvmSendRequest, unknown>>, new (...args: never[]) => Error, string]> = [
    ['an empty key', { key: '' }, InvalidRequest, 'key'],
    ['a key over 512 characters', { key: 'k'.repeat(513) }, InvalidRequest, 'key'],
    ['an asset of another chain', { asset: USDC_ARBITRUM }, UnknownAsset, 'asset'],
    ['a sender that is no EVM address', { from: 'order:o1' }, InvalidAddress, 'from'],
    ['a recipient that is no EVM address', { to: 'bc1qxyz' }, InvalidAddress, 'to'],
    ['an amount of zero', { amount: 0n }, InvalidAmount, 'amount'],
    ['an amount as a number', { amount: 5 }, InvalidAmount, 'amount'],
  ];
  for (const [name, change, Err, field] of refused) {
    it(`${name} is refused, naming ${field}`, () => {
      const req = { ...ok, ...change } as EvmSendRequest;
      expect(() => checkSendRequest(req, 'base')).toThrow(Err);
      try {
        checkSendRequest(req, 'base');
      } catch (err) {
        expect(err).toMatchObject({ field });
      }
    });
  }
});
