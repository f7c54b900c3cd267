// Which frames of a call trace moved ETH that stands: the rules internalValueCalls applies to a node's callTracer output.
import { describe, expect, it } from 'vitest';
import { internalValueCalls, type CallFrame } from '../../../src/chains/evm/internal-calls.js';

const frame = (type: string, from: string, to: string, value: string | undefined, rest: Partial<CallFrame> = {}): CallFrame => ({
  type, from, to, ...(value === undefined ? {} : { value }), ...rest,
});

describe('internalValueCalls', () => {
  it('lists the value-moving calls below the transaction\'s own call, in the order they ran, nested ones included, addresses lower-cased', () => {
    const root = frame('CALL', '0xUSER', '0xWALLET', '0x64', {
      calls: [
        frame('CALL', '0xWALLET', '0xA', '0x0a', { calls: [frame('CALL', '0xA', '0xB', '0x05')] }),
        frame('STATICCALL', '0xWALLET', '0xORACLE', undefined),
        frame('CALL', '0xWALLET', '0xC', '0x14'),
      ],
    });
    expect(internalValueCalls(root)).toEqual([
      { from: '0xwallet', to: '0xa', amount: 10n, index: 0 },
      { from: '0xa', to: '0xb', amount: 5n, index: 1 },
      { from: '0xwallet', to: '0xc', amount: 20n, index: 2 },
    ]);
  });

  it('the transaction\'s own value is not among them', () => {
    expect(internalValueCalls(frame('CALL', '0xuser', '0xd', '0x64'))).toEqual([]);
  });

  it('a failed call undoes itself and every call below it, yet keeps its place, so later calls keep theirs', () => {
    const root = frame('CALL', '0xuser', '0xwallet', '0x0', {
      calls: [
        frame('CALL', '0xwallet', '0xa', '0x01', { error: 'execution reverted', calls: [frame('CALL', '0xa', '0xb', '0x02')] }),
        frame('CALL', '0xwallet', '0xc', '0x03'),
      ],
    });
    expect(internalValueCalls(root)).toEqual([{ from: '0xwallet', to: '0xc', amount: 3n, index: 2 }]);
  });

  it('a transaction that failed moved nothing', () => {
    const root = frame('CALL', '0xuser', '0xwallet', '0x0', { error: 'out of gas', calls: [frame('CALL', '0xwallet', '0xa', '0x01')] });
    expect(internalValueCalls(root)).toEqual([]);
  });

  it('DELEGATECALL and CALLCODE move no ETH between accounts, even when the node shows a value; CREATE, CREATE2 and SELFDESTRUCT do', () => {
    const root = frame('CALL', '0xuser', '0xwallet', '0x0', {
      calls: [
        frame('DELEGATECALL', '0xwallet', '0xlib', '0x09'),
        frame('CALLCODE', '0xwallet', '0xlib', '0x09'),
        frame('CREATE', '0xwallet', '0xnew', '0x01'),
        frame('CREATE2', '0xwallet', '0xnew2', '0x02'),
        frame('SELFDESTRUCT', '0xwallet', '0xheir', '0x03'),
        frame('call', '0xwallet', '0xlower', '0x04'),
      ],
    });
    expect(internalValueCalls(root).map((c) => [c.to, c.amount, c.index])).toEqual([
      ['0xnew', 1n, 0], ['0xnew2', 2n, 1], ['0xheir', 3n, 2], ['0xlower', 4n, 3],
    ]);
  });

  it('a call of value 0, or without a receiver, is none', () => {
    const root = frame('CALL', '0xuser', '0xwallet', '0x0', {
      calls: [frame('CALL', '0xwallet', '0xa', '0x0'), { type: 'CREATE', from: '0xwallet', value: '0x5', error: 'out of gas' }],
    });
    expect(internalValueCalls(root)).toEqual([]);
  });
});
