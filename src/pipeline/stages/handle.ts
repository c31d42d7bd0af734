import { inSpan } from '../../shared/tracing';
import type { Logger } from 'pino';
import { sha256Hex } from '../../domain/digest';
import { RetriableError, asRetriable, isServiceError } from '../../contract/errors';
import type { CommandContext, HandlerRegistration } from '../../contract/handlers';
import type { OutgoingMessage } from '../../contract/messages';
import type { Domain } from '../../contract/topics';
import { SchemaMismatchError, type DecodedRecord } from '../../contract/codec';
import type { Outbound } from '../../contract/transport';
import type { RoutedEnvelope } from '../envelope';
import { routeOutgoing } from '../event-routes';
import { cloudEventHeaders, replyMessage, undeliverableDeadLetter } from '../outbound';
import { answerError, schemaTopic } from './answer';
import { commandIdOf } from './admit';
import type { Admitted, CommandSource, Handled, ProcessorDeps } from './context';

// The handler: run with its CommandContext, its reply and messages encoded. A change's replay happens in
// here too — its store answers from the outcome it recorded with the change (the same reply and events,
// REPLAYED) or CONFLICT for another payload under the same command id — so the pipeline keeps no memory of
// its own. A ServiceError becomes its error reply, anything unexpected INTERNAL, an infrastructure failure
// a retry.

/** A payload's fingerprint, kept with a change's recorded outcome: the first 128 bits of its SHA-256, base64url (short: kept 24 h per change). */
export function fingerprintOf(value: unknown): string {
  return Buffer.from(sha256Hex(JSON.stringify(value)).slice(0, 32), 'hex').toString('base64url');
}

export async function handle(
  deps: ProcessorDeps,
  domain: Domain,
  registration: HandlerRegistration,
  decoded: DecodedRecord,
  envelope: RoutedEnvelope,
  operation: string,
  admitted: Admitted,
  source: CommandSource,
): Promise<Handled> {
  const { scope, refuseNew } = admitted;
  // Keyed by the acting node, not the raw header: two partners reusing a correlation id never share a reply.
  const commandId = commandIdOf(scope.effectiveCustomerId, operation, envelope.correlationId);
  // A query changes nothing, so it is simply run again: neither compared, counted nor recorded. A change's
  // store records its outcome atomically with it, with this fingerprint, and a redelivery runs the handler
  // again, which replays that record (or answers CONFLICT for another payload under the same id).
  const fingerprint = registration.readOnly ? '' : fingerprintOf(decoded.value);
  if (refuseNew && registration.readOnly) return answerError(deps, domain, envelope, operation, refuseNew.code, refuseNew.message);
  // The handlers' logger names the command; built only when a handler logs (a pino child costs CPU per command).
  let commandLog: Logger | undefined;
  const context: CommandContext = {
    correlationId: envelope.correlationId,
    commandId,
    operation,
    wholesaleCustomerId: scope.effectiveCustomerId,
    canSee: scope.canSee,
    visibleCustomerIds: scope.visibleCustomerIds,
    now: deps.clock(),
    get log() {
      return (commandLog ??= deps.log.child({ correlationId: envelope.correlationId, operation }));
    },
    fingerprint,
    ...(refuseNew ? { refuseNew } : {}),
  };
  try {
    const result = await inSpan(`handle ${operation}`, { attributes: { 'wholesale.operation': operation, 'messaging.message.conversation_id': envelope.correlationId } }, () =>
      registration.handle(decoded.value, context),
    );
    const reply = await encodeReply(deps, domain, envelope, registration.replyRecord, result.reply);
    const encoded = await Promise.all((result.messages ?? []).map((m) => encodeOrDeadLetter(deps, m, context, source)));
    const replayed = result.replayed === true;
    return { outbound: [reply, ...encoded.flat()], outcome: replayed ? 'REPLAYED' : 'Success', operation, correlationId: envelope.correlationId, recorded: !replayed };
  } catch (error) {
    if (error instanceof RetriableError || deps.isRetriable(error)) throw asRetriable(error);
    if (isServiceError(error)) {
      const outcome: Handled = await answerError(deps, domain, envelope, operation, error.code, error.message, error.problems);
      // an effect made though the answer is an error (a reversed transfer): its events go out with the reply
      for (const encoded of await Promise.all(error.messages.map((m) => encodeOrDeadLetter(deps, m, context, source)))) outcome.outbound.push(...encoded);
      // A change's store may have recorded a refusal too: counted, erring on the safe side; the refusal it
      // was given (refuseNew) records nothing.
      outcome.recorded = !registration.readOnly && error.code !== 'RATE_LIMITED' && error.code !== refuseNew?.code;
      return outcome;
    }
    context.log.error({ err: error }, 'handler failed');
    return answerError(deps, domain, envelope, operation, 'INTERNAL', 'The service failed to handle the command');
  }
}

async function encodeReply(deps: ProcessorDeps, domain: Domain, envelope: RoutedEnvelope, recordName: string, value: object): Promise<Outbound> {
  const status = 'status' in value && typeof value.status === 'string' ? value.status : 'Success';
  return replyMessage(envelope, status, await deps.codec.encode(schemaTopic(deps, domain), recordName, value));
}

function encodeMessage(deps: ProcessorDeps, message: OutgoingMessage, context: CommandContext): Promise<Outbound[]> {
  const headers = message.cloudEvent
    ? cloudEventHeaders({
        ...message.cloudEvent,
        source: deps.serviceName,
        type: message.recordName,
        correlationId: context.correlationId,
        causationId: context.commandId,
      })
    : {};
  return routeOutgoing(deps.routing, (topic, recordName, value) => deps.codec.encode(topic, recordName, value), message, headers);
}

/**
 * The effect is made by now: an event that cannot be encoded must not take the reply and the other
 * events down with it (nor be lost). It goes to the dead-letter topic as JSON, with its intended topic.
 */
async function encodeOrDeadLetter(deps: ProcessorDeps, message: OutgoingMessage, context: CommandContext, source: CommandSource): Promise<Outbound[]> {
  try {
    return await encodeMessage(deps, message, context);
  } catch (error) {
    if (!(error instanceof SchemaMismatchError)) throw error;
    context.log.error({ err: error }, 'an output does not match its schema; dead-lettering it');
    const json = JSON.stringify(message.value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const unencoded = {
      topic: deps.topics[message.topic],
      key: message.key,
      value: Buffer.from(json),
      headers: { 'content-type': 'application/json', ce_type: message.recordName, ...(message.cloudEvent ? { ce_id: message.cloudEvent.id } : {}) },
    };
    return [undeliverableDeadLetter(deps.deadLetters, unencoded, source.record, source.position, `${message.recordName} does not match its schema`, error.message)];
  }
}
