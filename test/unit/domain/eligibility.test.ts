import { decideEligibility } from '../../../src/domain/portin/eligibility';
import { Problems, checkArray, checkInteger, checkString } from '../../../src/domain/validation/problems';
import { GPSI } from '../../../src/domain/validation/spec-fields';

describe('eligibility', () => {
  const ranges = [{ prefix: '1900', reasonCode: '8B', reasonDesc: 'PremiumRateNumber' }];
  it('rejects an active number with the origin API sample 8A NumberAlreadyActive, before any range', () => {
    expect(decideEligibility({ gpsi: '19001234567', hasActiveSubscription: true, hasPortInProgress: false, nonPortableRanges: ranges })).toEqual({
      eligibilityStatus: 'Reject',
      reasonCode: '8A',
      reasonDesc: 'NumberAlreadyActive',
    });
  });
  it('rejects a non-portable range with its own code, otherwise Eligible', () => {
    expect(decideEligibility({ gpsi: '19001234567', hasActiveSubscription: false, hasPortInProgress: false, nonPortableRanges: ranges }).reasonCode).toBe('8B');
    expect(decideEligibility({ gpsi: '14155550123', hasActiveSubscription: false, hasPortInProgress: false, nonPortableRanges: ranges })).toEqual({
      eligibilityStatus: 'Eligible',
      reasonCode: null,
      reasonDesc: null,
    });
  });
});

describe('field checks collect every problem', () => {
  it('string: required, type, length and pattern', () => {
    const problems = new Problems();
    checkString(problems, 'a', undefined, { ...GPSI, required: true });
    checkString(problems, 'b', 12, GPSI);
    checkString(problems, 'c', '12x', GPSI);
    checkString(problems, 'd', undefined, GPSI);
    expect(problems.list).toEqual([
      { path: 'a', reason: 'is required' },
      { path: 'b', reason: 'must be a string' },
      { path: 'c', reason: 'must be at least 11 characters' },
      { path: 'c', reason: 'must match 11 to 15 digits' },
    ]);
  });
  it('integer and array bounds; an oversized array is not walked', () => {
    const problems = new Problems();
    expect(checkInteger(problems, 'day', 29, { min: 1, max: 28 })).toBe(false);
    expect(checkInteger(problems, 'day2', 1.5, { min: 1 })).toBe(false);
    expect(checkArray(problems, 'ids', new Array(101).fill('x'), { maxItems: 100 })).toBeUndefined();
    expect(checkArray(problems, 'ids2', 'x', {})).toBeUndefined();
    expect(problems.list.map((p) => p.path)).toEqual(['day', 'day2', 'ids', 'ids2']);
  });
});
