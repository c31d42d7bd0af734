import { ServiceError, type FieldProblem } from '../../../src/contract/errors';
import { LIMITS, checkCancelPortIn, checkCreatePortIn, checkQueryPortIn, checkUpdatePortIn } from '../../../src/domain/portin/validate-commands';
import { orBadRequest } from '../../../src/domain/validation/problems';
import { T0, rawCreate } from '../../support/portin/fixtures';

// The command, or the one BAD_REQUEST listing every problem, as the handlers take them.
const validateCreatePortIn = (...args: Parameters<typeof checkCreatePortIn>) => orBadRequest(checkCreatePortIn(...args));
const validateUpdatePortIn = (...args: Parameters<typeof checkUpdatePortIn>) => orBadRequest(checkUpdatePortIn(...args));
const validateCancelPortIn = (value: unknown) => orBadRequest(checkCancelPortIn(value));
const validateQueryPortIn = (value: unknown) => orBadRequest(checkQueryPortIn(value));

function problemsOf(run: () => unknown): FieldProblem[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'BAD_REQUEST') return error.problems;
    throw error;
  }
  throw new Error('expected BAD_REQUEST');
}
const paths = (problems: FieldProblem[]) => problems.map((p) => p.path);

describe('CreatePortIn validation', () => {
  it('accepts a valid command and normalises it: MONTHLY by default, nulls dropped', () => {
    const command = validateCreatePortIn(rawCreate());
    expect(command).toMatchObject({ partnerTransactionId: 'PTX-1', billCycleFrequency: 'MONTHLY', billCycleStartDay: 5, eSIMDeliveryMethod: 'QR' });
    expect(command.iccid).toBeUndefined();
    expect(command.portInfo.contact).toEqual({ isBusinessType: false, firstName: 'Ada', lastName: 'Lovelace' });
    expect(command.products).toEqual([{ productId: 'VOICEMAIL', action: 'add', characteristics: [{ key: 'lang', value: 'en' }] }]);
  });

  it('accepts the optional identifiers at their bounds', () => {
    const command = validateCreatePortIn(rawCreate({ iccid: '8'.repeat(19), pei: '3'.repeat(17), eid: '8'.repeat(32), billCycleStartDay: 28, billCycleFrequency: 'MONTHLY' }));
    expect(command).toMatchObject({ iccid: '8'.repeat(19), pei: '3'.repeat(17), eid: '8'.repeat(32), billCycleStartDay: 28 });
  });

  it('requires partnerTransactionId, subscriberId, wholesalePlanId, gpsi and portInfo, all reported at once', () => {
    const problems = problemsOf(() => validateCreatePortIn({}));
    expect(problems).toEqual([
      { path: 'partnerTransactionId', reason: 'is required' },
      { path: 'subscriberId', reason: 'is required' },
      { path: 'wholesalePlanId', reason: 'is required' },
      { path: 'gpsi', reason: 'is required' },
      { path: 'portInfo', reason: 'is required' },
    ]);
  });

  it.each([
    ['partnerTransactionId', 'x'.repeat(37), 'must be at most 36 characters'],
    ['partnerTransactionId', '', 'must be at least 1 characters'],
    ['subscriberId', '_abc', 'must match a letter, digit, hyphen or space first'],
    ['subscriberId', 'a'.repeat(37), 'must be at most 36 characters'],
    ['wholesalePlanId', '#plan', 'must match a letter, digit, hyphen or space first'],
    ['gpsi', '1234567890', 'must be at least 11 characters'],
    ['gpsi', '12345678901a', 'must match 11 to 15 digits'],
    ['iccid', '123', 'must be at least 19 characters'],
    ['iccid', '1'.repeat(21), 'must be at most 20 characters'],
    ['pei', '1'.repeat(14), 'must be at least 15 characters'],
    ['pei', 'a'.repeat(15), 'must match 15 to 17 digits'],
    ['eid', '1'.repeat(33), 'must be at most 32 characters'],
    ['eSIMDeliveryMethod', 'EMAIL', 'must be one of QR'],
    ['billCycleFrequency', 'WEEKLY', 'must be one of MONTHLY'],
    ['billCycleStartDay', 0, 'must be between 1 and 28'],
    ['billCycleStartDay', 29, 'must be between 1 and 28'],
    ['billCycleStartDay', 1.5, 'must be a whole number'],
    ['bucketRefId', 'b1', 'must be an array'],
    ['products', {}, 'must be an array'],
    ['portInfo', 'text', 'must be an object'],
  ])('%s = %j: %s', (field, value, reason) => {
    expect(problemsOf(() => validateCreatePortIn(rawCreate({ [field]: value })))).toContainEqual({ path: field, reason });
  });

  it('checks every bucketRefId item and caps the list', () => {
    expect(problemsOf(() => validateCreatePortIn(rawCreate({ bucketRefId: ['a', '', 'b', 7] })))).toEqual([
      { path: 'bucketRefId[1]', reason: 'must be at least 1 characters' },
      { path: 'bucketRefId[3]', reason: 'must be a string' },
    ]);
    const tooMany = Array.from({ length: LIMITS.bucketRefIds + 1 }, (_, i) => `b${i}`);
    expect(problemsOf(() => validateCreatePortIn(rawCreate({ bucketRefId: tooMany })))).toEqual([{ path: 'bucketRefId', reason: `must have at most ${LIMITS.bucketRefIds} item(s)` }]);
  });

  it('checks products: productId, action (any case), characteristics', () => {
    const products = [
      { productId: 'P1', action: 'ADD', characteristics: null },
      {
        productId: '',
        action: 'replace',
        characteristics: [
          { key: '', value: 'v' },
          { key: 'k', value: 'v'.repeat(257) },
        ],
      },
      'not an object',
    ];
    expect(problemsOf(() => validateCreatePortIn(rawCreate({ products })))).toEqual([
      { path: 'products[1].productId', reason: 'must be at least 1 characters' },
      { path: 'products[1].action', reason: 'must be one of add, remove, update' },
      { path: 'products[1].characteristics[0].key', reason: 'must be at least 1 characters' },
      { path: 'products[1].characteristics[1].value', reason: 'must be at most 256 characters' },
      { path: 'products[2]', reason: 'must be an object' },
    ]);
    expect(validateCreatePortIn(rawCreate({ products: [products[0]] })).products).toEqual([{ productId: 'P1', action: 'add', characteristics: [] }]);
  });

  it('checks portInfo members with nested paths, and what create does not take', () => {
    const portInfo = {
      authorizationName: 'a'.repeat(101),
      accountNo: '',
      pwdPin: 1234,
      newNumLocalSP: 'NLSP-1',
      contact: { isBusinessType: 'yes', businessName: 'ACME', firstName: 'f'.repeat(51) },
      location: { portAddress: { zip: 'z'.repeat(17), city: 'Springfield' }, activationAddress: { city: 'X' } },
    };
    expect(problemsOf(() => validateCreatePortIn(rawCreate({ portInfo })))).toEqual([
      { path: 'portInfo.authorizationName', reason: 'must be at most 100 characters' },
      { path: 'portInfo.accountNo', reason: 'must be at least 1 characters' },
      { path: 'portInfo.pwdPin', reason: 'must be a string' },
      { path: 'portInfo.contact.isBusinessType', reason: 'must be true or false' },
      { path: 'portInfo.contact.businessName', reason: 'is accepted by UpdatePortIn only' },
      { path: 'portInfo.contact.firstName', reason: 'must be at most 50 characters' },
      { path: 'portInfo.location.portAddress.zip', reason: 'must be at most 16 characters' },
      { path: 'portInfo.location.activationAddress', reason: 'is returned by QueryPortIn only' },
    ]);
  });

  it('reports problems of every part of the command in one answer', () => {
    const problems = problemsOf(() => validateCreatePortIn(rawCreate({ gpsi: 'abc', billCycleStartDay: 31, bucketRefId: [''], portInfo: { contact: { lastName: '' } } })));
    expect(paths(problems)).toEqual(['bucketRefId[0]', 'billCycleStartDay', 'gpsi', 'gpsi', 'portInfo.contact.lastName']);
  });

  it('refuses a value that is not a record', () => {
    expect(paths(problemsOf(() => validateCreatePortIn('junk')))).toContain('');
  });
});

describe('UpdatePortIn validation', () => {
  it('accepts businessName and merges nothing itself', () => {
    const command = validateUpdatePortIn({ partnerTransactionId: 'PTX-1', gpsi: '19459986891', updatePortInfo: { pwdPin: '1111', contact: { businessName: 'ACME' } } });
    expect(command.updatePortInfo).toEqual({ pwdPin: '1111', contact: { businessName: 'ACME' } });
  });

  it('requires partnerTransactionId, gpsi and updatePortInfo', () => {
    expect(problemsOf(() => validateUpdatePortIn({}))).toEqual([
      { path: 'partnerTransactionId', reason: 'is required' },
      { path: 'gpsi', reason: 'is required' },
      { path: 'updatePortInfo', reason: 'is required' },
    ]);
  });

  it('refuses newNumLocalSP and an update that changes nothing', () => {
    expect(problemsOf(() => validateUpdatePortIn({ partnerTransactionId: 'P', gpsi: '19459986891', updatePortInfo: { newNumLocalSP: 'X' } }))).toEqual([
      { path: 'updatePortInfo.newNumLocalSP', reason: 'is accepted by CreatePortIn only' },
    ]);
    expect(problemsOf(() => validateUpdatePortIn({ partnerTransactionId: 'P', gpsi: '19459986891', updatePortInfo: { pwdPin: null, contact: {} } }))).toEqual([
      { path: 'updatePortInfo', reason: 'must change at least one member, or desiredDueDate must be given' },
    ]);
    // a supplement may change only the due date
    expect(validateUpdatePortIn({ partnerTransactionId: 'P', gpsi: '19459986891', updatePortInfo: { pwdPin: null }, desiredDueDate: '2026-03-10T15:00:00+02:00' })).toEqual({
      partnerTransactionId: 'P',
      gpsi: '19459986891',
      updatePortInfo: {},
      desiredDueDate: '2026-03-10T13:00:00.000Z',
    });
  });

  it.each([
    ['2026-03-05T10:00:00Z', []],
    ['2026-03-05T09:59:59Z', ['must be no earlier than 2026-03-05T10:00:00.000Z (1 business day(s) from now)']],
    ['2026-03-07T12:00:00Z', ['must fall on a business day (Monday to Friday, UTC)']],
    ['2026-06-02T10:00:00Z', []],
    ['2026-06-02T10:00:01Z', ['must be no later than 2026-06-02T10:00:00.000Z (90 days from now)']],
    ['2026-03-05', ['must be an ISO 8601 date-time with a zone, e.g. 2026-03-06T15:00:00Z']],
    ['2026-03-05T10:00:00', ['must be an ISO 8601 date-time with a zone, e.g. 2026-03-06T15:00:00Z']],
    ['2026-02-30T10:00:00Z', ['must be an ISO 8601 date-time with a zone, e.g. 2026-03-06T15:00:00Z']],
  ])('a requested due date %s, asked on Wednesday 2026-03-04 10:00Z with a one-business-day interval: %j', (desiredDueDate, reasons) => {
    const rules = { now: T0, intervalBusinessDays: 1, maxDaysAhead: 90 };
    const validate = () => validateCreatePortIn(rawCreate({ desiredDueDate }), rules);
    if (reasons.length === 0) expect(validate().desiredDueDate).toBe(new Date(desiredDueDate).toISOString());
    else expect(problemsOf(validate)).toEqual(reasons.map((reason) => ({ path: 'desiredDueDate', reason })));
  });
});

describe('CancelPortIn validation', () => {
  it('needs partnerTransactionId or gpsi', () => {
    expect(problemsOf(() => validateCancelPortIn({ partnerTransactionId: null, gpsi: null }))).toEqual([{ path: 'partnerTransactionId', reason: 'partnerTransactionId or gpsi is required' }]);
    expect(validateCancelPortIn({ gpsi: '19459986891', partnerTransactionId: null })).toEqual({ gpsi: '19459986891', partnerTransactionId: undefined });
  });

  it('checks both when both are given', () => {
    expect(paths(problemsOf(() => validateCancelPortIn({ gpsi: '1', partnerTransactionId: 'x'.repeat(40) })))).toEqual(['partnerTransactionId', 'gpsi', 'gpsi']);
  });
});

describe('QueryPortIn validation', () => {
  it('needs at least one key', () => {
    expect(problemsOf(() => validateQueryPortIn({}))).toEqual([{ path: 'gpsi', reason: 'gpsi, partnerTransactionId or portOrderId is required' }]);
  });

  it('checks portOrderId length and accepts any single key', () => {
    expect(problemsOf(() => validateQueryPortIn({ portOrderId: 'o'.repeat(37) }))).toEqual([{ path: 'portOrderId', reason: 'must be at most 36 characters' }]);
    expect(validateQueryPortIn({ portOrderId: 'PO-1' })).toEqual({ portOrderId: 'PO-1', gpsi: undefined, partnerTransactionId: undefined });
  });
});
