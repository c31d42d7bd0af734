import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { planPortOut, requestInput } from '../../domain/port-out/plan';
import { parsePortOutResponse } from '../../domain/port-out/validate';
import type { NpResponseProcessor } from '../portin/np-response-processor';
import { applyPortOutChange, portOutMessages } from './apply-change';
import type { PortOutDeps } from './ports';

/**
 * The port-out records of np.portin.responses.v1 (no reply): PortOutRequested asks the owning partner
 * to validate (PortOutEvent VALIDATION_PENDING, its deadline scheduled); PortOutCompleted ends the
 * subscription (the final billing event); PortOutCancelled ends an open port-out (PortOutEvent CANCELLED).
 * A repeated record replays its recorded outcome; a malformed one
 * is logged and skipped (the NP side never stops the service); a follow-up that fails fails the record
 * retriably, as for the port-in records.
 */
export function createPortOutNpProcessor(deps: PortOutDeps): NpResponseProcessor {
  return async ({ recordName, value }, context) => {
    const parsed = parsePortOutResponse(recordName, value);
    if (!parsed.ok) {
      context.log.warn({ recordName, problems: parsed.problems }, 'NP port-out record skipped: malformed');
      return [];
    }
    const { response } = parsed;
    const cause: Cause = { id: causeIds.npResponse(response.responseId), at: context.now };
    const result = await applyPortOutChange(deps, {
      gpsi: response.gpsi,
      cause,
      plan: ({ current, owner, portingIn }) =>
        planPortOut(
          current,
          response.trigger === 'PortOutRequested'
            ? requestInput({ gpsi: response.gpsi, portOutId: response.portOutId, gainingProvider: response.gainingProvider, desiredDueDate: response.desiredDueDate }, { owner, portingIn })
            : response.trigger === 'PortOutCancelled'
              ? { trigger: 'PortOutCancelled', portOutId: response.portOutId, reason: response.reason }
              : { trigger: 'PortOutCompleted', portOutId: response.portOutId, completedAt: response.completedAt },
          cause,
          deps.settings,
        ),
    });
    if (result.kind !== 'applied') {
      context.log.info({ recordName, gpsi: response.gpsi, portOutId: response.portOutId, why: result.kind === 'ignore' ? result.why : result.kind }, 'NP port-out record changes nothing');
      return [];
    }
    return portOutMessages(deps, result.outcome, cause);
  };
}
