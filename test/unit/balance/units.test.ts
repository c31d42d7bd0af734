import fc from 'fast-check';
import { fromMilli, MAX_UNITS, toMilli } from '../../../src/domain/balance/units';

describe('quantities in milli-units', () => {
  it.each([
    [1, 1000],
    [0.001, 1],
    [0.1, 100],
    [1.5, 1500],
    [5120, 5120000],
    [MAX_UNITS, MAX_UNITS * 1000],
  ])('converts %p to %p milli-units', (quantity, milli) => {
    expect(toMilli(quantity)).toEqual({ milli });
  });

  it.each([
    [0, 'must be greater than zero'],
    [-1, 'must be greater than zero'],
    [Number.NaN, 'must be a finite number'],
    [Number.POSITIVE_INFINITY, 'must be a finite number'],
    ['5', 'must be a finite number'],
    [null, 'must be a finite number'],
    [0.0001, 'must have at most 3 decimals'],
    [1.2345, 'must have at most 3 decimals'],
    [MAX_UNITS + 1, `must be at most ${MAX_UNITS}`],
  ])('refuses %p: %s', (quantity, reason) => {
    expect(toMilli(quantity)).toEqual({ reason });
  });

  it('round-trips every quantity with at most three decimals exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_UNITS * 1000 }), (milli) => {
        const quantity = Number((milli / 1000).toFixed(3));
        expect(toMilli(quantity)).toEqual({ milli });
        expect(fromMilli(milli)).toBe(quantity);
      }),
    );
  });

  it('makes decimal sums exact: 0.1 + 0.2 is 0.3', () => {
    const a = toMilli(0.1) as { milli: number };
    const b = toMilli(0.2) as { milli: number };
    expect(fromMilli(a.milli + b.milli)).toBe(0.3);
  });
});
