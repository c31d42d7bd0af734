import type { OutgoingMessage } from '../../contract/messages';
import type { NewSubscription } from '../subscription';
import type { CreatePortInCommand, UpdatePortInCommand } from './commands';
import { desiredDueDate } from './due-date';
import { ruleFor, CREATE_ON_FREE_NUMBER, type Effect, type NpTrigger, type PortStatus, type PortTrigger } from './lifecycle';
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
  | { kind: 'activateSubscription'; gpsi: string }
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
  reasonCode?: string;
  reasonDescription?: string;
  oldNetworkServiceProvider?: string;
  oldLocalServiceProvider?: string;
}

/** The member of the expiry schedule for one stay in an expiring status (unique per request and version). */
export const expiryMember = (request: Pick<PortInRequest, 'gpsi' | 'requestId' | 'portOrderVersion'>): string =>
  `${request.gpsi}|${request.requestId}|${request.portOrderVersion}`;

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
      case 'activateSubscription':
        followUps.push({ kind: 'activateSubscription', gpsi: next.gpsi });
        break;
      case 'cancelSubscription':
        followUps.push({ kind: 'cancelSubscription', gpsi: next.gpsi, reason: next.reasonDescription ?? 'cancelled' });
        break;
      case 'scheduleExpiry': {
        const deadline = new Date(ctx.cause.at.getTime() + ctx.settings.abandonAfterSeconds * 1000).toISOString();
        followUps.push({ kind: 'scheduleExpiry', member: expiryMember(next), deadline });
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

/** Applies the table's rule for `trigger`; `details` are the trigger's own facts set on the request when it moves. */
function transition(current: PortInRequest, trigger: PortTrigger, details: Partial<PortInRequest>, ctx: Context): Plan {
  const rule = ruleFor(current.portStatus, trigger);
  switch (rule.action) {
    case 'conflict':
      return { kind: 'conflict', status: current.portStatus };
    case 'ignore':
    case 'read':
    case 'annotate':
    case 'replace':
      return { kind: 'ignore', why: `${trigger} in ${current.portStatus} (${rule.action})` };
    case 'move': {
      const at = ctx.cause.at.toISOString();
      const moved: PortInRequest = {
        ...current,
        reasonCode: undefined,
        reasonDescription: undefined,
        ...details,
        portStatus: rule.to,
        statusSince: at,
        portLastUpdateDate: at,
      };
      return { kind: 'change', change: withEffects(current.portStatus, moved, rule.effects, ctx) };
    }
  }
}

/**
 * CreatePortIn: on a free number or over a finished request (the table's `replace`); a request in
 * progress or a completed port is a conflict.
 */
export function planCreate(
  current: PortInRequest | undefined,
  command: CreatePortInCommand,
  facts: CreationFacts,
  subscription: NewSubscription,
  ctx: Omit<Context, 'subscription'>,
): Plan {
  const rule = current ? ruleFor(current.portStatus, 'CreatePortIn') : CREATE_ON_FREE_NUMBER;
  if (current && rule.action === 'conflict') return { kind: 'conflict', status: current.portStatus };
  if (rule.action !== 'replace') return { kind: 'ignore', why: `CreatePortIn in ${current?.portStatus} (${rule.action})` };
  const created = newPortInRequest(command, facts, ctx.settings);
  return { kind: 'change', change: withEffects(undefined, { ...created, portStatus: rule.to }, rule.effects, { ...ctx, subscription }) };
}

/** UpdatePortIn: a supplement with the merged port information and a new desired due date. */
export function planUpdate(current: PortInRequest, command: UpdatePortInCommand, ctx: Context): Plan {
  const merged = mergePortInfo(revealSecrets(current.portInfo, current.secrets), command.updatePortInfo);
  const { portInfo, secrets } = separateSecrets(merged);
  return transition(
    current,
    'UpdatePortIn',
    { portInfo, secrets, desiredDueDate: desiredDueDate(ctx.cause.at, ctx.settings.dueIntervalBusinessDays), correlationId: ctx.cause.correlationId },
    ctx,
  );
}

export const planCancel = (current: PortInRequest, ctx: Context): Plan =>
  transition(current, 'CancelPortIn', reason('CANCELLED_BY_PARTNER'), ctx);

/** The expiry timer: only the stay it was scheduled for, and only once its deadline has passed. */
export function planExpiry(current: PortInRequest, scheduled: { requestId: string; portOrderVersion: number }, ctx: Context): Plan {
  if (current.requestId !== scheduled.requestId || current.portOrderVersion !== scheduled.portOrderVersion) {
    return { kind: 'ignore', why: 'the request moved on since the expiry was scheduled' };
  }
  const deadline = Date.parse(current.statusSince) + ctx.settings.abandonAfterSeconds * 1000;
  if (ctx.cause.at.getTime() < deadline) return { kind: 'ignore', why: 'not yet due' };
  return transition(current, 'Expire', reason('EXPIRED'), ctx);
}

/** The facts each NP response sets on the request when its rule moves it. */
function npDetails(response: NpResponse): Partial<PortInRequest> {
  switch (response.trigger) {
    case 'PortConfirmed':
      return response.dueDate ? { confirmedDueDate: response.dueDate } : {};
    case 'PortDelayed':
    case 'ResolutionRequired':
    case 'PortRejected':
      return { reasonCode: response.reasonCode, reasonDescription: response.reasonDescription };
    default:
      return {};
  }
}

/**
 * An NP response applies only to the request and version it answers: a response for another request or
 * an older version (or a repeated one, which the table ignores) changes nothing.
 */
export function planNpResponse(current: PortInRequest, response: NpResponse, ctx: Context): Plan {
  if (response.requestId !== current.requestId) return { kind: 'ignore', why: 'answers another request' };
  if (response.portOrderVersion !== current.portOrderVersion) {
    return { kind: 'ignore', why: `answers version ${response.portOrderVersion}, the request is at ${current.portOrderVersion}` };
  }
  const rule = ruleFor(current.portStatus, response.trigger);
  if (rule.action === 'annotate') return annotateOrder(current, response, ctx.cause);
  return transition(current, response.trigger, npDetails(response), ctx);
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
