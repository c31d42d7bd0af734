import { ServiceError } from '../../contract/errors';
import type { OutgoingMessage } from '../../contract/messages';
import type { Cause } from '../portin/messages';
import type { PortInRequest } from '../portin/request';
import type { Plan } from '../portin/transitions';
import { checked, checkString, Problems, type Checked } from '../validation/problems';
import { GPSI, PARTNER_TRANSACTION_ID } from '../validation/spec-fields';
import { activationWindow, isInside, type ActivationWindow } from './activation-window';
import { ACTIVATE_PORT_REQUEST_RECORD } from './records';

/**
 * ActivatePortIn, pure: taken only while the request is CONFIRMED and now is inside its activation window.
 * It changes no status (the NP side's ActivationComplete does, as for a cut-over at the FOC date): the
 * plan rewrites the request as it is and sends ActivatePortRequest, so the command's outcome is recorded
 * with the request and a redelivery replays it.
 */
export interface ActivatePortInCommand {
  gpsi: string;
  partnerTransactionId?: string;
}

const field = (raw: unknown, name: string): unknown => (typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined);

export function checkActivatePortIn(raw: unknown): Checked<ActivatePortInCommand | undefined> {
  const problems = new Problems();
  const gpsi = field(raw, 'gpsi');
  const partnerTransactionId = field(raw, 'partnerTransactionId');
  checkString(problems, 'gpsi', gpsi, { ...GPSI, required: true });
  checkString(problems, 'partnerTransactionId', partnerTransactionId, PARTNER_TRANSACTION_ID);
  if (!problems.ok) return checked(problems, undefined);
  return checked(problems, { gpsi: gpsi as string, ...(typeof partnerTransactionId === 'string' ? { partnerTransactionId } : {}) });
}

export type ActivationRefusal = { kind: 'status' } | { kind: 'window'; window: ActivationWindow | undefined };

/** The refusal, or the window the activation is inside. */
export function activationAllowed(request: PortInRequest, now: Date): { ok: true; window: ActivationWindow } | { ok: false; refusal: ActivationRefusal } {
  if (request.portStatus !== 'CONFIRMED') return { ok: false, refusal: { kind: 'status' } };
  const window = activationWindow(request.confirmedDueDate);
  if (!window || !isInside(window, now)) return { ok: false, refusal: { kind: 'window', window } };
  return { ok: true, window };
}

export function activationRefused(request: PortInRequest, refusal: ActivationRefusal, now: Date): ServiceError {
  if (refusal.kind === 'status') {
    return new ServiceError('CONFLICT', `port-in request ${request.partnerTransactionId} for ${request.gpsi} is ${request.portStatus}: ActivatePortIn is accepted in CONFIRMED only`, [
      { path: 'portStatus', reason: `is ${request.portStatus}` },
    ]);
  }
  const { window } = refusal;
  const reason = window ? `opens ${window.start}, closes ${window.end}; now is ${now.toISOString()}` : 'no confirmed FOC date';
  return new ServiceError('CONFLICT', `port-in request ${request.partnerTransactionId} for ${request.gpsi} may be activated on demand only within its activation window: ${reason}`, [
    { path: 'activationWindow', reason },
  ]);
}

export function activationRequest(request: PortInRequest, cause: Cause): OutgoingMessage {
  return {
    topic: 'npRequests',
    recordName: ACTIVATE_PORT_REQUEST_RECORD,
    key: request.gpsi,
    value: {
      requestId: request.requestId,
      gpsi: request.gpsi,
      portOrderId: request.portOrderId ?? null,
      portOrderVersion: request.portOrderVersion,
      correlationId: cause.correlationId ?? null,
      sentAt: cause.at.toISOString(),
    },
  };
}

/** The plan of an allowed activation: the request as it is, the NP request beside it. */
export const planActivation = (request: PortInRequest, cause: Cause): Plan => ({ kind: 'change', change: { next: request, messages: [activationRequest(request, cause)], followUps: [] } });
