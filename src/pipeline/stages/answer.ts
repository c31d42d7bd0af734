import type { ErrorCode, FieldProblem } from '../../contract/errors';
import { ERROR_REPLY, type Domain } from '../../contract/topics';
import type { RecordPosition } from '../../contract/transport';
import type { RoutedEnvelope } from '../envelope';
import { deadLetterMessage, errorReplyValue, replyMessage, type DeadLetterCause } from '../outbound';
import { shortName, type CommandRecord, type ProcessorDeps, type ProcessOutcome } from './context';

// The answers any stage may give: an error reply, a dead letter (with a reply when the requester can match one).

/** Replies are encoded with the schema registered under the domain's reply topic, whatever topic they go to. */
export function schemaTopic(deps: ProcessorDeps, domain: Domain): string {
  return deps.envelopeRules[domain].defaultReplyTopic;
}

export async function answerError(
  deps: ProcessorDeps,
  domain: Domain,
  envelope: RoutedEnvelope,
  operation: string | null,
  code: ErrorCode,
  message: string,
  problems: FieldProblem[] = [],
): Promise<ProcessOutcome> {
  const value = errorReplyValue(code, message, problems, operation);
  const encoded = await deps.codec.encode(schemaTopic(deps, domain), ERROR_REPLY, value);
  return { outbound: [replyMessage(envelope, code, encoded)], outcome: code, operation: operation ?? undefined, correlationId: envelope.correlationId };
}

export async function deadLetter(
  deps: ProcessorDeps,
  domain: Domain,
  record: CommandRecord,
  position: RecordPosition,
  envelope: RoutedEnvelope,
  cause: DeadLetterCause,
  recordName?: string,
): Promise<ProcessOutcome> {
  const outbound = [deadLetterMessage(deps.deadLetters, record, position, cause)];
  // Answer only a requester that can match the reply: one that sent a correlation id.
  if (envelope.correlationSource !== 'generated') {
    const code: ErrorCode = 'BAD_REQUEST';
    const value = errorReplyValue(code, `${cause.reason}: ${cause.detail}`, [], recordName ? shortName(recordName) : null);
    outbound.push(replyMessage(envelope, code, await deps.codec.encode(schemaTopic(deps, domain), ERROR_REPLY, value)));
  }
  return { outbound, outcome: 'DEAD_LETTER', operation: recordName ? shortName(recordName) : undefined, correlationId: envelope.correlationId };
}
