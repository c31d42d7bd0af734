// The port-out lifecycle as ONE table of data: for every status (and no port-out at all), what every
// trigger does. The planner (plan.ts) looks rules up here and never encodes a transition itself;
// docs/port-out.md shows this same table (test/unit/port-out/lifecycle.test.ts keeps them equal).

export const PORTOUT_STATUSES = ['VALIDATION_PENDING', 'APPROVED', 'REJECTED', 'COMPLETED', 'CANCELLED'] as const;
export type PortOutStatus = (typeof PORTOUT_STATUSES)[number];

/**
 * NP responses (PortOutRequested, PortOutCompleted, PortOutCancelled), the partner's answer (Approve, Reject), the validation
 * deadline. A PortOutRequested is `PortOutRequested` for a number whose subscription is ACTIVE and
 * `PortOutRequestedPortingIn` for one whose port-in is still in flight (its subscription PENDING).
 */
export const PORTOUT_TRIGGERS = ['PortOutRequested', 'PortOutRequestedPortingIn', 'Approve', 'Reject', 'Deadline', 'PortOutCompleted', 'PortOutCancelled'] as const;
export type PortOutTrigger = (typeof PORTOUT_TRIGGERS)[number];

export type PortOutRule =
  /** A new port-out takes the number (the one before, finished, goes to its history). */
  | { action: 'start' }
  /**
   * A new port-out takes the number and is REJECTED at once by the service (decidedBy SYSTEM, reason PI):
   * the number is still porting in, so no partner owns it yet to validate, and the NP side gets its answer now.
   */
  | { action: 'refuse' }
  | { action: 'move'; to: PortOutStatus }
  /** The validation deadline passed unanswered: PORTOUT_DEADLINE_DECISION says APPROVED or REJECTED. */
  | { action: 'decideByDeadline' }
  /** A partner's answer the status no longer takes: CONFLICT naming the status. */
  | { action: 'conflict' }
  /** Nothing changes, nothing is published (a repeated or late NP record, a deadline already answered). */
  | { action: 'ignore' }
  /** There is no port-out to answer: NOT_FOUND. */
  | { action: 'notFound' };

export const NO_PORTOUT = 'NONE';
export type PortOutState = PortOutStatus | typeof NO_PORTOUT;

const start: PortOutRule = { action: 'start' };
const refuse: PortOutRule = { action: 'refuse' };
const to = (status: PortOutStatus): PortOutRule => ({ action: 'move', to: status });
const conflict: PortOutRule = { action: 'conflict' };
const ignore: PortOutRule = { action: 'ignore' };
const notFound: PortOutRule = { action: 'notFound' };

/**
 * One port-out at a time per number. PortOutCompleted is a fact (the number is live elsewhere), so it is
 * taken in every status not yet COMPLETED, rejected or not: refusing it would leave a number billed here
 * that we no longer serve. PortOutCancelled (the gaining provider withdrew) ends a port-out still open
 * (VALIDATION_PENDING, APPROVED); a decided one (REJECTED) or a finished one stays as it is.
 */
export const PORTOUT_TRANSITIONS: Record<PortOutState, Record<PortOutTrigger, PortOutRule>> = {
  NONE: { PortOutRequested: start, PortOutRequestedPortingIn: refuse, Approve: notFound, Reject: notFound, Deadline: ignore, PortOutCompleted: ignore, PortOutCancelled: ignore },
  VALIDATION_PENDING: {
    PortOutRequested: ignore,
    PortOutRequestedPortingIn: ignore,
    Approve: to('APPROVED'),
    Reject: to('REJECTED'),
    Deadline: { action: 'decideByDeadline' },
    PortOutCompleted: to('COMPLETED'),
    PortOutCancelled: to('CANCELLED'),
  },
  APPROVED: {
    PortOutRequested: ignore,
    PortOutRequestedPortingIn: ignore,
    Approve: conflict,
    Reject: conflict,
    Deadline: ignore,
    PortOutCompleted: to('COMPLETED'),
    PortOutCancelled: to('CANCELLED'),
  },
  REJECTED: { PortOutRequested: start, PortOutRequestedPortingIn: refuse, Approve: conflict, Reject: conflict, Deadline: ignore, PortOutCompleted: to('COMPLETED'), PortOutCancelled: ignore },
  COMPLETED: { PortOutRequested: start, PortOutRequestedPortingIn: refuse, Approve: conflict, Reject: conflict, Deadline: ignore, PortOutCompleted: ignore, PortOutCancelled: ignore },
  CANCELLED: { PortOutRequested: start, PortOutRequestedPortingIn: refuse, Approve: conflict, Reject: conflict, Deadline: ignore, PortOutCompleted: to('COMPLETED'), PortOutCancelled: ignore },
};

export const portOutRuleFor = (state: PortOutState, trigger: PortOutTrigger): PortOutRule => PORTOUT_TRANSITIONS[state][trigger];

/** The statuses a partner's answer is taken in, for the CONFLICT message. */
export const answerableIn = (trigger: 'Approve' | 'Reject'): PortOutStatus[] => PORTOUT_STATUSES.filter((s) => PORTOUT_TRANSITIONS[s][trigger].action === 'move');
