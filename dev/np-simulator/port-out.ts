import { createHash } from 'node:crypto';
import { PORTOUT_DECISION_RECORD, PORTOUT_NP_RESPONSE_RECORDS } from '../../src/domain/port-out/records';
import type { ScheduledResponse } from './rules';

/**
 * The simulator's port-out side, pure: an APPROVED decision completes the port-out (the number is live at
 * the gaining provider) after PORT_OUT_COMPLETES_AFTER_MS simulated; a REJECTED one ends it with nothing
 * more. A test plays the PortOutRequested itself (the NP side asks; nothing here starts a port-out).
 */
export const PORT_OUT_COMPLETES_AFTER_MS = 60_000;

export interface SimPortOutDecision {
  recordName: string;
  portOutId: string;
  gpsi: string;
  decision: string;
}

export const isPortOutDecision = (recordName: string): boolean => recordName === PORTOUT_DECISION_RECORD;

export function planPortOutDecision(decision: SimPortOutDecision): ScheduledResponse[] {
  if (decision.decision !== 'APPROVED') return [];
  const responseId = `sim-${createHash('sha256').update(`port-out|${decision.portOutId}|completed`).digest('hex').slice(0, 24)}`;
  return [
    {
      afterMs: PORT_OUT_COMPLETES_AFTER_MS,
      recordName: PORTOUT_NP_RESPONSE_RECORDS.PortOutCompleted,
      value: { responseId, gpsi: decision.gpsi, portOutId: decision.portOutId, completedAt: null },
    },
  ];
}
