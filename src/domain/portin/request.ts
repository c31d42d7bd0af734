import type { NewSubscription } from '../subscription';
import type { CreatePortInCommand, PortInfo } from './commands';
import { defaultBillCycleStartDay, desiredDueDate, type DueDateRules } from './due-date';
import type { PortStatus } from './lifecycle';
import { separateSecrets, type PortSecrets } from './masking';
import { toAvroPortInfo } from './port-info';

/**
 * A port-in request as the service keeps it: the fields of the port-in record (service-spec 2.8) plus what
 * the service needs to run the port (its own id, owner, secrets while needed, the first reply).
 */
export interface PortInRequest {
  /** The service's own id of this request, shared with the NP side (requestId of the NP records). */
  requestId: string;
  /** The owner; '' when the command named no wholesale customer. */
  wholesaleCustomerId: string;
  gpsi: string;
  partnerTransactionId: string;
  subscriberId: string;
  portOrderId?: string;
  portOrderVersion: number;
  portStatus: PortStatus;
  reasonCode?: string;
  reasonDescription?: string;
  /** The NP side's remarks with the ResolutionRequired the request waits in (required by reason 1P). */
  remarks?: string;
  desiredDueDate: string;
  /** The due date the old provider confirmed (firm order confirmation). */
  confirmedDueDate?: string;
  portDirection: string;
  portOriginalSubmissionDate: string;
  portLastUpdateDate: string;
  /** When the current status began: the expiry timer counts from here. */
  statusSince: string;
  /** In CANCEL_PENDING: the status to go back to if the NP side refuses the cancel. */
  statusBeforeCancel?: PortStatus;
  /** With pwdPin and accountNo masked. */
  portInfo: PortInfo;
  /** pwdPin and accountNo in clear, until the port is COMPLETED or CANCELLED. */
  secrets: PortSecrets;
  newNetworkServiceProvider: string;
  newLocalServiceProvider: string;
  oldNetworkServiceProvider?: string;
  oldLocalServiceProvider?: string;
  /** Fingerprint of the CreatePortIn payload: a retry with the same payload gets the first reply. */
  payloadHash: string;
  /** Correlation id of the last command that sent something to the NP side, carried on the events its responses cause. */
  correlationId?: string;
  /** The reply the CreatePortIn got, answered again to a retry with the same payload. */
  createReply: CreatePortInReply;
}

export interface CreatePortInReply {
  status: 'Success';
  partnerTransactionId: string;
  gpsi: string;
  subscriberId: string;
  portStatus: PortStatus;
  portOrderVersion: string;
  portOriginalSubmissionDate: string;
  desiredDueDate: string;
}

export const PORT_DIRECTION = 'PORT_IN';

/** How long each waiting status may last before the expiry timer ends it (domain/portin/expiry.ts). */
export interface ExpirySettings {
  /** RESOLUTION_REQUIRED and REJECTED: from entering the status. */
  abandonAfterSeconds: number;
  /** OPEN and DELAYED: from the desired due date, without a firm answer of the NP side. */
  noAnswerAfterDueSeconds: number;
  /** CONFIRMED: from the confirmed due date, without ActivationComplete. */
  activationGraceSeconds: number;
  /** CANCEL_PENDING: from the cancel, without the NP side's answer to it. */
  cancelAnswerTimeoutSeconds: number;
}

export interface PortInSettings extends ExpirySettings {
  /** Business days between submission (or a supplement) and the desired due date: the earliest one a partner may ask for. */
  dueIntervalBusinessDays: number;
  /** How far ahead (calendar days) a partner may ask for a due date. */
  dueDateMaxDaysAhead: number;
  /** The service's operator: the new network service provider of every port-in. */
  networkServiceProvider: string;
  /** New local service provider when the partner gives no portInfo.newNumLocalSP. */
  localServiceProvider: string;
}

export interface CreationFacts {
  requestId: string;
  wholesaleCustomerId: string;
  payloadHash: string;
  correlationId: string;
  now: Date;
  /** The number's subscription ended by a port-out: the number left, so the port-in that brought it is history. */
  numberLeft?: boolean;
}

export function newPortInRequest(command: CreatePortInCommand, facts: CreationFacts, settings: PortInSettings): PortInRequest {
  const at = facts.now.toISOString();
  const { portInfo, secrets } = separateSecrets(command.portInfo);
  const due = command.desiredDueDate ?? desiredDueDate(facts.now, settings.dueIntervalBusinessDays);
  return {
    requestId: facts.requestId,
    wholesaleCustomerId: facts.wholesaleCustomerId,
    gpsi: command.gpsi,
    partnerTransactionId: command.partnerTransactionId,
    subscriberId: command.subscriberId,
    portOrderVersion: 1,
    portStatus: 'OPEN',
    desiredDueDate: due,
    portDirection: PORT_DIRECTION,
    portOriginalSubmissionDate: at,
    portLastUpdateDate: at,
    statusSince: at,
    portInfo,
    secrets,
    newNetworkServiceProvider: settings.networkServiceProvider,
    newLocalServiceProvider: command.portInfo.newNumLocalSP ?? settings.localServiceProvider,
    payloadHash: facts.payloadHash,
    correlationId: facts.correlationId,
    createReply: {
      status: 'Success',
      partnerTransactionId: command.partnerTransactionId,
      gpsi: command.gpsi,
      subscriberId: command.subscriberId,
      portStatus: 'OPEN',
      portOrderVersion: '1',
      portOriginalSubmissionDate: at,
      desiredDueDate: due,
    },
  };
}

/** The due-date rules of a command handled at `now`. */
export const dueDateRules = (settings: Pick<PortInSettings, 'dueIntervalBusinessDays' | 'dueDateMaxDaysAhead'>, now: Date): DueDateRules => ({
  now,
  intervalBusinessDays: settings.dueIntervalBusinessDays,
  maxDaysAhead: settings.dueDateMaxDaysAhead,
});

/** The pending subscription a CreatePortIn makes, activated when the port completes. */
export function pendingSubscriptionFor(command: CreatePortInCommand, wholesaleCustomerId: string, now: Date): NewSubscription {
  const subscription: NewSubscription = {
    gpsi: command.gpsi,
    wholesaleCustomerId,
    subscriberId: command.subscriberId,
    wholesalePlanId: command.wholesalePlanId,
    bucketRefIds: command.bucketRefId,
    products: command.products,
    billCycleFrequency: command.billCycleFrequency,
    billCycleStartDay: command.billCycleStartDay ?? defaultBillCycleStartDay(now),
  };
  if (command.iccid) subscription.iccid = command.iccid;
  if (command.pei) subscription.pei = command.pei;
  if (command.eid) subscription.eid = command.eid;
  if (command.eSIMDeliveryMethod) subscription.eSIMDeliveryMethod = command.eSIMDeliveryMethod;
  return subscription;
}

/** The port-in record of service-spec 2.8 as QueryPortInReply carries it: secrets masked, absent fields null. */
export function portInRecordView(request: PortInRequest): Record<string, unknown> {
  return {
    gpsi: request.gpsi,
    partnerTransactionId: request.partnerTransactionId,
    portOrderId: request.portOrderId ?? null,
    portOrderVersion: String(request.portOrderVersion),
    subscriberId: request.subscriberId,
    portStatus: request.portStatus,
    reasonCode: request.reasonCode ?? null,
    reasonDescription: request.reasonDescription ?? null,
    remarks: request.remarks ?? null,
    desiredDueDate: request.desiredDueDate,
    confirmedDueDate: request.confirmedDueDate ?? null,
    portDirection: request.portDirection,
    portLastUpdateDate: request.portLastUpdateDate,
    portOriginalSubmissionDate: request.portOriginalSubmissionDate,
    portInfo: toAvroPortInfo(request.portInfo, 'query'),
    newNetworkServiceProvider: request.newNetworkServiceProvider,
    oldNetworkServiceProvider: request.oldNetworkServiceProvider ?? null,
    oldLocalServiceProvider: request.oldLocalServiceProvider ?? null,
    newLocalServiceProvider: request.newLocalServiceProvider,
  };
}
