// Reason codes as data. The NP codes follow the US wireless porting (WICIS) vocabulary the old provider
// answers with; the service's own codes say why it refused or ended a request. The NP simulator picks its
// codes from here and docs/portin.md renders this table.

export type ReasonOrigin = 'np' | 'service';

export interface ReasonCode {
  code: string;
  description: string;
  origin: ReasonOrigin;
  /** Where the code is used: the response or status it comes with. */
  usedWith: string;
}

export const REASON_CODES = {
  PIN_INCORRECT: { code: '8C', description: 'Password/PIN required or incorrect', origin: 'np', usedWith: 'ResolutionRequired' },
  ACCOUNT_NUMBER_INCORRECT: { code: '8D', description: 'Account number required or incorrect', origin: 'np', usedWith: 'ResolutionRequired' },
  OTHER_REMARKS_REQUIRED: { code: '1P', description: 'Other (remarks required)', origin: 'np', usedWith: 'ResolutionRequired' },
  DUE_DATE_BEFORE_INTERVAL: { code: '1M', description: 'Requested due date less than published interval', origin: 'np', usedWith: 'PortDelayed' },
  DUE_DATE_TIME_NOT_MET: { code: '1N', description: 'Due date and time cannot be met', origin: 'np', usedWith: 'PortDelayed' },
  DUE_DATE_NOT_MET: { code: '6E', description: "Due date can't be met", origin: 'np', usedWith: 'PortDelayed' },
  DUE_TIME_NOT_MET: { code: '6F', description: "Due time can't be met", origin: 'np', usedWith: 'PortDelayed' },
  NOT_PORTABLE: { code: '7A', description: 'Number not portable: conflict at the old provider', origin: 'np', usedWith: 'PortRejected' },
  NUMBER_ALREADY_ACTIVE: { code: '8A', description: 'NumberAlreadyActive', origin: 'service', usedWith: 'CheckPortInEligibility Reject' },
  PORT_IN_IN_PROGRESS: { code: '8P', description: 'PortInInProgress', origin: 'service', usedWith: 'CheckPortInEligibility Reject' },
  CANCELLED_BY_PARTNER: { code: 'CP', description: 'Cancelled by the partner', origin: 'service', usedWith: 'CANCELLED' },
  EXPIRED: { code: 'EX', description: 'expired', origin: 'service', usedWith: 'CANCELLED' },
  NO_NP_ANSWER: { code: 'NA', description: 'abandoned: no answer from the number-portability side', origin: 'service', usedWith: 'CANCELLED' },
  ACTIVATION_OVERDUE: { code: 'AO', description: 'abandoned: not activated by the confirmed due date', origin: 'service', usedWith: 'CANCELLED' },
  CANCEL_UNANSWERED: { code: 'CU', description: 'cancelled: the number-portability side never answered the cancel', origin: 'service', usedWith: 'CANCELLED' },
  CANCEL_REFUSED: { code: 'CR', description: 'Cancel refused: the port is past its point of no return', origin: 'np', usedWith: 'CancelRefused' },
} as const satisfies Record<string, ReasonCode>;

export type ReasonName = keyof typeof REASON_CODES;

export const reason = (name: ReasonName): { reasonCode: string; reasonDescription: string } => ({
  reasonCode: REASON_CODES[name].code,
  reasonDescription: REASON_CODES[name].description,
});
