import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { planCancel } from '../../domain/portin/transitions';
import { checkCancelPortIn } from '../../domain/portin/validate-commands';
import { orBadRequest } from '../../domain/validation/problems';
import type { Handler } from '../../contract/handlers';
import { applyChange, conflictError, notFoundError, publishable } from './apply-change';
import type { PortInDeps } from './deps';
import { describeKeys, findOwnedRequest } from './find-request';

/**
 * CancelPortIn: by partnerTransactionId and/or gpsi (both: they must name the same request the caller
 * can see). In RESOLUTION_REQUIRED or REJECTED the request is CANCELLED at once (the NP side told, the
 * pending subscription cancelled); in OPEN, DELAYED or CONFIRMED the NP side is asked and the request waits
 * in CANCEL_PENDING for its answer (the lifecycle table says which).
 */
export const createCancelPortIn =
  (deps: PortInDeps): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkCancelPortIn(raw));
    const cause: Cause = { id: causeIds.command(context.commandId), at: context.now, correlationId: context.correlationId };
    const target = await findOwnedRequest(deps.store, context, command);
    if (!target) throw notFoundError(`matches ${describeKeys(command)}`);
    const result = await applyChange(deps, {
      gpsi: target.gpsi,
      cause,
      mode: 'update',
      command: context,
      // the number may have a newer request: the one found is then finished, and cancelling it a conflict
      plan: (current) => (current?.requestId === target.requestId ? planCancel(current, { cause, settings: deps.settings }) : { kind: 'conflict', status: target.portStatus }),
      reply: ({ next }) => ({
        status: 'Success',
        partnerTransactionId: next.partnerTransactionId,
        gpsi: next.gpsi,
        portStatus: next.portStatus,
      }),
    });
    if (result.kind === 'conflict') throw conflictError('CancelPortIn', result.current?.requestId === target.requestId ? result.current : target);
    if (result.kind === 'ignored') throw notFoundError(`matches ${describeKeys(command)}`);
    return { reply: result.outcome.reply as Record<string, unknown>, messages: await publishable(deps, result.outcome, cause), ...(result.replayed ? { replayed: true } : {}) };
  };
