import type { FieldProblem } from '../../contract/errors';
import { checked, checkString, Problems, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';
import { isRejectionReason, PORTOUT_REJECTION_REASONS, type PortOutRejectionReason } from './reason-codes';
import { PORTOUT_NP_RESPONSE_RECORDS } from './records';

/** The port-out commands' validators (the convention of src/domain/validation/problems.ts) and the NP records' reader. */
export const PORTOUT_ID = { min: 1, max: 64 };
const TEXT = { min: 1, max: 256 };

export type AnswerPortOutCommand = { gpsi: string; portOutId: string; decision: 'APPROVE' } | { gpsi: string; portOutId: string; decision: 'REJECT'; reasonCode: PortOutRejectionReason };

const field = (raw: unknown, name: string): unknown => (typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined);

export function checkAnswerPortOut(raw: unknown): Checked<AnswerPortOutCommand | undefined> {
  const problems = new Problems();
  const gpsi = field(raw, 'gpsi');
  const portOutId = field(raw, 'portOutId');
  const decision = field(raw, 'decision');
  const reasonCode = field(raw, 'reasonCode');
  checkString(problems, 'gpsi', gpsi, { ...GPSI, required: true });
  checkString(problems, 'portOutId', portOutId, { ...PORTOUT_ID, required: true });
  const decided = checkString(problems, 'decision', decision, { required: true, oneOf: ['APPROVE', 'REJECT'] });
  if (decided && decision === 'REJECT') {
    if (checkString(problems, 'reasonCode', reasonCode, { required: true }) && !isRejectionReason(reasonCode as string)) {
      problems.add('reasonCode', `must be one of ${Object.keys(PORTOUT_REJECTION_REASONS).join(', ')}`);
    }
  }
  if (decided && decision === 'APPROVE' && reasonCode !== null && reasonCode !== undefined) problems.add('reasonCode', 'must be absent with APPROVE');
  if (!problems.ok) return checked(problems, undefined);
  const base = { gpsi: gpsi as string, portOutId: portOutId as string };
  return checked(problems, decision === 'APPROVE' ? { ...base, decision: 'APPROVE' } : { ...base, decision: 'REJECT', reasonCode: reasonCode as PortOutRejectionReason });
}

export function checkQueryPortOut(raw: unknown): Checked<{ gpsi: string } | undefined> {
  const problems = new Problems();
  const gpsi = field(raw, 'gpsi');
  checkString(problems, 'gpsi', gpsi, { ...GPSI, required: true });
  return checked(problems, problems.ok ? { gpsi: gpsi as string } : undefined);
}

export type PortOutResponse =
  | { trigger: 'PortOutRequested'; responseId: string; gpsi: string; portOutId: string; gainingProvider: string; desiredDueDate?: string }
  | { trigger: 'PortOutCompleted'; responseId: string; gpsi: string; portOutId: string; completedAt?: string }
  | { trigger: 'PortOutCancelled'; responseId: string; gpsi: string; portOutId: string; reason?: string };

const optional = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const instant = (value: unknown): string | undefined => {
  const text = optional(value);
  return text !== undefined && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined;
};

/** Reads a decoded port-out record of np.portin.responses.v1; the NP side is outside the service, so a malformed one is reported, never trusted. */
export function parsePortOutResponse(recordName: string, raw: unknown): { ok: true; response: PortOutResponse } | { ok: false; problems: FieldProblem[] } {
  const trigger = recordName.slice(recordName.lastIndexOf('.') + 1);
  if (!Object.values<string>(PORTOUT_NP_RESPONSE_RECORDS).includes(recordName)) return { ok: false, problems: [{ path: '', reason: `${recordName} is no port-out record` }] };
  const problems = new Problems();
  for (const name of ['responseId', 'sentAt'] as const) checkString(problems, name, field(raw, name), { ...TEXT, required: true });
  checkString(problems, 'gpsi', field(raw, 'gpsi'), { ...GPSI, required: true });
  checkString(problems, 'portOutId', field(raw, 'portOutId'), { ...PORTOUT_ID, required: true });
  if (trigger === 'PortOutRequested') checkString(problems, 'gainingProvider', field(raw, 'gainingProvider'), { ...TEXT, required: true });
  if (!problems.ok) return { ok: false, problems: problems.list };
  const common = { responseId: field(raw, 'responseId') as string, gpsi: field(raw, 'gpsi') as string, portOutId: field(raw, 'portOutId') as string };
  if (trigger === 'PortOutRequested') {
    const desiredDueDate = instant(field(raw, 'desiredDueDate'));
    return { ok: true, response: { trigger, ...common, gainingProvider: field(raw, 'gainingProvider') as string, ...(desiredDueDate ? { desiredDueDate } : {}) } };
  }
  if (trigger === 'PortOutCancelled') {
    const reason = optional(field(raw, 'reason'));
    return { ok: true, response: { trigger, ...common, ...(reason ? { reason: reason.slice(0, TEXT.max) } : {}) } };
  }
  const completedAt = instant(field(raw, 'completedAt'));
  return { ok: true, response: { trigger: 'PortOutCompleted', ...common, ...(completedAt ? { completedAt } : {}) } };
}
