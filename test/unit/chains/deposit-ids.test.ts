// The ids orders know real-chain deposits by (`depositIds`), over deposits in scan order: a transaction's own value,
// its token transfers, then the ETH its contracts moved.
import { describe, expect, it } from 'vitest';
import { depositIds } from '../../../src/chains/real-deposits.js';

const TX = '0xabc';

describe('depositIds', () => {
  it('the first transfer of a transaction to an address keeps the plain hash; later ones to it are told apart by their place', () => {
    const ids = depositIds([
      { txId: TX, to: '0xwallet', transferIndex: null },
      { txId: TX, to: '0xd', transferIndex: 0 },
      { txId: TX, to: '0xd', transferIndex: 1 },
      { txId: TX, to: '0xe', transferIndex: 2 },
      { txId: TX, to: '0xd', transferIndex: null, callIndex: 0 },
      { txId: TX, to: '0xf', transferIndex: null, callIndex: 1 },
      { txId: TX, to: '0xf', transferIndex: null, callIndex: 3 },
    ]);
    expect(ids).toEqual([TX, TX, `${TX}:1`, TX, `${TX}:call0`, TX, `${TX}:call3`]);
  });

  it('the same address paid by another transaction starts again with its plain hash', () => {
    expect(depositIds([
      { txId: TX, to: '0xd', transferIndex: 0 },
      { txId: '0xdef', to: '0xd', transferIndex: 0 },
    ])).toEqual([TX, '0xdef']);
  });
});
