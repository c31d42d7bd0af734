import { checkCreatePortOrder, checkEligibilityList, MAX_ORDER_NUMBERS, portInOf } from '../../../src/domain/port-orders/validate';
import { createCommand } from '../../support/portin/journey';

const { partnerTransactionId: _pti, gpsi: _gpsi, ...shared } = createCommand('10000000001');
void _pti;
void _gpsi;
const order = (numbers: unknown[], extra: Record<string, unknown> = {}) => ({ ...shared, orderId: 'ORD-1', numbers, ...extra });

describe('CreatePortOrder validation', () => {
  it('accepts an order and gives each number its own CreatePortIn, the partnerTransactionId derived when not given', () => {
    const checked = checkCreatePortOrder(order([{ gpsi: '12345678901' }, { gpsi: '12345678902', partnerTransactionId: 'MINE', subscriberId: 'SUB-2' }]));
    expect(checked.problems).toEqual([]);
    expect(checked.value?.numbers.map((n) => [n.gpsi, n.partnerTransactionId, n.portIn.subscriberId])).toEqual([
      ['12345678901', 'ORD-1-12345678901', 'SUB-1'],
      ['12345678902', 'MINE', 'SUB-2'],
    ]);
    expect(portInOf(order([]), { gpsi: '12345678901' })).toMatchObject({ ...shared, gpsi: '12345678901' });
  });

  it('names every bad number at its place, a shared field once, a repeated number at its later place', () => {
    const { problems, value } = checkCreatePortOrder(order([{ gpsi: '123' }, { gpsi: '12345678901' }, { gpsi: '12345678901' }, { gpsi: null }], { orderId: 'has space', wholesalePlanId: null }));
    expect(value).toBeUndefined();
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'orderId', reason: 'must match letters, digits, hyphens or underscores' },
        expect.objectContaining({ path: 'numbers[0].gpsi' }),
        { path: 'numbers[2].gpsi', reason: 'is already in the order at numbers[1]' },
        { path: 'numbers[3].gpsi', reason: 'is required' },
        { path: 'wholesalePlanId', reason: 'is required' },
      ]),
    );
    expect(problems.filter((p) => p.path === 'wholesalePlanId')).toHaveLength(1);
    expect(problems.some((p) => p.path.startsWith('numbers[1]') || p.path === 'numbers[2].partnerTransactionId')).toBe(false);
  });

  it('refuses an empty order and one over the limit, saying its size', () => {
    expect(checkCreatePortOrder(order([])).problems).toEqual([{ path: 'numbers', reason: 'must hold at least one number' }]);
    const tooMany = Array.from({ length: MAX_ORDER_NUMBERS + 1 }, (_, i) => ({ gpsi: String(10000000000 + i) }));
    expect(checkCreatePortOrder(order(tooMany)).problems).toEqual([{ path: 'numbers', reason: `must hold at most ${MAX_ORDER_NUMBERS} numbers (has ${MAX_ORDER_NUMBERS + 1})` }]);
  });

  it('an eligibility list: every bad number named, at most the limit', () => {
    expect(new Set(checkEligibilityList({ numbers: ['12345678901', 'abc', '1'] }).problems.map((p) => p.path))).toEqual(new Set(['numbers[1]', 'numbers[2]']));
    expect(checkEligibilityList({ numbers: Array.from({ length: MAX_ORDER_NUMBERS + 1 }, () => '12345678901') }).problems).toHaveLength(1);
  });
});
