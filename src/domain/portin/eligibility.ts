import type { NonPortableRange } from '../../config';

/**
 * Port-in eligibility rules, pure. The facts (does the number have an active subscription, a port in
 * progress) are gathered by the handler and passed in, so the decision itself has no I/O.
 */
export interface EligibilityFacts {
  gpsi: string;
  hasActiveSubscription: boolean;
  nonPortableRanges: readonly NonPortableRange[];
}

export interface EligibilityDecision {
  eligibilityStatus: 'Eligible' | 'Reject';
  reasonCode: string | null;
  reasonDesc: string | null;
}

/** The origin API's own sample answer for a number that is already ours. */
export const NUMBER_ALREADY_ACTIVE = { reasonCode: '8A', reasonDesc: 'NumberAlreadyActive' } as const;

export function decideEligibility(facts: EligibilityFacts): EligibilityDecision {
  if (facts.hasActiveSubscription) return { eligibilityStatus: 'Reject', ...NUMBER_ALREADY_ACTIVE };
  const range = facts.nonPortableRanges.find((r) => facts.gpsi.startsWith(r.prefix));
  if (range) return { eligibilityStatus: 'Reject', reasonCode: range.reasonCode, reasonDesc: range.reasonDesc };
  return { eligibilityStatus: 'Eligible', reasonCode: null, reasonDesc: null };
}
