import { losingProviderOf, splitByProvider } from '../../../src/domain/port-orders/providers';
import { oldProvidersFor } from '../../../dev/np-simulator/rules';

describe('an order split by losing provider', () => {
  it('groups the numbers by the provider of their range, providers in order of first appearance', () => {
    expect(splitByProvider(['12345671201', '12345673401', '12345671299'])).toEqual([
      { losingProvider: 'ONSP-12', numbers: ['12345671201', '12345671299'] },
      { losingProvider: 'ONSP-34', numbers: ['12345673401'] },
    ]);
  });

  it('names the provider the NP simulator later reports for the number', () => {
    for (const gpsi of ['12345671201', '4915112345678']) expect(losingProviderOf(gpsi)).toBe(oldProvidersFor(gpsi).oldNetworkServiceProvider);
  });
});
