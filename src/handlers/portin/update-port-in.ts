import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { changesOnlyDueDate } from '../../domain/portin/commands';
import { ServiceError } from '../../contract/errors';
import { dueDateRules } from '../../domain/portin/request';
import { dueDateProblems } from '../../domain/portin/situation';
import { planUpdate } from '../../domain/portin/transitions';
import { checkUpdatePortIn } from '../../domain/portin/validate-commands';
import { orBadRequest } from '../../domain/validation/problems';
import type { Handler } from '../../contract/handlers';
import { applyChange, conflictError, notFoundError, publishable } from './apply-change';
import type { PortInDeps } from './deps';

/**
 * UpdatePortIn: a supplement to a request in RESOLUTION_REQUIRED or REJECTED (one changing only the due
 * date also while the NP side works on it: OPEN, DELAYED, CONFIRMED). partnerTransactionId and gpsi must
 * name the same request the caller can see; the request goes back to OPEN with portOrderVersion one
 * higher, and the merged port information and the due date go to the NP side.
 */
export const createUpdatePortIn =
  (deps: PortInDeps): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkUpdatePortIn(raw));
    const cause: Cause = { id: causeIds.command(context.commandId), at: context.now, correlationId: context.correlationId };
    const missing = () => notFoundError(`with partnerTransactionId ${command.partnerTransactionId} for gpsi ${command.gpsi}`);
    const result = await applyChange(deps, {
      gpsi: command.gpsi,
      cause,
      mode: 'update',
      command: context,
      // Planned only when no outcome is recorded: a redelivery replays it, whatever today's calendar says.
      plan: (current) => {
        const problems = dueDateProblems(command, dueDateRules(deps.settings, context.now));
        if (problems.length > 0) throw ServiceError.badRequest(problems);
        if (!current || !context.canSee(current.wholesaleCustomerId) || current.partnerTransactionId !== command.partnerTransactionId) throw missing();
        return planUpdate(current, command, { cause, settings: deps.settings });
      },
      reply: ({ next }) => ({
        status: 'Success',
        partnerTransactionId: next.partnerTransactionId,
        gpsi: next.gpsi,
        portStatus: next.portStatus,
        portOrderVersion: String(next.portOrderVersion),
        desiredDueDate: next.desiredDueDate,
      }),
    });
    if (result.kind === 'conflict') throw conflictError(changesOnlyDueDate(command) ? 'UpdateDueDate' : 'UpdatePortIn', result.current);
    if (result.kind === 'ignored') throw missing();
    return { reply: result.outcome.reply as Record<string, unknown>, messages: await publishable(deps, result.outcome, cause), ...(result.replayed ? { replayed: true } : {}) };
  };
