import { refusalOf } from '../../../src/domain/balance/subscription-access';

describe('refusalOf: the precondition of every balance operation', () => {
  const gpsi = '15550001111';

  it('lets the owner, or a node above it, read an ACTIVE subscription', () => {
    expect(refusalOf({ status: 'ACTIVE', wholesaleCustomerId: 'mvno-b' }, gpsi, ['mvno-b'])).toBeUndefined();
    expect(refusalOf({ status: 'ACTIVE', wholesaleCustomerId: 'mvno-b' }, gpsi, ['brand-a', 'mvno-b'])).toBeUndefined();
  });

  it("answers a missing subscription and another customer's alike: NOT_FOUND", () => {
    const missing = refusalOf({ status: null, wholesaleCustomerId: null }, gpsi, ['mvno-b']);
    const foreign = refusalOf({ status: 'ACTIVE', wholesaleCustomerId: 'mvno-c' }, gpsi, ['mvno-b']);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: `No subscription for gpsi ${gpsi} belongs to this wholesale customer`, problems: [] });
    expect(foreign).toEqual(missing);
    // another customer's PENDING subscription is not told apart either
    expect(refusalOf({ status: 'PENDING', wholesaleCustomerId: 'mvno-c' }, gpsi, ['mvno-b'])).toEqual(missing);
    expect(refusalOf({ status: 'ACTIVE', wholesaleCustomerId: 'mvno-b' }, gpsi, [])).toEqual(missing);
  });

  it.each(['PENDING', 'CANCELLED'])("refuses the owner's %s subscription with CONFLICT naming the state", (status) => {
    expect(refusalOf({ status, wholesaleCustomerId: 'mvno-b' }, gpsi, ['mvno-b'])).toMatchObject({
      code: 'CONFLICT',
      message: `The subscription for gpsi ${gpsi} is ${status}, not ACTIVE`,
      problems: [{ path: 'gpsi', reason: `subscription is ${status}` }],
    });
  });
});
