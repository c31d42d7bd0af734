import type { OutgoingMessage } from '../../contract/messages';
import type { NewSubscription } from '../subscription';
import { changesOnlyDueDate, type CreatePortInCommand, type UpdatePortInCommand } from './commands';
import { desiredDueDate } from './due-date';
import { expiryDeadline, expiryReason } from './expiry';
import { createRuleFor, ruleFor, type Effect, type NpTrigger, type PortStatus, type PortTrigger } from './lifecycle';
import { mergePortInfo, revealSecrets, separateSecrets } from './masking';
import { activationEvent, npCancel, npSubmit, npSupplement, type Cause } from './messages';
import { reason } from './reason-codes';
import { newPortInRequest, type CreationFacts, type PortInRequest, type PortInSettings } from './request';

/**
 * Plans what a trigger does to a port-in request, pure: the lifecycle table says whether it moves, and
 * this module computes the next request, the messages to publish and the follow-ups (subscription and
 * expiry steps run after the state is written). The store writes `next` atomically; handlers run the rest.
 */
export type FollowUp =
  | { kind: 'createPendingSubscription'; subscription: NewSubscription }
  /** `at`: the activation time (the NP side's activatedAt, never later than when it was read); absent in outcomes recorded before. */
  | { kind: 'activateSubscription'; gpsi: string; at?: string }
  | { kind: 'cancelSubscription'; gpsi: string; reason: string }
  | { kind: 'scheduleExpiry'; member: string; deadline: string };

export interface Change {
  previousStatus?: PortStatus;
  next: PortInRequest;
  messages: OutgoingMessage[];
  followUps: FollowUp[];
}

export type Plan = { kind: 'change'; change: Change } | { kind: 'conflict'; status: PortStatus } | { kind: 'ignore'; why: string };

/** A response of the NP application, decoded from np.portin.responses.v1. */
export interface NpResponse {
  trigger: NpTrigger;
  responseId: string;
  requestId: string;
  gpsi: string;
  portOrderId?: string;
  portOrderVersion: number;
  sentAt: string;
  dueDate?: string;
  /** ActivationComplete: when the number went live, as the NP side says. */
  activatedAt?: string;
  reasonCode?: string;
  reasonDescription?: string;
  remarks?: string;
  oldNetworkServiceProvider?: string;
  oldLocalServiceProvider?: string;
}

/** The member of the expiry schedule for one stay in an expiring status (unique per request and version). */
export const expiryMember = (request: Pick<PortInRequest, 'gpsi' | 'requestId' | 'portOrderVersion'>): string => `${request.gpsi}|${request.requestId}|${request.portOrderVersion}`;

export function parseExpiryMember(member: string): { gpsi: string; requestId: string; portOrderVersion: number } | undefined {
  const [gpsi, requestId, version] = member.split('|');
  const portOrderVersion = Number(version);
  if (!gpsi || !requestId || !Number.isInteger(portOrderVersion)) return undefined;
  return { gpsi, requestId, portOrderVersion };
}

interface Context {
  cause: Cause;
  settings: PortInSettings;
  subscription?: NewSubscription;
  /** When the NP side says the number went live (ActivationComplete). */
  activatedAt?: Date;
}

/** Runs a moving rule's effects in table order: version first (messages carry it), then messages and follow-ups. */
function withEffects(previousStatus: PortStatus | undefined, moved: PortInRequest, effects: readonly Effect[], ctx: Context): Change {
  let next = moved;
  if (effects.includes('bumpVersion')) next = { ...next, portOrderVersion: next.portOrderVersion + 1 };
  const messages: OutgoingMessage[] = [activationEvent(previousStatus, next, ctx.cause)];
  const followUps: FollowUp[] = [];
  for (const effect of effects) {
    switch (effect) {
      case 'npSubmit':
        messages.push(npSubmit(next, ctx.cause));
        break;
      case 'npSupplement':
        messages.push(npSupplement(next, ctx.cause));
        break;
      case 'npCancel':
        messages.push(npCancel(next, ctx.cause));
        break;
      case 'createPendingSubscription':
        if (!ctx.subscription) throw new Error('createPendingSubscription needs the subscription');
        followUps.push({ kind: 'createPendingSubscription', subscription: ctx.subscription });
        break;
      case 'activateSubscription': {
        // the NP side's time, so a backlog does not shift the first bill cycle; never one still to come
        const at = ctx.activatedAt && ctx.activatedAt.getTime() < ctx.cause.at.getTime() ? ctx.activatedAt : ctx.cause.at;
        followUps.push({ kind: 'activateSubscription', gpsi: next.gpsi, at: at.toISOString() });
        break;
      }
      case 'cancelSubscription':
        followUps.push({ kind: 'cancelSubscription', gpsi: next.gpsi, reason: next.reasonDescription ?? 'cancelled' });
        break;
      case 'scheduleExpiry': {
        const deadline = expiryDeadline(next, ctx.settings);
        if (deadline) followUps.push({ kind: 'scheduleExpiry', member: expiryMember(next), deadline: deadline.toISOString() });
        break;
      }
      case 'forgetSecrets':
        next = { ...next, secrets: {} };
        break;
      case 'bumpVersion':
        break;
    }
  }
  return { previousStatus, next, messages, followUps };
}

/** The facts a status carries that the next status does not inherit unless the trigger brings them again. */
const STATUS_FACTS: Partial<PortInRequest> = { reasonCode: undefined, reasonDescription: undefined, remarks: undefined, statusBeforeCancel: undefined };

/** Applies the table's rule for `trigger`; `details` are the trigger's own facts set on the request when it moves. */
function transition(current: PortInRequest, trigger: PortTrigger, details: Partial<PortInRequest>, ctx: Context): Plan {
  const rule = ruleFor(current.portStatus, trigger);
  const at = ctx.cause.at.toISOString();
  const enter = (to: PortStatus, effects: readonly Effect[]): Plan => {
    // a cancel the NP side must answer remembers where the request was, to go back there if it is refused
    const cancelFrom = to === 'CANCEL_PENDING' ? { statusBeforeCancel: current.portStatus } : {};
    const moved: PortInRequest = { ...current, ...STATUS_FACTS, ...details, ...cancelFrom, portStatus: to, statusSince: at, portLastUpdateDate: at };
    return { kind: 'change', change: withEffects(current.portStatus, moved, effects, ctx) };
  };
  switch (rule.action) {
    case 'conflict':
      return { kind: 'conflict', status: current.portStatus };
    case 'ignore':
    case 'read':
    case 'annotate':
    case 'replace':
      return { kind: 'ignore', why: `${trigger} in ${current.portStatus} (${rule.action})` };
    case 'move':
      return enter(rule.to, rule.effects);
    case 'resume':
      if (!current.statusBeforeCancel) return { kind: 'ignore', why: `${trigger} in ${current.portStatus}: no status to resume` };
      return enter(current.statusBeforeCancel, rule.effects);
    case 'revise': {
      const changed = (Object.keys(details) as (keyof PortInRequest)[]).some((field) => details[field] !== current[field]);
      if (!changed) return { kind: 'ignore', why: `${trigger} in ${current.portStatus} brings nothing new` };
      const revised: PortInRequest = { ...current, ...details, portLastUpdateDate: at };
      return { kind: 'change', change: withEffects(current.portStatus, revised, rule.effects, ctx) };
    }
  }
}

/**
 * CreatePortIn: on a free number or over a finished request (the table's `replace`); a request in
 * progress or a completed port is a conflict, unless the number ported out since (it ports back in).
 */
export function planCreate(current: PortInRequest | undefined, command: CreatePortInCommand, facts: CreationFacts, subscription: NewSubscription, ctx: Omit<Context, 'subscription'>): Plan {
  const rule = createRuleFor(current?.portStatus, facts.numberLeft);
  if (current && rule.action === 'conflict') return { kind: 'conflict', status: current.portStatus };
  if (rule.action !== 'replace') return { kind: 'ignore', why: `CreatePortIn in ${current?.portStatus} (${rule.action})` };
  const created = newPortInRequest(command, facts, ctx.settings);
  return { kind: 'change', change: withEffects(undefined, { ...created, portStatus: rule.to }, rule.effects, { ...ctx, subscription }) };
}

/**
 * UpdatePortIn: a supplement with the merged port information and the due date the partner asks for (else
 * the earliest from the supplement's time). One that changes only the due date is its own trigger
 * (UpdateDueDate): the port information stays, and any confirmed date is void until the NP side confirms anew.
 */
export function planUpdate(current: PortInRequest, command: UpdatePortInCommand, ctx: Context): Plan {
  const due = { desiredDueDate: command.desiredDueDate ?? desiredDueDate(ctx.cause.at, ctx.settings.dueIntervalBusinessDays), correlationId: ctx.cause.correlationId };
  if (changesOnlyDueDate(command)) return transition(current, 'UpdateDueDate', { ...due, confirmedDueDate: undefined }, ctx);
  const merged = mergePortInfo(revealSecrets(current.portInfo, current.secrets), command.updatePortInfo);
  const { portInfo, secrets } = separateSecrets(merged);
  return transition(current, 'UpdatePortIn', { portInfo, secrets, ...due }, ctx);
}

export const planCancel = (current: PortInRequest, ctx: Context): Plan => transition(current, 'CancelPortIn', reason('CANCELLED_BY_PARTNER'), ctx);

/**
 * The abandonment timer: only the request and version it was scheduled for, and only once the deadline of
 * the request's current status has passed (src/domain/portin/expiry.ts).
 */
export function planExpiry(current: PortInRequest, scheduled: { requestId: string; portOrderVersion: number }, ctx: Context): Plan {
  if (current.requestId !== scheduled.requestId || current.portOrderVersion !== scheduled.portOrderVersion) {
    return { kind: 'ignore', why: 'the request moved on since the expiry was scheduled' };
  }
  const deadline = expiryDeadline(current, ctx.settings);
  if (deadline && ctx.cause.at.getTime() < deadline.getTime()) return { kind: 'ignore', why: 'not yet due' };
  return transition(current, 'Expire', reason(expiryReason(current.portStatus)), ctx);
}

/** The facts each NP response sets on the request when its rule moves it. */
function npDetails(response: NpResponse, current: PortInRequest): Partial<PortInRequest> {
  switch (response.trigger) {
    case 'PortConfirmed':
      return response.dueDate ? { confirmedDueDate: response.dueDate } : {};
    case 'ResolutionRequired':
    case 'PortRejected':
      // a problem after the FOC voids its date
      return { reasonCode: response.reasonCode, reasonDescription: response.reasonDescription, remarks: response.remarks, confirmedDueDate: undefined };
    case 'PortDelayed':
    case 'CancelRefused':
      return { reasonCode: response.reasonCode, reasonDescription: response.reasonDescription };
    case 'CancelConfirmed':
      // the request ends for the reason its cancel was asked for (the partner's, or abandonment)
      return { reasonCode: current.reasonCode, reasonDescription: current.reasonDescription };
    case 'ActivationComplete':
    case 'OrderIdAssigned':
      return {};
  }
}

/**
 * Facts true of the order whatever version the NP side answered: its order id (assigned to the order, not
 * a version), and that the number went live.
 */
const ANY_EARLIER_VERSION: ReadonlySet<NpTrigger> = new Set(['OrderIdAssigned', 'ActivationComplete']);

/**
 * An NP response applies only to the request and version it answers: a response for another request, a
 * newer version, or an older one (but the facts of ANY_EARLIER_VERSION), or a repeated one (which the
 * table ignores), changes nothing.
 */
export function planNpResponse(current: PortInRequest, response: NpResponse, ctx: Context): Plan {
  if (response.requestId !== current.requestId) return { kind: 'ignore', why: 'answers another request' };
  const earlier = response.portOrderVersion < current.portOrderVersion && ANY_EARLIER_VERSION.has(response.trigger);
  if (response.portOrderVersion !== current.portOrderVersion && !earlier) {
    return { kind: 'ignore', why: `answers version ${response.portOrderVersion}, the request is at ${current.portOrderVersion}` };
  }
  const rule = ruleFor(current.portStatus, response.trigger);
  if (rule.action === 'annotate') return annotateOrder(current, response, ctx.cause);
  const activatedAt = response.activatedAt === undefined ? undefined : new Date(response.activatedAt);
  return transition(current, response.trigger, npDetails(response, current), { ...ctx, activatedAt });
}

/** OrderIdAssigned: records the NP's portOrderId and the old providers once; a repeat changes nothing. */
function annotateOrder(current: PortInRequest, response: NpResponse, cause: Cause): Plan {
  if (!response.portOrderId) return { kind: 'ignore', why: 'OrderIdAssigned without portOrderId' };
  if (current.portOrderId !== undefined) {
    return { kind: 'ignore', why: current.portOrderId === response.portOrderId ? 'order id already recorded' : `keeps order id ${current.portOrderId}` };
  }
  const next: PortInRequest = {
    ...current,
    portOrderId: response.portOrderId,
    oldNetworkServiceProvider: response.oldNetworkServiceProvider ?? current.oldNetworkServiceProvider,
    oldLocalServiceProvider: response.oldLocalServiceProvider ?? current.oldLocalServiceProvider,
    portLastUpdateDate: cause.at.toISOString(),
  };
  return { kind: 'change', change: { previousStatus: current.portStatus, next, messages: [], followUps: [] } };
}
