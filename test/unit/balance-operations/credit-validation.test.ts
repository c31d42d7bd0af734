import { checkAdjust, checkTopup, topupCommandId } from '../../../src/domain/balance-operations/credit-validation';

describe('top-up and adjustment validation', () => {
  const target = { gpsi: '19459986891', subBalanceInstId: '19459986891-4', subBalanceType: 'On-Net Data', unitType: 'MB', amount: 2.5 };

  it('a top-up is an Add of the amount in milli-units under its reference', () => {
    expect(checkTopup({ ...target, reference: 'pay-1', referenceType: 'VOUCHER' })).toEqual({
      problems: [],
      value: { action: { subBalanceInstId: '19459986891-4', subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Add', quantity: 2500 }, reference: 'pay-1', referenceType: 'VOUCHER' },
    });
  });

  it('lists every problem of a top-up and of an adjustment at once', () => {
    expect(checkTopup({ ...target, amount: 0, reference: '', referenceType: 'CASH' }).problems.map((p) => p.path)).toEqual(['amount', 'reference', 'reference', 'referenceType']);
    expect(checkAdjust({ ...target, unitType: '', action: 'Refund', reasonCode: 'WHY', note: 'x'.repeat(201) }).problems.map((p) => p.path)).toEqual(['action', 'unitType', 'reasonCode', 'note']);
  });

  it('an adjustment Debit is a Subtract and a Credit an Add', () => {
    expect(checkAdjust({ ...target, action: 'Debit', reasonCode: 'GOODWILL' }).value.action.action).toBe('Subtract');
    expect(checkAdjust({ ...target, action: 'Credit', reasonCode: 'GOODWILL' }).value).toMatchObject({ action: { action: 'Add' }, note: null });
  });

  it('records a top-up under its customer and reference, whatever its correlation id', () => {
    expect(topupCommandId('C1', 'pay-1')).toBe(topupCommandId('C1', 'pay-1'));
    expect(topupCommandId('C1', 'pay-1')).not.toBe(topupCommandId('C2', 'pay-1'));
    expect(topupCommandId('C1', 'pay-1')).toMatch(/^[0-9a-f]{32}$/);
  });
});
