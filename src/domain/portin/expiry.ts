import type { PortStatus } from './lifecycle';
import type { ReasonName } from './reason-codes';
import type { ExpirySettings, PortInRequest } from './request';

export type { ExpirySettings } from './request';

// When a waiting request is abandoned, per status: no port waits forever. The lifecycle table says which
// statuses the timer ends (its `Expire` column); this says from when it counts, how long, and why.
// US practice: a request the partner leaves unresolved, or the NP side leaves unanswered, is abandoned
// 30 days on (after the Resolution Required, after the due date); a confirmed port not activated by its
// due date plus a grace period is overdue.

interface Policy {
  /** The moment the wait counts from. */
  from(request: PortInRequest): string;
  seconds(settings: ExpirySettings): number;
  reason: ReasonName;
}

const POLICIES: Partial<Record<PortStatus, Policy>> = {
  OPEN: { from: (r) => r.desiredDueDate, seconds: (s) => s.noAnswerAfterDueSeconds, reason: 'NO_NP_ANSWER' },
  DELAYED: { from: (r) => r.desiredDueDate, seconds: (s) => s.noAnswerAfterDueSeconds, reason: 'NO_NP_ANSWER' },
  CONFIRMED: { from: (r) => r.confirmedDueDate ?? r.desiredDueDate, seconds: (s) => s.activationGraceSeconds, reason: 'ACTIVATION_OVERDUE' },
  RESOLUTION_REQUIRED: { from: (r) => r.statusSince, seconds: (s) => s.abandonAfterSeconds, reason: 'EXPIRED' },
  REJECTED: { from: (r) => r.statusSince, seconds: (s) => s.abandonAfterSeconds, reason: 'EXPIRED' },
  CANCEL_PENDING: { from: (r) => r.statusSince, seconds: (s) => s.cancelAnswerTimeoutSeconds, reason: 'CANCEL_UNANSWERED' },
};

/** The statuses with a deadline; test/unit/portin checks they are exactly the table's expiring ones. */
export const STATUSES_WITH_DEADLINE = Object.keys(POLICIES) as PortStatus[];

/** When the request, in its current status, is abandoned; undefined for a status that never expires. */
export function expiryDeadline(request: PortInRequest, settings: ExpirySettings): Date | undefined {
  const policy = POLICIES[request.portStatus];
  if (!policy) return undefined;
  // the wait never counts from before the status began (a due date already past when the status began)
  const from = Math.max(Date.parse(policy.from(request)), Date.parse(request.statusSince));
  return new Date(from + policy.seconds(settings) * 1000);
}

/** Why a request abandoned in this status was cancelled. */
export const expiryReason = (status: PortStatus): ReasonName => POLICIES[status]?.reason ?? 'EXPIRED';
