import { createHash } from 'node:crypto';
import { ACTIVATE_PORT_REQUEST_RECORD } from '../../src/domain/foc/records';
import { NP_RESPONSE_RECORDS } from '../../src/domain/portin/records';
import { ruleFor, type ScheduledResponse, type SimRequest } from './rules';

/**
 * The simulator's answer to an activation on demand (ActivatePortRequest), pure: the cut-over now,
 * ActivationComplete after ACTIVATION_ON_DEMAND_AFTER_MS simulated, activated at the time it is sent —
 * except for a number whose rule is silence (the NP application never took the request).
 */
export const ACTIVATION_ON_DEMAND_AFTER_MS = 1_000;

export const isActivationRequest = (recordName: string): boolean => recordName === ACTIVATE_PORT_REQUEST_RECORD;

export function planActivationOnDemand(request: SimRequest, receivedAt: Date): ScheduledResponse[] {
  if (ruleFor(request).then.respond === 'silence') return [];
  const responseId = `sim-${createHash('sha256').update(`${request.requestId}|${request.portOrderVersion}|ActivationOnDemand`).digest('hex').slice(0, 24)}`;
  return [
    {
      afterMs: ACTIVATION_ON_DEMAND_AFTER_MS,
      recordName: NP_RESPONSE_RECORDS.ActivationComplete,
      value: {
        responseId,
        requestId: request.requestId,
        gpsi: request.gpsi,
        portOrderVersion: request.portOrderVersion,
        portOrderId: request.portOrderId ?? null,
        activatedAt: new Date(receivedAt.getTime() + ACTIVATION_ON_DEMAND_AFTER_MS).toISOString(),
      },
    },
  ];
}
