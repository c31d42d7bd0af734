/**
 * The losing (old) provider of a number, as the NP application assigns it by number range: numbers whose
 * third- and fourth-last digits agree belong to one provider (`ONSP-<those two digits>`). The NP simulator
 * answers OrderIdAssigned with the same provider (dev/np-simulator/rules.ts), so an order's split matches
 * what the NP side later reports.
 */
export const losingProviderOf = (gpsi: string): string => `ONSP-${gpsi.slice(-4, -2)}`;

export interface ProviderGroup {
  losingProvider: string;
  numbers: string[];
}

/** The order split by losing provider, providers in the order their first number appears; pure. */
export function splitByProvider(numbers: readonly string[], providerOf: (gpsi: string) => string = losingProviderOf): ProviderGroup[] {
  const groups = new Map<string, string[]>();
  for (const gpsi of numbers) {
    const provider = providerOf(gpsi);
    const group = groups.get(provider);
    if (group) group.push(gpsi);
    else groups.set(provider, [gpsi]);
  }
  return [...groups].map(([losingProvider, members]) => ({ losingProvider, numbers: members }));
}
