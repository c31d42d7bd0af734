import { RetriableError, isServiceError } from '../../contract/errors';
import { causeIds } from '../../domain/portin/ids';
import type { Cause } from '../../domain/portin/messages';
import { parseNpResponse } from '../../domain/portin/np-response';
import { planNpResponse } from '../../domain/portin/transitions';
import type { CommandContext } from '../../contract/handlers';
import type { OutgoingMessage } from '../../contract/messages';
import { applyChange, publishable } from './apply-change';
import type { PortInDeps } from './deps';

/**
 * Consumes np.portin.responses.v1 (no reply): each response drives the lifecycle of the request it
 * answers, idempotently. A repeated response replays its recorded outcome (same events, same ids); one
 * for another request or an older portOrderVersion, or one the table ignores, changes nothing. A
 * malformed response is logged and skipped: the NP side is outside the service and never stops it. A
 * follow-up that fails (activation refused, Redis away) fails the response retriably: it is not done, and
 * not committed, until the follow-ups are (the same holds, with the same events, when it is retried).
 */
export interface NpResponseMessage {
  /** Avro record full name, e.g. np.portin.v1.PortConfirmed. */
  recordName: string;
  value: Record<string, unknown>;
}

export type NpResponseContext = Pick<CommandContext, 'now' | 'log'>;

export type NpResponseProcessor = (response: NpResponseMessage, context: NpResponseContext) => Promise<OutgoingMessage[]>;

export function createNpResponseProcessor(deps: PortInDeps): NpResponseProcessor {
  return async ({ recordName, value }, context) => {
    const parsed = parseNpResponse(recordName, value);
    if (!parsed.ok) {
      context.log.warn({ recordName, problems: parsed.problems }, 'NP response skipped: malformed');
      return [];
    }
    const { response } = parsed;
    const cause: Cause = { id: causeIds.npResponse(response.responseId), at: context.now };
    const result = await applyChange(deps, {
      gpsi: response.gpsi,
      cause,
      mode: 'update',
      plan: (current) => {
        if (!current) return { kind: 'ignore', why: 'the number has no port-in request' };
        // events an NP response causes carry the correlation id of the command the NP side answers
        cause.correlationId = current.correlationId;
        return planNpResponse(current, response, { cause, settings: deps.settings });
      },
      // the port-order index (its own slot) first: a crash after it leaves a harmless, repeatable index entry
      beforeWrite: async ({ next }, current) => {
        if (!next.portOrderId || next.portOrderId === current?.portOrderId) return true;
        const indexed = await deps.store.indexPortOrder(next.portOrderId, { gpsi: next.gpsi, requestId: next.requestId });
        if (!indexed) context.log.warn({ portOrderId: next.portOrderId, gpsi: next.gpsi }, 'NP portOrderId already names another request: ignored');
        return indexed;
      },
    });
    if (result.kind !== 'applied') {
      context.log.info({ recordName, gpsi: response.gpsi, responseId: response.responseId, why: result.kind === 'ignored' ? result.why : 'conflict' }, 'NP response changes nothing');
      return [];
    }
    try {
      return await publishable(deps, result.outcome, cause);
    } catch (error) {
      // The transition is recorded but a follow-up refused (e.g. the plan left the catalog): the response is
      // not done. Retried, it replays the recorded outcome and runs the follow-ups again (each idempotent by
      // the cause), so the port never stays COMPLETED beside a PENDING subscription with nothing retrying.
      if (!isServiceError(error)) throw error;
      throw new RetriableError(`the follow-ups of ${cause.id} for ${response.gpsi} are not done: ${error.message}`, { cause: error });
    }
  };
}
