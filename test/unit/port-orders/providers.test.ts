import { losingProviderOf, splitByProvider } from '../../../src/domain/port-orders/providers';
import { plan } from '../../../dev/np-simulator/rules';

describe('an order split by losing provider', () => {
  it('groups the numbers by the provider of their range, providers in order of first appearance', () => {
    expect(splitByProvider(['12345671201', '12345673401', '12345671299'])).toEqual([
      { losingProvider: 'ONSP-12', numbers: ['12345671201', '12345671299'] },
      { losingProvider: 'ONSP-34', numbers: ['12345673401'] },
    ]);
  });

  it("names a number's provider by its range, as the NP simulator reports it in OrderIdAssigned", () => {
    expect(losingProviderOf('19459986891')).toBe('ONSP-68');
    const [assigned] = plan({ recordName: 'np.portin.v1.SubmitPortRequest', requestId: 'req-1', gpsi: '19459986891', portOrderVersion: 1 }, new Date(0));
    expect(assigned.value.oldNetworkServiceProvider).toBe('ONSP-68');
  });
});
