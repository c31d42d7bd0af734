import type { OutgoingMessage } from '../../contract/messages';
import type { Cause } from '../portin/messages';
import { NO_PORTOUT, portOutRuleFor, type PortOutStatus } from './lifecycle';
import { decisionRequest, portOutEvent } from './messages';
import type { PortOut } from './port-out';
import { NO_ANSWER_REASON, PORT_IN_IN_PROGRESS_REASON, PORTOUT_REJECTION_REASONS, type PortOutRejectionReason } from './reason-codes';

/**
 * Plans one port-out change, pure: the lifecycle table's rule for the number's current port-out and the
 * trigger, and what follows from it (the next record, its event, the decision to the NP side, the deadline
 * to schedule, the subscription to end). The handlers write the plan; they never decide a transition.
 */
export interface PortOutSettings {
  /** How long the owning partner has to answer (PORTOUT_VALIDATION_WINDOW_SECONDS). */
  validationWindowSeconds: number;
  /** What an unanswered port-out becomes at its deadline (PORTOUT_DEADLINE_DECISION). */
  deadlineDecision: 'APPROVE' | 'REJECT';
}

export type PortOutFollowUp = { kind: 'scheduleDeadline'; gpsi: string; portOutId: string; deadline: string } | { kind: 'endSubscription'; gpsi: string; portOutId: string; at: string };

export interface PortOutChange {
  next: PortOut;
  messages: OutgoingMessage[];
  followUps: PortOutFollowUp[];
}

export type PortOutPlan = { kind: 'change'; change: PortOutChange } | { kind: 'ignore'; why: string } | { kind: 'conflict'; status: PortOutStatus } | { kind: 'notFound' };

/** The owner of the number's ACTIVE subscription (undefined: none, so nothing here to port out). */
export interface NumberOwner {
  wholesaleCustomerId: string;
  subscriberId?: string;
}

export interface PortOutRequest {
  gpsi: string;
  portOutId: string;
  gainingProvider: string;
  desiredDueDate?: string;
}

export type PortOutInput =
  | ({ trigger: 'PortOutRequested' | 'PortOutRequestedPortingIn'; owner?: NumberOwner } & PortOutRequest)
  | { trigger: 'Approve'; portOutId: string }
  | { trigger: 'Reject'; portOutId: string; reasonCode: PortOutRejectionReason }
  | { trigger: 'Deadline'; portOutId: string }
  | { trigger: 'PortOutCompleted'; portOutId: string; completedAt?: string }
  | { trigger: 'PortOutCancelled'; portOutId: string; reason?: string };

/**
 * The NP side's request as the number's subscription makes it: ACTIVE, its owner validates it
 * (PortOutRequested); PENDING, a port-in still in flight, the service refuses it at once
 * (PortOutRequestedPortingIn, owned by the porting partner so it sees the refusal); neither, nothing here.
 */
export function requestInput(request: PortOutRequest, subscription: { owner?: NumberOwner; portingIn?: NumberOwner }): PortOutInput {
  if (!subscription.owner && subscription.portingIn) return { trigger: 'PortOutRequestedPortingIn', ...request, owner: subscription.portingIn };
  return { trigger: 'PortOutRequested', ...request, ...(subscription.owner ? { owner: subscription.owner } : {}) };
}

const isRequest = (input: PortOutInput): input is Extract<PortOutInput, { gpsi: string }> => input.trigger === 'PortOutRequested' || input.trigger === 'PortOutRequestedPortingIn';

const changed = (previous: PortOut | undefined, next: PortOut, cause: Cause, extra: { decision?: boolean; followUps?: PortOutFollowUp[] } = {}): PortOutPlan => ({
  kind: 'change',
  change: {
    next,
    messages: [portOutEvent(previous?.status, next, cause), ...(extra.decision ? [decisionRequest(next, cause)] : [])],
    followUps: extra.followUps ?? [],
  },
});

export function planPortOut(current: PortOut | undefined, input: PortOutInput, cause: Cause, settings: PortOutSettings): PortOutPlan {
  const answer = input.trigger === 'Approve' || input.trigger === 'Reject';
  if (current && input.portOutId !== current.portOutId && !isRequest(input)) {
    return answer ? { kind: 'notFound' } : { kind: 'ignore', why: `the number's port-out is ${current.portOutId}, not ${input.portOutId}` };
  }
  if (current && isRequest(input) && input.portOutId === current.portOutId) return { kind: 'ignore', why: 'the port-out is known already' };
  const rule = portOutRuleFor(current?.status ?? NO_PORTOUT, input.trigger);
  switch (rule.action) {
    case 'ignore':
      return { kind: 'ignore', why: `${input.trigger} changes nothing in ${current?.status ?? 'no port-out'}` };
    case 'notFound':
      return { kind: 'notFound' };
    case 'conflict':
      return { kind: 'conflict', status: current!.status };
    case 'start':
    case 'refuse': {
      if (!isRequest(input)) return { kind: 'ignore', why: 'only a request starts a port-out' };
      if (!input.owner) return { kind: 'ignore', why: 'the number has no active subscription here' };
      const deadline = new Date(cause.at.getTime() + settings.validationWindowSeconds * 1000).toISOString();
      const requested: PortOut = {
        portOutId: input.portOutId,
        gpsi: input.gpsi,
        status: 'VALIDATION_PENDING',
        gainingProvider: input.gainingProvider,
        requestedAt: cause.at.toISOString(),
        validationDeadline: deadline,
        ...(input.desiredDueDate ? { desiredDueDate: input.desiredDueDate } : {}),
        wholesaleCustomerId: input.owner.wholesaleCustomerId,
        ...(input.owner.subscriberId ? { subscriberId: input.owner.subscriberId } : {}),
      };
      if (rule.action === 'refuse') {
        // decided on arrival: no deadline to wait for, the NP side answered at once
        const next: PortOut = {
          ...requested,
          status: 'REJECTED',
          validationDeadline: requested.requestedAt,
          decidedBy: 'SYSTEM',
          reasonCode: PORT_IN_IN_PROGRESS_REASON.code,
          reasonDescription: PORT_IN_IN_PROGRESS_REASON.description,
        };
        return changed(undefined, next, cause, { decision: true });
      }
      return {
        kind: 'change',
        change: {
          next: requested,
          messages: [portOutEvent(undefined, requested, cause)],
          followUps: [{ kind: 'scheduleDeadline', gpsi: requested.gpsi, portOutId: requested.portOutId, deadline }],
        },
      };
    }
    case 'decideByDeadline': {
      const portOut = current!;
      if (cause.at.getTime() < Date.parse(portOut.validationDeadline)) return { kind: 'ignore', why: 'the validation deadline has not passed' };
      const approve = settings.deadlineDecision === 'APPROVE';
      const next: PortOut = {
        ...portOut,
        status: approve ? 'APPROVED' : 'REJECTED',
        decidedBy: 'DEADLINE',
        ...(approve ? {} : { reasonCode: NO_ANSWER_REASON.code, reasonDescription: NO_ANSWER_REASON.description }),
      };
      return changed(portOut, next, cause, { decision: true });
    }
    case 'move': {
      const portOut = current!;
      if (input.trigger === 'PortOutCompleted') {
        const completedAt = input.completedAt ?? cause.at.toISOString();
        const next: PortOut = { ...portOut, status: rule.to, completedAt };
        return changed(portOut, next, cause, { followUps: [{ kind: 'endSubscription', gpsi: portOut.gpsi, portOutId: portOut.portOutId, at: completedAt }] });
      }
      if (input.trigger === 'PortOutCancelled') {
        // the gaining provider withdrew: no decision to send back, the partner is told by the event
        const next: PortOut = { ...portOut, status: rule.to, cancelledAt: cause.at.toISOString(), ...(input.reason ? { cancelReason: input.reason } : {}) };
        return changed(portOut, next, cause);
      }
      const reason = input.trigger === 'Reject' ? { reasonCode: input.reasonCode, reasonDescription: PORTOUT_REJECTION_REASONS[input.reasonCode] } : {};
      const next: PortOut = { ...portOut, status: rule.to, decidedBy: 'PARTNER', ...reason, ...(cause.correlationId ? { correlationId: cause.correlationId } : {}) };
      return changed(portOut, next, cause, { decision: true });
    }
  }
}
