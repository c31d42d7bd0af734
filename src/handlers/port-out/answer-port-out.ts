import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { answerableIn } from '../../domain/port-out/lifecycle';
import { planPortOut } from '../../domain/port-out/plan';
import { checkAnswerPortOut } from '../../domain/port-out/validate';
import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { orBadRequest } from '../../domain/validation/problems';
import { applyPortOutChange, portOutMessages } from './apply-change';
import type { PortOutDeps } from './ports';

/**
 * AnswerPortOut: the owning partner approves or rejects the number's port-out while it waits in
 * VALIDATION_PENDING; the NP side is told (PortOutDecision) and the PortOutEvent published. Another
 * customer's number, or another port-out id, is NOT_FOUND; an answer after the decision a CONFLICT.
 */
export const createAnswerPortOut =
  (deps: PortOutDeps): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkAnswerPortOut(raw));
    const trigger = command.decision === 'APPROVE' ? 'Approve' : 'Reject';
    const cause: Cause = { id: causeIds.command(context.commandId), at: context.now, correlationId: context.correlationId };
    const notFound = () => new ServiceError('NOT_FOUND', `no port-out ${command.portOutId} of ${command.gpsi}`);
    const result = await applyPortOutChange(deps, {
      gpsi: command.gpsi,
      cause,
      command: context,
      plan: ({ current }) => {
        if (!current || !context.canSee(current.wholesaleCustomerId)) return { kind: 'notFound' };
        const input =
          command.decision === 'APPROVE'
            ? { trigger: 'Approve' as const, portOutId: command.portOutId }
            : { trigger: 'Reject' as const, portOutId: command.portOutId, reasonCode: command.reasonCode };
        return planPortOut(current, input, cause, deps.settings);
      },
      reply: ({ next }) => ({ status: 'Success', gpsi: next.gpsi, portOutId: next.portOutId, portOutStatus: next.status }),
    });
    if (result.kind === 'notFound' || result.kind === 'ignore') throw notFound();
    if (result.kind === 'conflict') {
      throw new ServiceError('CONFLICT', `port-out ${command.portOutId} of ${command.gpsi} is ${result.status}: ${command.decision} is accepted in ${answerableIn(trigger).join(' or ')} only`, [
        { path: 'portOutStatus', reason: `is ${result.status}` },
      ]);
    }
    return { reply: result.outcome.reply as Record<string, unknown>, messages: await portOutMessages(deps, result.outcome, cause), ...(result.replayed ? { replayed: true } : {}) };
  };
