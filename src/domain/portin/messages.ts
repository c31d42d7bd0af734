import type { OutgoingMessage } from '../../contract/messages';
import { derivedUuid } from './ids';
import { activationWindow } from '../foc/activation-window';
import { isInProgress, type PortStatus } from './lifecycle';
import { revealSecrets } from './masking';
import { toAvroPortInfo } from './port-info';
import { NP_REQUEST_RECORDS, PORTIN_EVENT_RECORD } from './records';
import type { PortInRequest } from './request';

/**
 * The messages a port-in change publishes, built pure: PortInActivationEvent (CloudEvents, key gpsi) and
 * the NP requests. Ids and times come from the cause, so a replay builds byte-identical messages.
 */
export interface Cause {
  /** What caused the change (causeIds.*): keys the recorded outcome and seeds the event id. */
  id: string;
  at: Date;
  /** The correlation id of the command behind the change, when there was one. */
  correlationId?: string;
}

/** The FOC dates an event tells: requested and confirmed, and while CONFIRMED the window of activation on demand. */
function focFields(request: PortInRequest) {
  const window = request.portStatus === 'CONFIRMED' ? activationWindow(request.confirmedDueDate) : undefined;
  return {
    requestedFocDate: request.desiredDueDate ?? null,
    confirmedFocDate: request.confirmedDueDate ?? null,
    activationWindowStart: window?.start ?? null,
    activationWindowEnd: window?.end ?? null,
  };
}

export function activationEvent(previous: PortStatus | undefined, request: PortInRequest, cause: Cause): OutgoingMessage {
  const eventId = derivedUuid(PORTIN_EVENT_RECORD, cause.id, request.requestId, String(request.portOrderVersion), request.portStatus);
  const eventTime = cause.at.toISOString();
  return {
    topic: 'portinEvents',
    recordName: PORTIN_EVENT_RECORD,
    key: request.gpsi,
    owner: request.wholesaleCustomerId || undefined,
    value: {
      eventId,
      eventTime,
      gpsi: request.gpsi,
      partnerTransactionId: request.partnerTransactionId,
      portOrderId: request.portOrderId ?? null,
      portOrderVersion: String(request.portOrderVersion),
      portStatus: request.portStatus,
      previousPortStatus: previous ?? null,
      reasonCode: request.reasonCode ?? null,
      reasonDescription: request.reasonDescription ?? null,
      subscriberId: request.subscriberId,
      wholesaleCustomerId: request.wholesaleCustomerId === '' ? null : request.wholesaleCustomerId,
      correlationId: cause.correlationId ?? null,
      remarks: request.remarks ?? null,
      ...focFields(request),
    },
    cloudEvent: { id: eventId, subject: request.gpsi, time: eventTime },
  };
}

const npMessage = (recordName: string, request: PortInRequest, value: Record<string, unknown>): OutgoingMessage => ({
  topic: 'npRequests',
  recordName,
  key: request.gpsi,
  value,
});

const npCommon = (request: PortInRequest, cause: Cause) => ({
  requestId: request.requestId,
  gpsi: request.gpsi,
  portOrderVersion: request.portOrderVersion,
  correlationId: cause.correlationId ?? null,
  sentAt: cause.at.toISOString(),
});

/** The NP side needs pwdPin and accountNo in clear: the old provider checks them. */
const npPortInfo = (request: PortInRequest) => toAvroPortInfo(revealSecrets(request.portInfo, request.secrets), 'np');

export const npSubmit = (request: PortInRequest, cause: Cause): OutgoingMessage => ({
  ...npMessage(NP_REQUEST_RECORDS.submit, request, {
    ...npCommon(request, cause),
    subscriberId: request.subscriberId,
    desiredDueDate: request.desiredDueDate,
    portInfo: npPortInfo(request),
    newNetworkServiceProvider: request.newNetworkServiceProvider,
    newLocalServiceProvider: request.newLocalServiceProvider,
  }),
  secrets: 'inClear',
});

export const npSupplement = (request: PortInRequest, cause: Cause): OutgoingMessage => ({
  ...npMessage(NP_REQUEST_RECORDS.supplement, request, {
    ...npCommon(request, cause),
    portOrderId: request.portOrderId ?? null,
    desiredDueDate: request.desiredDueDate,
    portInfo: npPortInfo(request),
  }),
  secrets: 'inClear',
});

/**
 * The copy of a message kept in a recorded outcome: pwdPin and accountNo live only on the open request,
 * so an NP request is kept without them ('withheld').
 */
export function withholdSecrets(message: OutgoingMessage): OutgoingMessage {
  if (message.secrets !== 'inClear') return message;
  const portInfo = { ...(message.value.portInfo as Record<string, unknown>), pwdPin: null, accountNo: null };
  return { ...message, value: { ...message.value, portInfo }, secrets: 'withheld' };
}

/**
 * A kept NP request made whole again for a replay, from the request it was sent for: only while that
 * request is still in progress at the same version (else the NP request is moot, and undefined says drop it).
 */
export function restoreSecrets(message: OutgoingMessage, request: PortInRequest | undefined): OutgoingMessage | undefined {
  if (message.secrets !== 'withheld') return message;
  if (!request || !isInProgress(request.portStatus) || request.portOrderVersion !== message.value.portOrderVersion) return undefined;
  const portInfo = { ...(message.value.portInfo as Record<string, unknown>), pwdPin: request.secrets.pwdPin ?? null, accountNo: request.secrets.accountNo ?? null };
  return { ...message, value: { ...message.value, portInfo }, secrets: 'inClear' };
}

export const npCancel = (request: PortInRequest, cause: Cause): OutgoingMessage =>
  npMessage(NP_REQUEST_RECORDS.cancel, request, {
    ...npCommon(request, cause),
    portOrderId: request.portOrderId ?? null,
    reasonCode: request.reasonCode ?? null,
    reasonDescription: request.reasonDescription ?? null,
  });
