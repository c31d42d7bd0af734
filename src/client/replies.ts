import { ERROR_REPLY } from '../contract/topics';
import type { ErrorReply } from '../contract/types.generated';
import { ServiceReplyError, WholesaleClientError } from './errors';
import { OPERATIONS, type OperationName, type OperationReply } from './operations';

/** A reply as read from the reply topic and decoded through the registry. */
export interface DecodedReply {
  recordName: string;
  value: Record<string, unknown>;
}

/** The reply's value when it is the operation's success record; otherwise the typed error it stands for. */
export function interpretReply<O extends OperationName>(operation: O, correlationId: string, reply: DecodedReply): OperationReply<O> {
  if (reply.recordName === ERROR_REPLY) {
    const { error } = reply.value as unknown as ErrorReply;
    const problems = error.problems.map(({ path, reason }) => ({ path, reason }));
    throw new ServiceReplyError(operation, correlationId, error.code, error.message, problems);
  }
  if (reply.recordName !== OPERATIONS[operation].reply) {
    throw new WholesaleClientError(`${operation}: expected a ${OPERATIONS[operation].reply} reply, got ${reply.recordName} (X-Correlation-Id ${correlationId})`);
  }
  return reply.value as unknown as OperationReply<O>;
}
