import { checkCommit, checkRelease, checkReserve } from '../../../src/domain/balance-operations/reservation-validation';

describe('reservation command validation', () => {
  it('lists every problem of a ReserveBalance at once', () => {
    const { problems } = checkReserve({ gpsi: '12', reservationId: 'a|b', subBalanceInstId: '', amount: 1.0001, ttlSeconds: 0 });
    expect([...new Set(problems.map((p) => p.path))]).toEqual(['gpsi', 'reservationId', 'subBalanceInstId', 'amount', 'ttlSeconds']);
    expect(problems.find((p) => p.path === 'amount')?.reason).toBe('must have at most 3 decimals');
  });

  it('accepts a ReserveBalance in milli-units', () => {
    expect(checkReserve({ gpsi: '19459986891', reservationId: 'sess-1:a', subBalanceInstId: '19459986891-4', amount: 2.5, ttlSeconds: 30 })).toEqual({
      problems: [],
      value: { reservationId: 'sess-1:a', subBalanceInstId: '19459986891-4', amount: 2500, ttlSeconds: 30 },
    });
  });

  it('takes a used amount of zero (nothing used) and refuses a negative one', () => {
    expect(checkCommit({ gpsi: '19459986891', reservationId: 'r', usedAmount: 0 }).value.used).toBe(0);
    expect(checkCommit({ gpsi: '19459986891', reservationId: 'r', usedAmount: -1 }).problems).toEqual([{ path: 'usedAmount', reason: 'must be zero or more' }]);
    expect(checkRelease({ gpsi: '19459986891', reservationId: 'a b' }).problems).toEqual([{ path: 'reservationId', reason: 'must match letters, digits, . _ : -' }]);
  });
});
