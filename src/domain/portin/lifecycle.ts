// The port-in lifecycle as ONE table of data: for every status, what every trigger (a command, a
// number-portability response, the expiry timer) does. Handlers look the rule up here and never encode a
// transition themselves; docs/portin.md renders this same table. See test/unit/portin/lifecycle.test.ts.

export const PORT_STATUSES = ['OPEN', 'DELAYED', 'CONFIRMED', 'RESOLUTION_REQUIRED', 'REJECTED', 'CANCEL_PENDING', 'COMPLETED', 'CANCELLED'] as const;
export type PortStatus = (typeof PORT_STATUSES)[number];

/** The commands; `UpdateDueDate` is an UpdatePortIn that changes only the due date (desiredDueDate, empty updatePortInfo). */
export const COMMAND_TRIGGERS = ['CreatePortIn', 'UpdatePortIn', 'UpdateDueDate', 'CancelPortIn', 'QueryPortIn', 'CheckPortInEligibility'] as const;
/** One per record of np.portin.responses.v1 (record name without namespace). */
export const NP_TRIGGERS = ['OrderIdAssigned', 'PortConfirmed', 'PortDelayed', 'ResolutionRequired', 'PortRejected', 'ActivationComplete', 'CancelConfirmed', 'CancelRefused'] as const;
/** The abandonment timer: each waiting status has its own deadline (src/domain/portin/expiry.ts). */
export const TIMER_TRIGGERS = ['Expire'] as const;
export const PORT_TRIGGERS = [...COMMAND_TRIGGERS, ...NP_TRIGGERS, ...TIMER_TRIGGERS] as const;

export type CommandTrigger = (typeof COMMAND_TRIGGERS)[number];
export type NpTrigger = (typeof NP_TRIGGERS)[number];
export type PortTrigger = (typeof PORT_TRIGGERS)[number];

/** Side effects a status change brings, run by the handlers in this order after the state is written. */
export type Effect =
  | 'bumpVersion' // a supplement: portOrderVersion + 1, no gaps
  | 'npSubmit'
  | 'npSupplement'
  | 'npCancel'
  | 'createPendingSubscription'
  | 'activateSubscription'
  | 'cancelSubscription'
  | 'scheduleExpiry' // the request is abandoned if nothing moves it before its status's deadline
  | 'forgetSecrets'; // pwdPin and accountNo are kept only while the port may still need them

export type Rule =
  /** The status changes (a PortInActivationEvent is published) and the effects run. */
  | { action: 'move'; to: PortStatus; effects: readonly Effect[] }
  /** Back to the status the request had before its cancel was asked (the NP side refused the cancel). */
  | { action: 'resume'; effects: readonly Effect[] }
  /** The status stays; the NP side's new facts (reason, due date) replace the old ones and are published. */
  | { action: 'revise'; effects: readonly Effect[] }
  /** Facts are recorded (the NP's portOrderId, old providers) without a status change. */
  | { action: 'annotate' }
  /** A new request takes the number over from a finished one (which stays queryable by its keys). */
  | { action: 'replace'; to: PortStatus; effects: readonly Effect[] }
  /** Read-only command: always answered. */
  | { action: 'read' }
  /** The command is refused with CONFLICT naming the current status. */
  | { action: 'conflict' }
  /** An NP response or timer that does not apply here: nothing changes, nothing is published. */
  | { action: 'ignore' };

const move = (to: PortStatus, ...effects: Effect[]): Rule => ({ action: 'move', to, effects });
const read: Rule = { action: 'read' };
const conflict: Rule = { action: 'conflict' };
const ignore: Rule = { action: 'ignore' };
const annotate: Rule = { action: 'annotate' };

const AWAIT = 'scheduleExpiry';
const CREATE_NEW: Rule = { action: 'replace', to: 'OPEN', effects: ['npSubmit', 'createPendingSubscription', AWAIT] };
const READS = { QueryPortIn: read, CheckPortInEligibility: read } as const;
const NO_NP = {
  OrderIdAssigned: ignore,
  PortConfirmed: ignore,
  PortDelayed: ignore,
  ResolutionRequired: ignore,
  PortRejected: ignore,
  ActivationComplete: ignore,
  CancelConfirmed: ignore,
  CancelRefused: ignore,
} as const;
/** Ends the request: the pending subscription is cancelled and the secrets forgotten. */
const END_EFFECTS = ['cancelSubscription', 'forgetSecrets'] as const;
/** Nothing is in flight at the NP side (it answered with a problem): cancelled at once, the NP side told. */
const CANCEL_NOW = move('CANCELLED', 'npCancel', ...END_EFFECTS);
/** The NP side is working on the order: the cancel is asked and its answer awaited. */
const ASK_CANCEL = move('CANCEL_PENDING', 'npCancel', AWAIT);
/** The NP side reports the number live on our network: whatever the status said, the port is done. */
const ACTIVATE = move('COMPLETED', 'activateSubscription', 'forgetSecrets');
/** Abandoned (no answer, or no cut-over, in time): cancelled at the NP side and here. */
const ABANDON = move('CANCELLED', 'npCancel', ...END_EFFECTS);

/** A supplement: the next version goes to the NP side, which answers it afresh. */
const SUPPLEMENT = move('OPEN', 'bumpVersion', 'npSupplement', AWAIT);
/** RESOLUTION_REQUIRED and REJECTED wait for the partner: a supplement, a cancel, or expiry. */
const AWAITING_PARTNER: Record<PortTrigger, Rule> = {
  CreatePortIn: conflict,
  UpdatePortIn: SUPPLEMENT,
  UpdateDueDate: SUPPLEMENT,
  CancelPortIn: CANCEL_NOW,
  ...READS,
  ...NO_NP,
  OrderIdAssigned: annotate,
  ActivationComplete: ACTIVATE,
  Expire: CANCEL_NOW,
};
/** OPEN and DELAYED wait for the NP side's answer. */
const AWAITING_NP: Record<PortTrigger, Rule> = {
  CreatePortIn: conflict,
  UpdatePortIn: conflict,
  UpdateDueDate: SUPPLEMENT, // a new date, not new port information: the NP side may still take it
  CancelPortIn: ASK_CANCEL,
  ...READS,
  ...NO_NP,
  OrderIdAssigned: annotate,
  PortConfirmed: move('CONFIRMED', AWAIT),
  PortDelayed: move('DELAYED', AWAIT),
  ResolutionRequired: move('RESOLUTION_REQUIRED', AWAIT),
  PortRejected: move('REJECTED', AWAIT),
  ActivationComplete: ACTIVATE, // before its confirmation: the NP side's responses can overtake each other
  Expire: ABANDON,
};
const FINISHED: Record<PortTrigger, Rule> = {
  CreatePortIn: conflict,
  UpdatePortIn: conflict,
  UpdateDueDate: conflict,
  CancelPortIn: conflict,
  ...READS,
  ...NO_NP,
  Expire: ignore,
};

export const TRANSITIONS: Readonly<Record<PortStatus, Readonly<Record<PortTrigger, Rule>>>> = {
  OPEN: AWAITING_NP,
  DELAYED: { ...AWAITING_NP, PortDelayed: { action: 'revise', effects: [] } }, // a new reason for the delay
  CONFIRMED: {
    ...AWAITING_NP, // a problem after the FOC sends the port back to resolution (or rejects it)
    PortConfirmed: { action: 'revise', effects: [AWAIT] }, // a new firm order date moves the deadline with it
    PortDelayed: ignore, // the confirmed date stands until the NP side confirms another or reports a problem
  },
  RESOLUTION_REQUIRED: AWAITING_PARTNER,
  REJECTED: AWAITING_PARTNER,
  CANCEL_PENDING: {
    ...FINISHED,
    OrderIdAssigned: annotate,
    // the NP side's answer to the cancel decides; its other answers crossed the cancel and are moot
    ActivationComplete: ACTIVATE, // the cut-over came first: the number is live here
    CancelConfirmed: move('CANCELLED', ...END_EFFECTS),
    CancelRefused: { action: 'resume', effects: [AWAIT] },
    Expire: move('CANCELLED', ...END_EFFECTS), // the cancel was never answered
  },
  COMPLETED: FINISHED,
  CANCELLED: { ...FINISHED, CreatePortIn: CREATE_NEW },
};

/** What a CreatePortIn does on a number with no port-in request at all. */
export const CREATE_ON_FREE_NUMBER: Rule = CREATE_NEW;

export const ruleFor = (status: PortStatus, trigger: PortTrigger): Rule => TRANSITIONS[status][trigger];

/**
 * CreatePortIn's rule: the table's for the number's request, but a number whose subscription ported out has
 * left, so the COMPLETED port-in that once brought it is history and the number is as free (it ports back in).
 */
export const createRuleFor = (status: PortStatus | undefined, numberLeft = false): Rule =>
  !status || (numberLeft && status === 'COMPLETED') ? CREATE_ON_FREE_NUMBER : ruleFor(status, 'CreatePortIn');

/** A port still in progress blocks a new port-in and the eligibility check. */
export const isInProgress = (status: PortStatus): boolean => status !== 'COMPLETED' && status !== 'CANCELLED';

export const isPortStatus = (value: string): value is PortStatus => (PORT_STATUSES as readonly string[]).includes(value);
export const isNpTrigger = (value: string): value is NpTrigger => (NP_TRIGGERS as readonly string[]).includes(value);

/** Statuses the abandonment timer watches, derived from the table so the two never disagree. */
export const EXPIRING_STATUSES: readonly PortStatus[] = PORT_STATUSES.filter((s) => ruleFor(s, 'Expire').action === 'move');
