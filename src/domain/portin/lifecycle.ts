/**
 * The port-in lifecycle as ONE table of data: for every status, what every trigger (a command, a
 * number-portability response, the expiry timer) does. Handlers look the rule up here and never encode a
 * transition themselves; docs/portin.md renders this same table. See test/unit/portin/lifecycle.test.ts.
 */
export const PORT_STATUSES = ['OPEN', 'DELAYED', 'CONFIRMED', 'RESOLUTION_REQUIRED', 'REJECTED', 'COMPLETED', 'CANCELLED'] as const;
export type PortStatus = (typeof PORT_STATUSES)[number];

export const COMMAND_TRIGGERS = ['CreatePortIn', 'UpdatePortIn', 'CancelPortIn', 'QueryPortIn', 'CheckPortInEligibility'] as const;
/** One per record of np.portin.responses.v1 (record name without namespace). */
export const NP_TRIGGERS = ['OrderIdAssigned', 'PortConfirmed', 'PortDelayed', 'ResolutionRequired', 'PortRejected', 'ActivationComplete'] as const;
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
  | 'scheduleExpiry' // the request is abandoned if nobody acts before the deadline
  | 'forgetSecrets'; // pwdPin and accountNo are kept only while the port may still need them

export type Rule =
  /** The status changes (a PortInActivationEvent is published) and the effects run. */
  | { action: 'move'; to: PortStatus; effects: readonly Effect[] }
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

const CREATE_NEW: Rule = { action: 'replace', to: 'OPEN', effects: ['npSubmit', 'createPendingSubscription'] };
const READS = { QueryPortIn: read, CheckPortInEligibility: read } as const;
const NO_NP = {
  OrderIdAssigned: ignore,
  PortConfirmed: ignore,
  PortDelayed: ignore,
  ResolutionRequired: ignore,
  PortRejected: ignore,
  ActivationComplete: ignore,
} as const;
const CANCEL = move('CANCELLED', 'npCancel', 'cancelSubscription', 'forgetSecrets');
/** RESOLUTION_REQUIRED and REJECTED wait for the partner: a supplement, a cancel, or expiry. */
const AWAITING_PARTNER: Record<PortTrigger, Rule> = {
  CreatePortIn: conflict,
  UpdatePortIn: move('OPEN', 'bumpVersion', 'npSupplement'),
  CancelPortIn: CANCEL,
  ...READS,
  ...NO_NP,
  OrderIdAssigned: annotate,
  Expire: CANCEL,
};
const FINISHED: Record<PortTrigger, Rule> = {
  CreatePortIn: conflict,
  UpdatePortIn: conflict,
  CancelPortIn: conflict,
  ...READS,
  ...NO_NP,
  Expire: ignore,
};
const AWAIT = ['scheduleExpiry'] as const;

export const TRANSITIONS: Readonly<Record<PortStatus, Readonly<Record<PortTrigger, Rule>>>> = {
  OPEN: {
    CreatePortIn: conflict,
    UpdatePortIn: conflict,
    CancelPortIn: conflict,
    ...READS,
    OrderIdAssigned: annotate,
    PortConfirmed: move('CONFIRMED'),
    PortDelayed: move('DELAYED'),
    ResolutionRequired: move('RESOLUTION_REQUIRED', ...AWAIT),
    PortRejected: move('REJECTED', ...AWAIT),
    ActivationComplete: ignore, // only a confirmed port completes
    Expire: ignore,
  },
  DELAYED: {
    CreatePortIn: conflict,
    UpdatePortIn: conflict,
    CancelPortIn: conflict,
    ...READS,
    OrderIdAssigned: annotate,
    PortConfirmed: move('CONFIRMED'),
    PortDelayed: ignore, // a repeated delay changes nothing
    ResolutionRequired: move('RESOLUTION_REQUIRED', ...AWAIT),
    PortRejected: move('REJECTED', ...AWAIT),
    ActivationComplete: ignore,
    Expire: ignore,
  },
  CONFIRMED: {
    CreatePortIn: conflict,
    UpdatePortIn: conflict,
    CancelPortIn: conflict,
    ...READS,
    ...NO_NP,
    OrderIdAssigned: annotate,
    ActivationComplete: move('COMPLETED', 'activateSubscription', 'forgetSecrets'),
    Expire: ignore,
  },
  RESOLUTION_REQUIRED: AWAITING_PARTNER,
  REJECTED: AWAITING_PARTNER,
  COMPLETED: FINISHED,
  CANCELLED: { ...FINISHED, CreatePortIn: CREATE_NEW },
};

/** What a CreatePortIn does on a number with no port-in request at all. */
export const CREATE_ON_FREE_NUMBER: Rule = CREATE_NEW;

export const ruleFor = (status: PortStatus, trigger: PortTrigger): Rule => TRANSITIONS[status][trigger];

/** A port still in progress blocks a new port-in and the eligibility check. */
export const isInProgress = (status: PortStatus): boolean => status !== 'COMPLETED' && status !== 'CANCELLED';

export const isPortStatus = (value: string): value is PortStatus => (PORT_STATUSES as readonly string[]).includes(value);
export const isNpTrigger = (value: string): value is NpTrigger => (NP_TRIGGERS as readonly string[]).includes(value);

/** Statuses the expiry timer watches, derived from the table so the two never disagree. */
export const EXPIRING_STATUSES: readonly PortStatus[] = PORT_STATUSES.filter((s) => ruleFor(s, 'Expire').action === 'move');
