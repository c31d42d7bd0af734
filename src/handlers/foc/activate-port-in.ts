import type { Handler } from '../../contract/handlers';
import { activationAllowed, activationRefused, checkActivatePortIn, planActivation } from '../../domain/foc/activate';
import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { orBadRequest } from '../../domain/validation/problems';
import { applyChange, notFoundError, publishable } from '../portin/apply-change';
import type { PortInDeps } from '../portin/deps';
import { describeKeys, findOwnedRequest } from '../portin/find-request';

/**
 * ActivatePortIn (activation on demand): the caller's CONFIRMED request, inside its activation window, is
 * cut over now: the NP side gets ActivatePortRequest, and its ActivationComplete completes the port as a
 * cut-over at the FOC date does. Another status is a CONFLICT naming it; outside the window a CONFLICT
 * naming the window.
 */
export const createActivatePortIn =
  (deps: PortInDeps): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkActivatePortIn(raw));
    const cause: Cause = { id: causeIds.command(context.commandId), at: context.now, correlationId: context.correlationId };
    const target = await findOwnedRequest(deps.store, context, command);
    if (!target) throw notFoundError(`matches ${describeKeys(command)}`);
    let window: { start: string; end: string } | undefined;
    const result = await applyChange(deps, {
      gpsi: target.gpsi,
      cause,
      mode: 'update',
      command: context,
      plan: (current) => {
        if (current?.requestId !== target.requestId) throw activationRefused(target, { kind: 'status' }, context.now);
        const allowed = activationAllowed(current, context.now);
        if (!allowed.ok) throw activationRefused(current, allowed.refusal, context.now);
        window = allowed.window;
        return planActivation(current, cause);
      },
      reply: ({ next }) => ({
        status: 'Success',
        partnerTransactionId: next.partnerTransactionId,
        gpsi: next.gpsi,
        portStatus: next.portStatus,
        confirmedFocDate: next.confirmedDueDate ?? '',
        activationWindowStart: window?.start ?? '',
        activationWindowEnd: window?.end ?? '',
      }),
    });
    if (result.kind !== 'applied') throw notFoundError(`matches ${describeKeys(command)}`);
    return { reply: result.outcome.reply as Record<string, unknown>, messages: await publishable(deps, result.outcome, cause), ...(result.replayed ? { replayed: true } : {}) };
  };
