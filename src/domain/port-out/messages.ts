import type { OutgoingMessage } from '../../contract/messages';
import { derivedUuid } from '../portin/ids';
import type { Cause } from '../portin/messages';
import type { PortOutStatus } from './lifecycle';
import type { PortOut } from './port-out';
import { PORTOUT_DECISION_RECORD, PORTOUT_EVENT_RECORD } from './records';

/**
 * The messages of a port-out change, built pure from the record and its cause: ids and times come from the
 * cause, so a replay builds the same messages (same ce_id).
 */
export function portOutEvent(previous: PortOutStatus | undefined, portOut: PortOut, cause: Cause): OutgoingMessage {
  const eventId = derivedUuid(PORTOUT_EVENT_RECORD, cause.id, portOut.portOutId, portOut.status);
  const eventTime = cause.at.toISOString();
  return {
    topic: 'portinEvents',
    recordName: PORTOUT_EVENT_RECORD,
    key: portOut.gpsi,
    owner: portOut.wholesaleCustomerId || undefined,
    value: {
      eventId,
      eventTime,
      gpsi: portOut.gpsi,
      portOutId: portOut.portOutId,
      portOutStatus: portOut.status,
      previousPortOutStatus: previous ?? null,
      gainingProvider: portOut.gainingProvider,
      validationDeadline: portOut.validationDeadline,
      desiredDueDate: portOut.desiredDueDate ?? null,
      decidedBy: portOut.decidedBy ?? null,
      reasonCode: portOut.reasonCode ?? null,
      reasonDescription: portOut.reasonDescription ?? null,
      subscriberId: portOut.subscriberId ?? null,
      wholesaleCustomerId: portOut.wholesaleCustomerId || null,
      correlationId: cause.correlationId ?? null,
      completedAt: portOut.completedAt ?? null,
      cancelReason: portOut.cancelReason ?? null,
    },
    cloudEvent: { id: eventId, subject: portOut.gpsi, time: eventTime },
  };
}

/** The decision sent to the NP application (APPROVED or REJECTED, by the partner or the deadline). */
export function decisionRequest(portOut: PortOut, cause: Cause): OutgoingMessage {
  return {
    topic: 'npRequests',
    recordName: PORTOUT_DECISION_RECORD,
    key: portOut.gpsi,
    value: {
      portOutId: portOut.portOutId,
      gpsi: portOut.gpsi,
      decision: portOut.status,
      reasonCode: portOut.reasonCode ?? null,
      reasonDescription: portOut.reasonDescription ?? null,
      decidedBy: portOut.decidedBy ?? 'PARTNER',
      correlationId: cause.correlationId ?? null,
      sentAt: cause.at.toISOString(),
    },
  };
}
