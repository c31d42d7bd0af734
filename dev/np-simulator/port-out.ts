import { createHash } from 'node:crypto';
import { PORTOUT_DECISION_RECORD, PORTOUT_NP_RESPONSE_RECORDS } from '../../src/domain/port-out/records';
import type { ScheduledResponse } from './rules';

/**
 * The simulator's port-out side, pure: an APPROVED decision completes the port-out (the number is live at
 * the gaining provider) after PORT_OUT_COMPLETES_AFTER_MS simulated — unless the number ends in 19, whose
 * gaining provider withdraws it after PORT_OUT_WITHDRAWN_AFTER_MS (PortOutCancelled: the number stays); a
 * REJECTED one ends it with nothing more. A test plays the PortOutRequested itself (the NP side asks; nothing
 * here starts a port-out).
 */
export const PORT_OUT_COMPLETES_AFTER_MS = 60_000;
export const PORT_OUT_WITHDRAWN_AFTER_MS = 30_000;
export const WITHDRAWN_PORT_OUT_ENDING = '19';
export const WITHDRAWN_PORT_OUT_REASON = 'The customer withdrew the port request at the gaining provider';

export interface SimPortOutDecision {
  recordName: string;
  portOutId: string;
  gpsi: string;
  decision: string;
}

export const isPortOutDecision = (recordName: string): boolean => recordName === PORTOUT_DECISION_RECORD;

/** Deterministic per port-out and outcome: a response played again repeats its id. */
const responseIdOf = (portOutId: string, outcome: string) => `sim-${createHash('sha256').update(`port-out|${portOutId}|${outcome}`).digest('hex').slice(0, 24)}`;

export function planPortOutDecision(decision: SimPortOutDecision): ScheduledResponse[] {
  if (decision.decision !== 'APPROVED') return [];
  const { gpsi, portOutId } = decision;
  if (gpsi.endsWith(WITHDRAWN_PORT_OUT_ENDING)) {
    return [
      {
        afterMs: PORT_OUT_WITHDRAWN_AFTER_MS,
        recordName: PORTOUT_NP_RESPONSE_RECORDS.PortOutCancelled,
        value: { responseId: responseIdOf(portOutId, 'cancelled'), gpsi, portOutId, reason: WITHDRAWN_PORT_OUT_REASON },
      },
    ];
  }
  return [
    {
      afterMs: PORT_OUT_COMPLETES_AFTER_MS,
      recordName: PORTOUT_NP_RESPONSE_RECORDS.PortOutCompleted,
      value: { responseId: responseIdOf(portOutId, 'completed'), gpsi, portOutId, completedAt: null },
    },
  ];
}
