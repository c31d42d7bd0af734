/**
 * Why a partner may reject a port-out (AnswerPortOut reasonCode), the usual grounds of US and EU porting
 * practice: the gaining provider's request does not match the account, or the account holder asked to
 * keep the number. Anything else is approved: a partner cannot hold a number hostage.
 */
export const PORTOUT_REJECTION_REASONS = {
  AN: 'Account number does not match',
  PN: 'PIN or passcode does not match',
  NM: 'Name or address does not match the account',
  PF: 'Port freeze: the account holder asked to block port-outs',
  NA: 'Not authorized by the account holder',
  PO: 'Another order is pending on the number',
} as const;

export type PortOutRejectionReason = keyof typeof PORTOUT_REJECTION_REASONS;

export const isRejectionReason = (code: string): code is PortOutRejectionReason => Object.hasOwn(PORTOUT_REJECTION_REASONS, code);

/** The reason a deadline rejection records (PORTOUT_DEADLINE_DECISION=REJECT): the partner never answered. */
export const NO_ANSWER_REASON = { code: 'NR', description: 'No answer from the owning partner by the validation deadline' } as const;

/**
 * The reason the service rejects a port-out itself (decidedBy SYSTEM): the number's port-in is still in
 * flight, so it is not ours to give away yet. Not a partner's answer: AnswerPortOut does not take it.
 */
export const PORT_IN_IN_PROGRESS_REASON = { code: 'PI', description: 'A port-in of the number is still in progress' } as const;
