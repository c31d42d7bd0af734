import { createHash } from 'node:crypto';
import { REASON_CODES, type ReasonName } from '../../src/domain/portin/reason-codes';
import { NP_REQUEST_RECORDS, NP_RESPONSE_RECORDS } from '../../src/domain/portin/records';
import { losingProviderOf } from '../../src/domain/port-orders/providers';

/**
 * The NP simulator's behaviour, pure and deterministic: rules as data (first match wins), evaluated on
 * each submit or supplement, and the timeline of responses they produce. Times are simulated: the Kafka
 * loop divides every wait by the time scale. docs/portin.md renders SIM_RULES and SIM_TIMELINE.
 */
export type Matcher =
  | { field: 'gpsi' | 'portInfo.pwdPin' | 'portInfo.accountNo'; endsWith: string }
  | { field: 'gpsi' | 'portInfo.pwdPin' | 'portInfo.accountNo'; equals: string }
  | { field: 'gpsi' | 'portInfo.pwdPin' | 'portInfo.accountNo'; allZeros: true };

export type Outcome =
  | { respond: 'PortRejected'; reason: ReasonName }
  /** With `remarks`: the NP side's words to the partner (reason 1P requires them). */
  | { respond: 'ResolutionRequired'; reason: ReasonName; remarks?: string }
  | { respond: 'PortDelayed'; reason: ReasonName }
  /** Confirmed, then ActivationComplete at the due date; with `activation: 'never'` the cut-over is never reported. */
  | { respond: 'PortConfirmed'; activation?: 'never' }
  /** The old provider never answers: the request stays as it is (after its order id). */
  | { respond: 'nothing' }
  /** The NP application never took the request: not even an order id (a test may play the NP side). */
  | { respond: 'silence' };

/** How the NP side answers a CancelPortRequest: cancels the order (the default), refuses, or never answers. */
export type CancelAnswer = 'confirm' | 'refuse' | 'never';

export interface SimRule {
  description: string;
  when: Matcher | 'always';
  then: Outcome;
  onCancel?: CancelAnswer;
}

export const SIM_RULES: readonly SimRule[] = [
  { description: 'a gpsi ending in 00 gets no answer from the old provider (it stays OPEN)', when: { field: 'gpsi', endsWith: '00' }, then: { respond: 'nothing' } },
  {
    description: 'a gpsi ending in 15 is confirmed, but its cut-over is never reported (it stays CONFIRMED)',
    when: { field: 'gpsi', endsWith: '15' },
    then: { respond: 'PortConfirmed', activation: 'never' },
  },
  {
    description: 'a gpsi ending in 16 is confirmed, its cut-over never reported, and a cancel is refused (past the point of no return)',
    when: { field: 'gpsi', endsWith: '16' },
    then: { respond: 'PortConfirmed', activation: 'never' },
    onCancel: 'refuse',
  },
  {
    description: 'a gpsi ending in 17 gets no answer, not even to a cancel',
    when: { field: 'gpsi', endsWith: '17' },
    then: { respond: 'nothing' },
    onCancel: 'never',
  },
  { description: 'a gpsi ending in 18 gets nothing at all, not even an order id', when: { field: 'gpsi', endsWith: '18' }, then: { respond: 'silence' }, onCancel: 'never' },
  { description: 'a gpsi ending in 13 is not portable', when: { field: 'gpsi', endsWith: '13' }, then: { respond: 'PortRejected', reason: 'NOT_PORTABLE' } },
  { description: 'pwdPin "0000" is wrong', when: { field: 'portInfo.pwdPin', equals: '0000' }, then: { respond: 'ResolutionRequired', reason: 'PIN_INCORRECT' } },
  { description: 'an accountNo of all zeros is wrong', when: { field: 'portInfo.accountNo', allZeros: true }, then: { respond: 'ResolutionRequired', reason: 'ACCOUNT_NUMBER_INCORRECT' } },
  {
    description: 'pwdPin "1111" needs something only the NP side can say: reason 1P, with its remarks',
    when: { field: 'portInfo.pwdPin', equals: '1111' },
    then: { respond: 'ResolutionRequired', reason: 'OTHER_REMARKS_REQUIRED', remarks: "The old provider needs the account holder's date of birth" },
  },
  { description: 'a gpsi ending in 14 is delayed first, then confirmed', when: { field: 'gpsi', endsWith: '14' }, then: { respond: 'PortDelayed', reason: 'DUE_DATE_TIME_NOT_MET' } },
  { description: 'anything else is confirmed for the desired due date, and completed then', when: 'always', then: { respond: 'PortConfirmed' } },
];

/** Simulated waits (ms) after the request arrives. A delay comes within about 30 minutes. */
export const SIM_TIMELINE = {
  orderIdAssignedAfterMs: 1_000,
  answerAfterMs: 60_000,
  confirmedAfterDelayMs: 30 * 60_000,
  cancelAnswerAfterMs: 5 * 60_000,
} as const;

export interface SimPortInfo {
  pwdPin?: string | null;
  accountNo?: string | null;
}

/** A decoded np.portin.requests.v1 record. */
export interface SimRequest {
  recordName: string;
  requestId: string;
  gpsi: string;
  portOrderId?: string | null;
  portOrderVersion: number;
  desiredDueDate?: string;
  portInfo?: SimPortInfo;
  /** When the service sent it: tells two cancels of one version apart. */
  sentAt?: string;
}

export interface ScheduledResponse {
  /** Simulated ms after the request arrived (the loop waits this / time scale). */
  afterMs: number;
  recordName: string;
  /** The record's value without sentAt, which the loop stamps when it sends. */
  value: Record<string, unknown>;
}

const fieldOf = (request: SimRequest, field: Matcher['field']): string | undefined => {
  if (field === 'gpsi') return request.gpsi;
  const value = field === 'portInfo.pwdPin' ? request.portInfo?.pwdPin : request.portInfo?.accountNo;
  return value ?? undefined;
};

export function matches(request: SimRequest, when: SimRule['when']): boolean {
  if (when === 'always') return true;
  const value = fieldOf(request, when.field);
  if (value === undefined) return false;
  if ('endsWith' in when) return value.endsWith(when.endsWith);
  if ('equals' in when) return value === when.equals;
  return /^0+$/.test(value);
}

export const ruleFor = (request: SimRequest, rules: readonly SimRule[] = SIM_RULES): SimRule => rules.find((rule) => matches(request, rule.when)) ?? rules[rules.length - 1];

const digest = (...parts: (string | number)[]): string => createHash('sha256').update(parts.join('|')).digest('hex');

/** The NP application's order id for a request: stable, so a resubmitted request gets the same one. */
export const portOrderIdFor = (requestId: string): string => `PO-${digest('order', requestId).slice(0, 12).toUpperCase()}`;

/**
 * Old providers, as the NP application would look them up for the number: by number range, the third- and
 * fourth-last digits naming the provider (losingProviderOf, which a port order's split uses too).
 */
export const oldProvidersFor = (gpsi: string) => ({
  oldNetworkServiceProvider: losingProviderOf(gpsi),
  oldLocalServiceProvider: `OLSP-${gpsi.slice(-4, -2)}`,
});

/** Whether a request drops the responses its order still had pending: all do but a refused cancel. */
export const supersedesPending = (request: SimRequest, rules: readonly SimRule[] = SIM_RULES): boolean =>
  request.recordName !== NP_REQUEST_RECORDS.cancel || cancelAnswer(request, rules) !== 'refuse';

const cancelAnswer = (request: SimRequest, rules: readonly SimRule[]): CancelAnswer => ruleFor(request, rules).onCancel ?? 'confirm';

/**
 * The responses a request produces, in order: a submit or supplement plays its rule; a cancel is answered
 * as its rule says (the loop drops the order's pending responses unless the cancel is refused).
 * `receivedAt` is the simulated time the request arrived.
 */
export function plan(request: SimRequest, receivedAt: Date, rules: readonly SimRule[] = SIM_RULES): ScheduledResponse[] {
  const portOrderId = request.portOrderId ?? portOrderIdFor(request.requestId);
  const base = (trigger: keyof typeof NP_RESPONSE_RECORDS) => ({
    // a cancel's answers are told apart by the cancel they answer (a version may be cancelled again after a refusal)
    responseId: `sim-${digest(request.requestId, request.portOrderVersion, trigger, ...(trigger.startsWith('Cancel') ? [request.sentAt ?? ''] : [])).slice(0, 24)}`,
    requestId: request.requestId,
    gpsi: request.gpsi,
    portOrderVersion: request.portOrderVersion,
    portOrderId,
  });
  if (request.recordName === NP_REQUEST_RECORDS.cancel) {
    const answer = cancelAnswer(request, rules);
    if (answer === 'never') return [];
    if (answer === 'confirm') return [{ afterMs: SIM_TIMELINE.cancelAnswerAfterMs, recordName: NP_RESPONSE_RECORDS.CancelConfirmed, value: base('CancelConfirmed') }];
    const { code, description } = REASON_CODES.CANCEL_REFUSED;
    return [{ afterMs: SIM_TIMELINE.cancelAnswerAfterMs, recordName: NP_RESPONSE_RECORDS.CancelRefused, value: { ...base('CancelRefused'), reasonCode: code, reasonDescription: description } }];
  }
  const outcome = ruleFor(request, rules).then;
  if (outcome.respond === 'silence') return [];
  const responses: ScheduledResponse[] = [];
  if (request.recordName === NP_REQUEST_RECORDS.submit) {
    responses.push({
      afterMs: SIM_TIMELINE.orderIdAssignedAfterMs,
      recordName: NP_RESPONSE_RECORDS.OrderIdAssigned,
      value: { ...base('OrderIdAssigned'), ...oldProvidersFor(request.gpsi) },
    });
  }
  const withReason = (trigger: 'PortRejected' | 'ResolutionRequired' | 'PortDelayed', reason: ReasonName) => ({
    ...base(trigger),
    reasonCode: REASON_CODES[reason].code,
    reasonDescription: REASON_CODES[reason].description,
  });
  let confirmAfterMs: number = SIM_TIMELINE.answerAfterMs;
  switch (outcome.respond) {
    case 'nothing':
      return responses;
    case 'PortRejected':
      responses.push({ afterMs: SIM_TIMELINE.answerAfterMs, recordName: NP_RESPONSE_RECORDS.PortRejected, value: withReason('PortRejected', outcome.reason) });
      return responses;
    case 'ResolutionRequired':
      responses.push({
        afterMs: SIM_TIMELINE.answerAfterMs,
        recordName: NP_RESPONSE_RECORDS.ResolutionRequired,
        value: { ...withReason('ResolutionRequired', outcome.reason), ...(outcome.remarks ? { remarks: outcome.remarks } : {}) },
      });
      return responses;
    case 'PortDelayed':
      responses.push({ afterMs: SIM_TIMELINE.answerAfterMs, recordName: NP_RESPONSE_RECORDS.PortDelayed, value: withReason('PortDelayed', outcome.reason) });
      confirmAfterMs = SIM_TIMELINE.answerAfterMs + SIM_TIMELINE.confirmedAfterDelayMs;
      break;
    case 'PortConfirmed':
      break;
  }
  const confirmedAt = receivedAt.getTime() + confirmAfterMs;
  const desired = request.desiredDueDate ? Date.parse(request.desiredDueDate) : NaN;
  const dueAt = Number.isNaN(desired) ? confirmedAt : Math.max(desired, confirmedAt);
  responses.push({ afterMs: confirmAfterMs, recordName: NP_RESPONSE_RECORDS.PortConfirmed, value: { ...base('PortConfirmed'), dueDate: new Date(dueAt).toISOString() } });
  if (outcome.respond === 'PortConfirmed' && outcome.activation === 'never') return responses;
  responses.push({
    afterMs: dueAt - receivedAt.getTime(),
    recordName: NP_RESPONSE_RECORDS.ActivationComplete,
    value: { ...base('ActivationComplete'), activatedAt: new Date(dueAt).toISOString() },
  });
  return responses;
}
