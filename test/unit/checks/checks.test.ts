// The shape checks refuse a value of another shape and name the first place in it that does not read, so a refusal at
// a boundary (a bus message, a stored entry, an admin answer, a stored snapshot) says which field to look at.
import { describe, expect, it } from 'vitest';
import {
  arrayOf, describeWrongAt, isBigint, isInteger, isString, mapOf, nullable, oneOf, optional, shapeOf, variantsOf, wrongAt,
} from '../../../src/checks.js';

type Leg = { kind: 'swap'; venue: string; amount: bigint } | { kind: 'hold'; account: string };
const isLeg = variantsOf<Leg, 'kind'>('kind', {
  swap: shapeOf<Extract<Leg, { kind: 'swap' }>>({ kind: oneOf(['swap']), venue: isString, amount: isBigint }),
  hold: shapeOf<Extract<Leg, { kind: 'hold' }>>({ kind: oneOf(['hold']), account: isString }),
});
interface Order {
  id: string;
  legs: Leg[];
  prices: Record<string, bigint>;
  note: string | null;
  retries?: number;
}
const isOrder = shapeOf<Order>({ id: isString, legs: arrayOf(isLeg), prices: mapOf(isBigint), note: nullable(isString), retries: optional(isInteger) });
const order: Order = { id: 'o', legs: [{ kind: 'hold', account: 'a' }, { kind: 'swap', venue: 'relay', amount: 5n }], prices: { 'base.usdc': 1n }, note: null };

describe('a check passes its shape and refuses another, naming the first place that does not read', () => {
  it('a value of the shape passes; absent optional and null nullable fields included', () => {
    expect(isOrder(order)).toBe(true);
    expect(isOrder({ ...order, retries: 2, note: 'n' })).toBe(true);
  });

  const wrong: Array<[string, unknown, string]> = [
    ['a field of another type', { ...order, id: 7 }, 'id'],
    ['a missing field', { legs: order.legs, prices: order.prices, note: null }, 'id'],
    ['a field inside a list item', { ...order, legs: [order.legs[0], { kind: 'swap', venue: 'relay', amount: 5 }] }, 'legs[1].amount'],
    ['a variant the union does not have', { ...order, legs: [{ kind: 'teleport' }] }, 'legs[0].kind'],
    ['a value of a map, by its key', { ...order, prices: { 'base.usdc': 1n, 'arbitrum.usdc': '2' } }, 'prices["arbitrum.usdc"]'],
    ['an optional field present with another type', { ...order, retries: 1.5 }, 'retries'],
    ['a list that is not a list', { ...order, legs: {} }, 'legs'],
  ];
  for (const [name, value, path] of wrong) {
    it(name, () => {
      expect(isOrder(value)).toBe(false);
      expect(wrongAt(isOrder, value)).toBe(path);
      expect(describeWrongAt(isOrder, value)).toBe(`\`${path}\``);
    });
  }

  it('a value that is not an object at all fails at the value itself', () => {
    expect(wrongAt(isOrder, 'order')).toBe('');
    expect(describeWrongAt(isOrder, null)).toBe('the value itself');
  });
});
