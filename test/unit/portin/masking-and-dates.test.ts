import fc from 'fast-check';
import { addBusinessDays, defaultBillCycleStartDay, desiredDueDate } from '../../../src/domain/portin/due-date';
import { MASK, maskAccountNo, mergePortInfo, revealSecrets, separateSecrets } from '../../../src/domain/portin/masking';

describe('masking', () => {
  it('masks pwdPin whole and shows the last four of a long accountNo', () => {
    expect(separateSecrets({ pwdPin: '4321', accountNo: '123456789012', authorizationName: 'A' })).toEqual({
      portInfo: { pwdPin: '****', accountNo: '****9012', authorizationName: 'A' },
      secrets: { pwdPin: '4321', accountNo: '123456789012' },
    });
    expect(maskAccountNo('1234567')).toBe(MASK);
    expect(separateSecrets({ contact: { firstName: 'A' } })).toEqual({ portInfo: { contact: { firstName: 'A' } }, secrets: {} });
  });

  it('never leaves a secret of 1 to 32 characters in the masked info, and reveals it back', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 16 }), fc.string({ minLength: 8, maxLength: 32 }), (pin, account) => {
        const { portInfo, secrets } = separateSecrets({ pwdPin: pin, accountNo: account });
        expect(portInfo.pwdPin).toBe(MASK);
        expect(portInfo.accountNo).toBe(`${MASK}${account.slice(-4)}`);
        expect(revealSecrets(portInfo, secrets)).toEqual({ pwdPin: pin, accountNo: account });
      }),
    );
  });

  it('merges an update member by member: given members replace, others stay, nested ones merge', () => {
    const base = { pwdPin: '1', authorizationName: 'A', contact: { firstName: 'F', lastName: 'L' }, location: { portAddress: { city: 'C', zip: 'Z' } } };
    expect(mergePortInfo(base, { pwdPin: '2', contact: { lastName: 'M', businessName: 'B', firstName: null }, location: { portAddress: { zip: 'Y' } } })).toEqual({
      pwdPin: '2',
      authorizationName: 'A',
      contact: { firstName: 'F', lastName: 'M', businessName: 'B' },
      location: { portAddress: { city: 'C', zip: 'Y' } },
    });
  });
});

describe('due dates', () => {
  it.each([
    ['2026-03-04T10:00:00.000Z', 1, '2026-03-05T10:00:00.000Z'], // Wednesday → Thursday
    ['2026-03-06T10:00:00.000Z', 1, '2026-03-09T10:00:00.000Z'], // Friday → Monday
    ['2026-03-07T10:00:00.000Z', 1, '2026-03-09T10:00:00.000Z'], // Saturday → Monday
    ['2026-03-06T10:00:00.000Z', 2, '2026-03-10T10:00:00.000Z'],
    ['2026-03-08T10:00:00.000Z', 0, '2026-03-09T10:00:00.000Z'], // Sunday, no interval → Monday
  ])('%s + %d business day(s) = %s', (from, days, due) => {
    expect(desiredDueDate(new Date(from), days)).toBe(due);
  });

  it('never lands on a weekend and never before the interval', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }), fc.integer({ min: 0, max: 10 }), (from, days) => {
        const due = addBusinessDays(from, days);
        expect([0, 6]).not.toContain(due.getUTCDay());
        expect(due.getTime() - from.getTime()).toBeGreaterThanOrEqual(days * 24 * 3600 * 1000);
      }),
    );
  });

  it('defaults the bill cycle start day to the submission day, at most 28', () => {
    expect(defaultBillCycleStartDay(new Date('2026-03-04T10:00:00Z'))).toBe(4);
    expect(defaultBillCycleStartDay(new Date('2026-03-31T10:00:00Z'))).toBe(28);
  });
});
