import { REASON_CODES } from './reason-codes';

/** Numbers that may never be ported in: a prefix and the reason code a check answers (NON_PORTABLE_RANGES). */
export interface NonPortableRange {
  prefix: string;
  reasonCode: string;
  reasonDesc: string;
}

/**
 * Port-in eligibility rules, pure. The facts (does the number have an active subscription, a port in
 * progress) are gathered by the handler and passed in, so the decision itself has no I/O.
 */
export interface EligibilityFacts {
  gpsi: string;
  hasActiveSubscription: boolean;
  /** A port-in request for the number that is neither COMPLETED nor CANCELLED. */
  hasPortInProgress: boolean;
  nonPortableRanges: readonly NonPortableRange[];
}

export const ELIGIBILITY_STATUSES = ['Eligible', 'Reject'] as const;

export interface EligibilityDecision {
  eligibilityStatus: (typeof ELIGIBILITY_STATUSES)[number];
  reasonCode: string | null;
  reasonDesc: string | null;
}

/** The origin API's own sample answer for a number that is already ours. */
export const NUMBER_ALREADY_ACTIVE = {
  reasonCode: REASON_CODES.NUMBER_ALREADY_ACTIVE.code,
  reasonDesc: REASON_CODES.NUMBER_ALREADY_ACTIVE.description,
} as const;

/** Our own code (8P): the number is already being ported in; a second request would race the first. */
export const PORT_IN_IN_PROGRESS = {
  reasonCode: REASON_CODES.PORT_IN_IN_PROGRESS.code,
  reasonDesc: REASON_CODES.PORT_IN_IN_PROGRESS.description,
} as const;

export function decideEligibility(facts: EligibilityFacts): EligibilityDecision {
  if (facts.hasActiveSubscription) return { eligibilityStatus: 'Reject', ...NUMBER_ALREADY_ACTIVE };
  if (facts.hasPortInProgress) return { eligibilityStatus: 'Reject', ...PORT_IN_IN_PROGRESS };
  const range = facts.nonPortableRanges.find((r) => facts.gpsi.startsWith(r.prefix));
  if (range) return { eligibilityStatus: 'Reject', reasonCode: range.reasonCode, reasonDesc: range.reasonDesc };
  return { eligibilityStatus: 'Eligible', reasonCode: null, reasonDesc: null };
}
