import { sha256Hex } from '../domain/digest';
import { inSpan } from '../shared/tracing';
import type { Logger } from 'pino';
import { RetriableError, asRetriable, isServiceError, type ErrorCode, type FieldProblem } from '../contract/errors';
import type { CommandContext, HandlerRegistration } from '../contract/handlers';
import type { OutgoingMessage } from '../contract/messages';
import { ERROR_REPLY, type Domain, type TopicRole } from '../contract/topics';
import { DecodeError, SchemaMismatchError, type Codec, type DecodedRecord } from '../contract/codec';
import type { Authenticator, Authorizer, Caller, CustomerScope, PartnerAdmission, QuotaExhausted } from '../security/access';
import type { RejectedBudget } from '../security/rejected-budget';
import { TopicRefusedError, type RecordHeaders, type Outbound, type PartitionCount, type RecordPosition } from '../contract/transport';
import { readEnvelope, type Envelope, type EnvelopeRules, type RoutedEnvelope } from './envelope';
import { defaultReplyTopic, missingTopicProblem, REPLY_PARTITION_PATH, REPLY_TOPIC_PATH, replyPartitionRefusal, replyTopicRefusal } from './reply-route';
import { routeOutgoing, type EventRouting } from './event-routes';
import { cloudEventHeaders, deadLetterMessage, errorReplyValue, replyMessage, undeliverableDeadLetter, type DeadLetterCause, type DeadLetterSink } from './outbound';

/**
 * Turns one command record into the messages to send (reply, events, NP requests, dead letter), with no
 * Kafka I/O of its own: the worker sends what this returns and commits only after Kafka acknowledged it.
 * Throws only RetriableError (infrastructure away): then nothing is sent and the record is not committed.
 */
export interface CommandRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeaders;
  timestamp: string;
}

export interface ProcessorDeps {
  codec: Codec;
  handlers: ReadonlyMap<string, HandlerRegistration>;
  topics: Readonly<Record<TopicRole, string>>;
  /** The DLQ topic and the key that seals dead letters. */
  deadLetters: DeadLetterSink;
  envelopeRules: Readonly<Record<Domain, EnvelopeRules>>;
  maxMessageBytes: number;
  /** Commands whose record timestamp is older than this are refused unapplied (STALE_COMMAND): their outcome may be forgotten. */
  maxCommandAgeMs: number;
  serviceName: string;
  clock: () => Date;
  log: Logger;
  /** Classifies infrastructure failures thrown by handlers' adapters as retriable. */
  isRetriable: (error: unknown) => boolean;
  /** Who sent the command (Authorization header): src/security. */
  authenticator: Authenticator;
  /** What it may act for (wholesaleCustomerId header within the caller's subtree). */
  authorizer: Authorizer;
  /** Per-partner command rate and idempotency quota. */
  admission: PartnerAdmission;
  /** Refusals (UNAUTHORIZED, FORBIDDEN) answered or recorded per claimed partner; past it only counted. */
  rejectedBudget: RejectedBudget;
  /** Which topics an event goes to: the operator's and its owning partner's. */
  routing: EventRouting;
  /** Partition counts (cached): whether a requested reply topic exists, and its partitions. */
  partitionCount: PartitionCount;
}

/** A refused command: why, and what was done with it (answered, recorded for the operator, or only counted). */
export interface Rejection {
  reason: 'UNAUTHORIZED' | 'FORBIDDEN';
  /** dropped: refused past the budget; shed: not even verified, the budget being spent (a flood). */
  action: 'answered' | 'recorded' | 'dropped' | 'shed';
}

/**
 * A command let in: for whom, whether the partner's rate and quota counted it, and whether it may only
 * replay a recorded outcome (a change over the rate or past the quota: a recorded outcome always wins).
 */
interface Admitted {
  scope: CustomerScope;
  /** Counted against the partner's rate: given back when it turns out to replay a recorded outcome. */
  charged: boolean;
  /** A change counted against the quota: uncounted again when it records nothing new. */
  counted: boolean;
  /** Why a new outcome may not be recorded: the rate or the quota; it may still replay a recorded one. */
  refuseNew?: { code: 'RATE_LIMITED'; message: string };
}

/** An outcome, and whether this delivery recorded a new one (else a counted change is uncounted). */
type Handled = ProcessOutcome & { recorded?: boolean };

/** The record a command came in, for the dead letters of its outputs. */
interface CommandSource {
  record: CommandRecord;
  position: RecordPosition;
}

export interface ProcessOutcome {
  outbound: Outbound[];
  /** "Success", an error code, "DEAD_LETTER" or "REPLAYED". */
  outcome: string;
  operation?: string;
  correlationId: string;
  /** The acting node of an admitted command (for the audit line "who did what"). */
  customer?: string;
  rejection?: Rejection;
}

/** Key, value and headers: everything a hostile sender could inflate. */
function messageBytes(record: CommandRecord): number {
  let size = (record.value?.length ?? 0) + (record.key?.length ?? 0);
  for (const [name, raw] of Object.entries(record.headers ?? {})) {
    for (const value of Array.isArray(raw) ? raw : [raw]) size += name.length + (value?.length ?? 0);
  }
  return size;
}

const shortName = (recordName: string): string => recordName.slice(recordName.lastIndexOf('.') + 1);

/** Identity of a command's effect: same correlation id, operation and customer = the same command. */
export const commandIdOf = (customer: string | undefined, operation: string, correlationId: string): string =>
  sha256Hex(JSON.stringify([customer ?? '', operation, correlationId])).slice(0, 32);

/** A payload's fingerprint, kept with a change's recorded outcome: the first 128 bits of its SHA-256, base64url (short: kept 24 h per change). */
export function fingerprintOf(value: unknown): string {
  return Buffer.from(sha256Hex(JSON.stringify(value)).slice(0, 32), 'hex').toString('base64url');
}

/** When the partner sent the command: its record's timestamp, or now for a record without a usable one. */
const sentAtMs = (record: CommandRecord, clock: () => Date): number => {
  const timestamp = Number(record.timestamp);
  return Number.isFinite(timestamp) && timestamp > 0 ? timestamp : clock().getTime();
};

const quotaRefusal = ({ held, quota, windowSeconds }: QuotaExhausted) =>
  `The partner's idempotency quota is exhausted: ${held} changes recorded within ${windowSeconds} s, the quota is ${quota}; nothing was applied, retry when older outcomes expire`;

export class CommandProcessor {
  constructor(private readonly deps: ProcessorDeps) {}

  async process(record: CommandRecord, position: RecordPosition, domain: Domain): Promise<ProcessOutcome> {
    const { deps } = this;
    const envelope = readEnvelope(record.headers, position, deps.envelopeRules[domain]);
    // Who is asking comes before anything that costs: a command without valid credentials, for someone
    // else's customer or over the partner's rate is answered without being decoded or dead-lettered.
    const admitted = await this.admit(record, position, domain, envelope);
    if ('outbound' in admitted) return admitted;
    const { scope } = admitted;
    let handled: Handled;
    try {
      // Only now, with the caller known, is a requested reply topic judged: inside its own namespace or not at all.
      const routed = await this.route(domain, envelope, scope.replyPartnerId);
      handled = await this.processAdmitted(record, position, domain, routed, admitted);
    } catch (error) {
      if (admitted.counted) deps.admission.uncount(scope.partnerId); // retried: counted again when admitted again
      throw error;
    }
    const { recorded, ...outcome } = handled;
    if (admitted.counted && !recorded) deps.admission.uncount(scope.partnerId);
    // An answer from a recorded outcome costs no rate: the partner is not charged for the service's redelivery.
    if (admitted.charged && outcome.outcome === 'REPLAYED') deps.admission.refund(scope.partnerId, sentAtMs(record, deps.clock));
    return { ...outcome, customer: scope.effectiveCustomerId };
  }

  private async processAdmitted(record: CommandRecord, position: RecordPosition, domain: Domain, envelope: RoutedEnvelope, admitted: Admitted): Promise<Handled> {
    const { deps } = this;
    const size = messageBytes(record);
    if (size > deps.maxMessageBytes) {
      return this.deadLetter(domain, record, position, envelope, { reason: 'TOO_LARGE', detail: `message is ${size} bytes, the limit is ${deps.maxMessageBytes}` });
    }
    let decoded: DecodedRecord;
    try {
      decoded = await deps.codec.decode(record.value);
    } catch (error) {
      if (error instanceof DecodeError) return this.deadLetter(domain, record, position, envelope, { reason: error.reason, detail: error.message, diagnostic: error.diagnostic });
      throw error;
    }
    const registration = deps.handlers.get(decoded.recordName);
    if (!registration || registration.domain !== domain) {
      return this.deadLetter(domain, record, position, envelope, { reason: 'NO_HANDLER', detail: `no ${domain} handler for record ${decoded.recordName}` }, decoded.recordName);
    }
    const operation = shortName(decoded.recordName);
    const problems = [...envelope.problems, ...(registration.validate?.(decoded.value, deps.clock()) ?? [])];
    if (problems.length > 0) {
      return this.answerError(domain, envelope, operation, 'BAD_REQUEST', `The command is invalid: ${problems.length} problem(s)`, problems);
    }
    return this.handle(domain, registration, decoded, envelope, operation, admitted, { record, position });
  }

  /**
   * A command older than the outcome records may have been applied already with no trace left to say so;
   * queries too are refused (their requester stopped waiting long ago, and a replay should cost nothing).
   * A record without a usable timestamp is not judged.
   */
  private async refuseIfStale(domain: Domain, envelope: RoutedEnvelope, record: CommandRecord): Promise<ProcessOutcome | undefined> {
    const ageMs = this.deps.clock().getTime() - Number(record.timestamp);
    if (!(ageMs > this.deps.maxCommandAgeMs)) return undefined;
    const seconds = (ms: number) => Math.floor(ms / 1000);
    return this.answerError(
      domain,
      envelope,
      null,
      'STALE_COMMAND',
      `The command record is ${seconds(ageMs)} s old, over the ${seconds(this.deps.maxCommandAgeMs)} s in which a repeat is recognised; it was not applied. Send it again with a new X-Correlation-Id if it is still wanted`,
    );
  }

  private async admit(record: CommandRecord, position: RecordPosition, domain: Domain, envelope: Envelope): Promise<Admitted | ProcessOutcome> {
    const { deps } = this;
    // Under a flood of forged tokens claiming a partner, its refusal budget runs dry: from then on only tokens
    // verified before are checked (a map lookup), others are shed unverified. A signature check is what a
    // forged record costs; a partner's client reuses its token, so its traffic keeps flowing.
    if (!deps.authenticator.knows(envelope.authorization) && deps.rejectedBudget.spent(envelope.authorization)) {
      return { outbound: [], outcome: 'UNAUTHORIZED', correlationId: envelope.correlationId, rejection: { reason: 'UNAUTHORIZED', action: 'shed' } };
    }
    let caller: Caller;
    try {
      caller = await deps.authenticator.authenticate(envelope.authorization);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      return this.refuseUnauthenticated(record, position, envelope, error.message);
    }
    let scope: CustomerScope;
    try {
      scope = deps.authorizer.authorize(caller, envelope.wholesaleCustomerId);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      const partnerId = deps.authorizer.partnerOf(caller);
      if (partnerId === undefined) return this.refuseUnauthenticated(record, position, envelope, error.message);
      if (!deps.rejectedBudget.take(envelope.authorization)) return this.dropped(envelope, 'FORBIDDEN');
      // The caller is verified: answered on its own reply topic, which reveals nothing of another partner.
      const refused = await this.answerError(domain, this.routedTo(domain, envelope, partnerId), null, error.code, error.message);
      return { ...refused, rejection: { reason: 'FORBIDDEN', action: 'answered' } };
    }
    // Checked before the rate: a replay of a topic's retention must not use up the partner's rate. Only a
    // verified caller is answered, on its own reply topic.
    const stale = await this.refuseIfStale(domain, this.routedTo(domain, envelope, scope.replyPartnerId), record);
    if (stale) return stale;
    const change = await this.changeOperation(record, domain);
    const isChange = change !== undefined;
    const commandId = change === undefined ? undefined : commandIdOf(scope.effectiveCustomerId, change, envelope.correlationId);
    const admission = await this.retriable(() => deps.admission.admit(scope.partnerId, isChange, sentAtMs(record, deps.clock), commandId));
    if (!admission.allowed) {
      const refuseNew = { code: 'RATE_LIMITED' as const, message: `The partner's command rate is over its limit; retry in ${admission.retryAfterMs} ms` };
      // A query records nothing, so it is simply refused. A change goes on: if its outcome is recorded (a
      // redelivery, a retry with the same X-Correlation-Id) that answer wins, else it is refused unapplied.
      if (!isChange) return this.answerError(domain, this.routedTo(domain, envelope, scope.replyPartnerId), null, refuseNew.code, refuseNew.message);
      return { scope, charged: false, counted: false, refuseNew };
    }
    const { quotaExhausted } = admission;
    if (admission.repeat) return { scope, charged: false, counted: false };
    return {
      scope,
      charged: true,
      counted: isChange && !quotaExhausted,
      ...(quotaExhausted ? { refuseNew: { code: 'RATE_LIMITED' as const, message: quotaRefusal(quotaExhausted) } } : {}),
    };
  }

  /**
   * The operation when the record is a change (the quota counts it), read from its writer schema's name
   * alone: the rate and the quota are decided before the value is decoded. A value that will not decode,
   * and a query, is no change.
   */
  private async changeOperation(record: CommandRecord, domain: Domain): Promise<string | undefined> {
    const recordName = await this.deps.codec.recordNameOf(record.value);
    const registration = recordName === undefined ? undefined : this.deps.handlers.get(recordName);
    return registration !== undefined && registration.domain === domain && !registration.readOnly ? shortName(recordName!) : undefined;
  }

  /**
   * No verified caller, so no partner is known and nothing is answered (a reply topic would be the sender's
   * choice): the refusal is recorded for the operator on the DLQ — headers without the token, no value bytes —
   * while the sender's budget lasts, and only counted after.
   */
  private refuseUnauthenticated(record: CommandRecord, position: RecordPosition, envelope: Envelope, reason: string): ProcessOutcome {
    const { deps } = this;
    if (!deps.rejectedBudget.take(envelope.authorization)) return this.dropped(envelope, 'UNAUTHORIZED');
    deps.log.warn({ correlationId: envelope.correlationId, ...position, reason }, 'command refused: no valid credentials');
    const recorded = deadLetterMessage(deps.deadLetters, { ...record, value: null }, position, { reason: 'UNAUTHENTICATED', detail: reason });
    return { outbound: [recorded], outcome: 'UNAUTHORIZED', correlationId: envelope.correlationId, rejection: { reason: 'UNAUTHORIZED', action: 'recorded' } };
  }

  private dropped(envelope: Envelope, reason: Rejection['reason']): ProcessOutcome {
    return { outbound: [], outcome: reason, correlationId: envelope.correlationId, rejection: { reason, action: 'dropped' } };
  }

  /** The envelope answered on the partner's default reply topic, whatever the requester asked for. */
  private routedTo(domain: Domain, envelope: Envelope, partnerId: string | undefined): RoutedEnvelope {
    return { ...envelope, replyTopic: defaultReplyTopic(this.deps.envelopeRules[domain], partnerId) };
  }

  /**
   * The requested reply topic and partition, honoured when they pass; each refusal joins the command's
   * problems (a BAD_REQUEST on the default topic, listing them with every other problem found).
   */
  private async route(domain: Domain, envelope: Envelope, partnerId: string | undefined): Promise<RoutedEnvelope> {
    const rules = this.deps.envelopeRules[domain];
    const problems = [...envelope.problems];
    const answered = (replyTopic: string, replyPartition?: number): RoutedEnvelope => ({ ...envelope, replyTopic, replyPartition, problems });
    const fallback = defaultReplyTopic(rules, partnerId);
    const requested = envelope.requestedReplyTopic;
    let replyTopic = fallback;
    if (requested !== undefined) {
      const refusal = replyTopicRefusal(rules, partnerId, requested);
      if (refusal !== undefined) problems.push({ path: REPLY_TOPIC_PATH, reason: refusal });
      else if ((await this.partitionsOf(requested)) === undefined) problems.push(missingTopicProblem());
      else replyTopic = requested;
      // A refused topic is answered on the default one, partitioned by the usual rule.
      if (replyTopic !== requested) return answered(fallback);
    }
    const partition = envelope.requestedReplyPartition;
    if (partition === undefined) return answered(replyTopic);
    const count = await this.partitionsOf(replyTopic); // cached: the lookup above, or the default topic's
    const refusal = count === undefined ? undefined : replyPartitionRefusal(partition, count);
    if (refusal !== undefined) problems.push({ path: REPLY_PARTITION_PATH, reason: refusal });
    return answered(replyTopic, refusal === undefined && count !== undefined ? partition : undefined);
  }

  /** A topic's partition count, or undefined when the cluster does not know it; Kafka away → retried. */
  private async partitionsOf(topic: string): Promise<number | undefined> {
    try {
      return await this.deps.partitionCount(topic);
    } catch (error) {
      if (error instanceof TopicRefusedError) return undefined; // missing, or not writable by the service
      throw asRetriable(error);
    }
  }

  private async handle(
    domain: Domain,
    registration: HandlerRegistration,
    decoded: DecodedRecord,
    envelope: RoutedEnvelope,
    operation: string,
    admitted: Admitted,
    source: CommandSource,
  ): Promise<Handled> {
    const { deps } = this;
    const { scope, refuseNew } = admitted;
    // Keyed by the acting node, not the raw header: two partners reusing a correlation id never share a reply.
    const commandId = commandIdOf(scope.effectiveCustomerId, operation, envelope.correlationId);
    // A query changes nothing, so it is simply run again: neither compared, counted nor recorded. A change's
    // store records its outcome atomically with it, with this fingerprint, and a redelivery runs the handler
    // again, which replays that record (or answers CONFLICT for another payload under the same id).
    const fingerprint = registration.readOnly ? '' : fingerprintOf(decoded.value);
    if (refuseNew && registration.readOnly) return this.answerError(domain, envelope, operation, refuseNew.code, refuseNew.message);
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
      const reply = await this.encodeReply(domain, envelope, registration.replyRecord, result.reply);
      const encoded = await Promise.all((result.messages ?? []).map((m) => this.encodeOrDeadLetter(m, context, source)));
      const replayed = result.replayed === true;
      return { outbound: [reply, ...encoded.flat()], outcome: replayed ? 'REPLAYED' : 'Success', operation, correlationId: envelope.correlationId, recorded: !replayed };
    } catch (error) {
      if (error instanceof RetriableError || deps.isRetriable(error)) throw asRetriable(error);
      if (isServiceError(error)) {
        const outcome: Handled = await this.answerError(domain, envelope, operation, error.code, error.message, error.problems);
        // A change's store may have recorded a refusal too: counted, erring on the safe side.
        outcome.recorded = !registration.readOnly && error.code !== 'RATE_LIMITED';
        return outcome;
      }
      context.log.error({ err: error }, 'handler failed');
      return this.answerError(domain, envelope, operation, 'INTERNAL', 'The service failed to handle the command');
    }
  }

  private async encodeReply(domain: Domain, envelope: RoutedEnvelope, recordName: string, value: object): Promise<Outbound> {
    const status = 'status' in value && typeof value.status === 'string' ? value.status : 'Success';
    return replyMessage(envelope, status, await this.deps.codec.encode(this.schemaTopic(domain), recordName, value));
  }

  /** Replies are encoded with the schema registered under the domain's reply topic, whatever topic they go to. */
  private schemaTopic(domain: Domain): string {
    return this.deps.envelopeRules[domain].defaultReplyTopic;
  }

  private encodeMessage(message: OutgoingMessage, context: CommandContext): Promise<Outbound[]> {
    const headers = message.cloudEvent
      ? cloudEventHeaders({
          ...message.cloudEvent,
          source: this.deps.serviceName,
          type: message.recordName,
          correlationId: context.correlationId,
          causationId: context.commandId,
        })
      : {};
    return routeOutgoing(this.deps.routing, (topic, recordName, value) => this.deps.codec.encode(topic, recordName, value), message, headers);
  }

  /**
   * The effect is made by now: an event that cannot be encoded must not take the reply and the other
   * events down with it (nor be lost). It goes to the dead-letter topic as JSON, with its intended topic.
   */
  private async encodeOrDeadLetter(message: OutgoingMessage, context: CommandContext, source: CommandSource): Promise<Outbound[]> {
    try {
      return await this.encodeMessage(message, context);
    } catch (error) {
      if (!(error instanceof SchemaMismatchError)) throw error;
      context.log.error({ err: error }, 'an output does not match its schema; dead-lettering it');
      const json = JSON.stringify(message.value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      const unencoded = { topic: this.deps.topics[message.topic], key: message.key, value: Buffer.from(json), headers: { 'content-type': 'application/json', ce_type: message.recordName, ...(message.cloudEvent ? { ce_id: message.cloudEvent.id } : {}) } };
      return [undeliverableDeadLetter(this.deps.deadLetters, unencoded, source.record, source.position, `${message.recordName} does not match its schema`, error.message)];
    }
  }

  private async answerError(domain: Domain, envelope: RoutedEnvelope, operation: string | null, code: ErrorCode, message: string, problems: FieldProblem[] = []): Promise<ProcessOutcome> {
    const value = errorReplyValue(code, message, problems, operation);
    const encoded = await this.deps.codec.encode(this.schemaTopic(domain), ERROR_REPLY, value);
    return { outbound: [replyMessage(envelope, code, encoded)], outcome: code, operation: operation ?? undefined, correlationId: envelope.correlationId };
  }

  private async deadLetter(
    domain: Domain,
    record: CommandRecord,
    position: RecordPosition,
    envelope: RoutedEnvelope,
    cause: DeadLetterCause,
    recordName?: string,
  ): Promise<ProcessOutcome> {
    const outbound = [deadLetterMessage(this.deps.deadLetters, record, position, cause)];
    // Answer only a requester that can match the reply: one that sent a correlation id.
    if (envelope.correlationSource !== 'generated') {
      const code: ErrorCode = 'BAD_REQUEST';
      const value = errorReplyValue(code, `${cause.reason}: ${cause.detail}`, [], recordName ? shortName(recordName) : null);
      outbound.push(replyMessage(envelope, code, await this.deps.codec.encode(this.schemaTopic(domain), ERROR_REPLY, value)));
    }
    return { outbound, outcome: 'DEAD_LETTER', operation: recordName ? shortName(recordName) : undefined, correlationId: envelope.correlationId };
  }

  private async retriable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw asRetriable(error);
    }
  }
}
