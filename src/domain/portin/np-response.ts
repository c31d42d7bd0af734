import { Problems, checkInteger, checkString } from '../validation/problems';
import { GPSI, PORT_ORDER_ID } from '../validation/spec-fields';
import { isNpTrigger } from './lifecycle';
import { NP_NAMESPACE } from './records';
import type { NpResponse } from './transitions';

/**
 * Reads a decoded np.portin.responses.v1 record into an NpResponse. The NP side is outside the service:
 * a malformed response is reported (and skipped by the caller), never trusted.
 */
export type ParsedNpResponse = { ok: true; response: NpResponse } | { ok: false; problems: { path: string; reason: string }[] };

const TEXT = { min: 1, max: 256 };
/** Remarks are free text of the old provider: kept, but bounded (a longer one is cut, not refused). */
export const MAX_REMARKS = 1000;
const optional = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
/** A time the NP side states: used when it is one; an unreadable one is left out (the caller uses its own clock). */
const instant = (value: unknown): string | undefined => {
  const text = optional(value);
  return text !== undefined && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined;
};

export function parseNpResponse(recordName: string, value: unknown): ParsedNpResponse {
  const problems = new Problems();
  const trigger = recordName.startsWith(`${NP_NAMESPACE}.`) ? recordName.slice(NP_NAMESPACE.length + 1) : recordName;
  if (!isNpTrigger(trigger)) return { ok: false, problems: [{ path: '', reason: `${recordName} is no NP response record` }] };
  const raw = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  checkString(problems, 'responseId', raw.responseId, { ...TEXT, required: true });
  checkString(problems, 'requestId', raw.requestId, { ...TEXT, required: true });
  checkString(problems, 'gpsi', raw.gpsi, { ...GPSI, required: true });
  checkString(problems, 'portOrderId', raw.portOrderId, { ...PORT_ORDER_ID, required: trigger === 'OrderIdAssigned' });
  checkInteger(problems, 'portOrderVersion', raw.portOrderVersion, { required: true, min: 1 });
  checkString(problems, 'sentAt', raw.sentAt, { ...TEXT, required: true });
  const reasonRequired = trigger === 'ResolutionRequired' || trigger === 'PortRejected' || trigger === 'PortDelayed' || trigger === 'CancelRefused';
  checkString(problems, 'reasonCode', raw.reasonCode, { min: 1, max: 16, required: reasonRequired });
  checkString(problems, 'reasonDescription', raw.reasonDescription, TEXT);
  checkString(problems, 'dueDate', raw.dueDate, { ...TEXT, required: trigger === 'PortConfirmed' });
  checkString(problems, 'oldNetworkServiceProvider', raw.oldNetworkServiceProvider, TEXT);
  checkString(problems, 'oldLocalServiceProvider', raw.oldLocalServiceProvider, TEXT);
  if (!problems.ok) return { ok: false, problems: problems.list };
  return {
    ok: true,
    response: {
      trigger,
      responseId: raw.responseId as string,
      requestId: raw.requestId as string,
      gpsi: raw.gpsi as string,
      portOrderId: optional(raw.portOrderId),
      portOrderVersion: raw.portOrderVersion as number,
      sentAt: raw.sentAt as string,
      dueDate: optional(raw.dueDate),
      reasonCode: optional(raw.reasonCode),
      reasonDescription: optional(raw.reasonDescription),
      remarks: optional(raw.remarks)?.slice(0, MAX_REMARKS),
      activatedAt: instant(raw.activatedAt),
      oldNetworkServiceProvider: optional(raw.oldNetworkServiceProvider),
      oldLocalServiceProvider: optional(raw.oldLocalServiceProvider),
    },
  };
}
