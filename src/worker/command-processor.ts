import { createHash } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import type { Logger } from 'pino';
import { RetriableError, asRetriable, isServiceError, type ErrorCode, type FieldProblem } from '../errors/codes';
import type { CommandContext, Domain, HandlerRegistration, OutgoingMessage, TopicRole } from '../handlers/types';
import { ERROR_REPLY } from '../contract/topology';
import { DecodeError, type DecodedRecord } from '../adapters/registry/avro-codec';
import type { ReplyCache, StoredOutcome } from '../adapters/redis/reply-cache';
import type { Authenticator, Authorizer, CustomerScope, RateLimiter } from '../security/access';
import { readEnvelope, type Envelope, type EnvelopeRules, type RecordPosition } from './envelope';
import {
  cloudEventHeaders,
  deadLetterMessage,
  errorReplyValue,
  replyMessage,
  type DeadLetterReason,
  type Outbound,
} from './outbound';

/**
 * Turns one command record into the messages to send (reply, events, NP requests, dead letter), with no
 * Kafka I/O of its own: the worker sends what this returns and commits only after Kafka acknowledged it.
 * Throws only RetriableError (infrastructure away): then nothing is sent and the record is not committed.
 */
export interface Codec {
  decode(buffer: Buffer | null): Promise<DecodedRecord>;
  encode(topic: string, recordName: string, value: object): Promise<Buffer>;
}

export interface CommandRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
  timestamp: string;
}

export interface ProcessorDeps {
  codec: Codec;
  handlers: ReadonlyMap<string, HandlerRegistration>;
  replies: ReplyCache;
  topics: Readonly<Record<TopicRole, string>>;
  envelopeRules: Readonly<Record<Domain, EnvelopeRules>>;
  maxMessageBytes: number;
  serviceName: string;
  clock: () => Date;
  log: Logger;
  /** Classifies infrastructure failures thrown by handlers' adapters as retriable. */
  isRetriable: (error: unknown) => boolean;
  /** Who sent the command (Authorization header): src/security. */
  authenticator: Authenticator;
  /** What it may act for (wholesaleCustomerId header within the caller's subtree). */
  authorizer: Authorizer;
  /** Per-partner command rate. */
  rateLimiter: RateLimiter;
}

export interface ProcessOutcome {
  outbound: Outbound[];
  /** "Success", an error code, "DEAD_LETTER" or "REPLAYED". */
  outcome: string;
  operation?: string;
  correlationId: string;
  /** The acting node of an admitted command (for the audit line "who did what"). */
  customer?: string;
}

/** Replies that depend on the moment (credentials, rate, a crash) are not remembered for redeliveries. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set<ErrorCode>(['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL']);

/** Key, value and headers: everything a hostile sender could inflate. */
function messageBytes(record: CommandRecord): number {
  let size = (record.value?.length ?? 0) + (record.key?.length ?? 0);
  for (const [name, raw] of Object.entries(record.headers ?? {})) {
    for (const value of Array.isArray(raw) ? raw : [raw]) size += name.length + (value?.length ?? 0);
  }
  return size;
}

const shortName = (recordName: string): string => recordName.slice(recordName.lastIndexOf('.') + 1);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Identity of a command's effect: same correlation id, operation and customer = the same command. */
export const commandIdOf = (customer: string | undefined, operation: string, correlationId: string): string =>
  sha256(JSON.stringify([customer ?? '', operation, correlationId])).slice(0, 32);

export const fingerprintOf = (value: unknown): string => sha256(JSON.stringify(value));

export class CommandProcessor {
  constructor(private readonly deps: ProcessorDeps) {}

  async process(record: CommandRecord, position: RecordPosition, domain: Domain): Promise<ProcessOutcome> {
    const { deps } = this;
    const envelope = readEnvelope(record.headers, position, deps.envelopeRules[domain]);
    // Who is asking comes before anything that costs: a command without valid credentials, for someone
    // else's customer or over the partner's rate is answered without being decoded or dead-lettered.
    const admitted = await this.admit(domain, envelope);
    if ('outbound' in admitted) return admitted;
    return { ...(await this.processAdmitted(record, position, domain, envelope, admitted)), customer: admitted.effectiveCustomerId };
  }

  private async processAdmitted(record: CommandRecord, position: RecordPosition, domain: Domain, envelope: Envelope, scope: CustomerScope): Promise<ProcessOutcome> {
    const { deps } = this;
    const size = messageBytes(record);
    if (size > deps.maxMessageBytes) {
      return this.deadLetter(domain, record, position, envelope, 'TOO_LARGE', `message is ${size} bytes, the limit is ${deps.maxMessageBytes}`);
    }
    let decoded: DecodedRecord;
    try {
      decoded = await deps.codec.decode(record.value);
    } catch (error) {
      if (error instanceof DecodeError) return this.deadLetter(domain, record, position, envelope, error.reason, error.message);
      throw error;
    }
    const registration = deps.handlers.get(decoded.recordName);
    if (!registration || registration.domain !== domain) {
      return this.deadLetter(domain, record, position, envelope, 'NO_HANDLER', `no ${domain} handler for record ${decoded.recordName}`, decoded.recordName);
    }
    const operation = shortName(decoded.recordName);
    const problems = [...envelope.problems, ...(registration.validate?.(decoded.value) ?? [])];
    if (problems.length > 0) {
      return this.answerError(domain, envelope, operation, 'BAD_REQUEST', `The command is invalid: ${problems.length} problem(s)`, problems);
    }
    return this.handle(domain, registration, decoded, envelope, operation, scope);
  }

  private async admit(domain: Domain, envelope: Envelope): Promise<CustomerScope | ProcessOutcome> {
    const { deps } = this;
    let scope: CustomerScope;
    try {
      const caller = await deps.authenticator.authenticate(envelope.authorization);
      scope = deps.authorizer.authorize(caller, envelope.wholesaleCustomerId);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      return this.answerError(domain, envelope, null, error.code, error.message);
    }
    const admission = await this.retriable(() => deps.rateLimiter.admit(scope.partnerId));
    if (!admission.allowed) {
      return this.answerError(domain, envelope, null, 'RATE_LIMITED', `The partner's command rate is over its limit; retry in ${admission.retryAfterMs} ms`);
    }
    return scope;
  }

  private async handle(domain: Domain, registration: HandlerRegistration, decoded: DecodedRecord, envelope: Envelope, operation: string, scope: CustomerScope): Promise<ProcessOutcome> {
    const { deps } = this;
    // Keyed by the acting node, not the raw header: two partners reusing a correlation id never share a reply.
    const commandId = commandIdOf(scope.effectiveCustomerId, operation, envelope.correlationId);
    const fingerprint = registration.readOnly ? '' : fingerprintOf(decoded.value); // a query is never compared
    // A query changes nothing, so it is simply run again: neither looked up nor recorded.
    const remembered = registration.readOnly ? undefined : await this.retriable(() => deps.replies.get(commandId));
    if (remembered) return this.replay(domain, envelope, operation, remembered, fingerprint);
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
    };
    let outcome: ProcessOutcome;
    try {
      const result = await registration.handle(decoded.value, context);
      const reply = await this.encodeReply(domain, envelope, registration.replyRecord, result.reply);
      const messages = await Promise.all((result.messages ?? []).map((m) => this.encodeMessage(m, context)));
      outcome = { outbound: [reply, ...messages], outcome: 'Success', operation, correlationId: envelope.correlationId };
    } catch (error) {
      if (error instanceof RetriableError || deps.isRetriable(error)) throw asRetriable(error);
      if (isServiceError(error)) {
        outcome = await this.answerError(domain, envelope, operation, error.code, error.message, error.problems);
      } else {
        context.log.error({ err: error }, 'handler failed');
        outcome = await this.answerError(domain, envelope, operation, 'INTERNAL', 'The service failed to handle the command');
      }
    }
    if (registration.readOnly || TRANSIENT_CODES.has(outcome.outcome)) return outcome;
    await this.retriable(() => deps.replies.put(commandId, { fingerprint, messages: outcome.outbound }));
    return outcome;
  }

  /** The first outcome of this command again, or CONFLICT when the correlation id came with another payload. */
  private async replay(domain: Domain, envelope: Envelope, operation: string, remembered: StoredOutcome, fingerprint: string): Promise<ProcessOutcome> {
    if (remembered.fingerprint === fingerprint) {
      return { outbound: remembered.messages, outcome: 'REPLAYED', operation, correlationId: envelope.correlationId };
    }
    return this.answerError(domain, envelope, operation, 'CONFLICT', `X-Correlation-Id ${envelope.correlationId} was already used for a different ${operation} command`);
  }

  private async encodeReply(domain: Domain, envelope: Envelope, recordName: string, value: object): Promise<Outbound> {
    const status = 'status' in value && typeof value.status === 'string' ? value.status : 'Success';
    return replyMessage(envelope, status, await this.deps.codec.encode(this.schemaTopic(domain), recordName, value));
  }

  /** Replies are encoded with the schema registered under the domain's reply topic, whatever topic they go to. */
  private schemaTopic(domain: Domain): string {
    return this.deps.envelopeRules[domain].defaultReplyTopic;
  }

  private async encodeMessage(message: OutgoingMessage, context: CommandContext): Promise<Outbound> {
    const topic = this.deps.topics[message.topic];
    const value = await this.deps.codec.encode(topic, message.recordName, message.value);
    const headers = message.cloudEvent
      ? cloudEventHeaders({
          ...message.cloudEvent,
          source: this.deps.serviceName,
          type: message.recordName,
          correlationId: context.correlationId,
          causationId: context.commandId,
        })
      : {};
    return { topic, key: message.key, value, headers };
  }

  private async answerError(domain: Domain, envelope: Envelope, operation: string | null, code: ErrorCode, message: string, problems: FieldProblem[] = []): Promise<ProcessOutcome> {
    const value = errorReplyValue(code, message, problems, operation);
    const encoded = await this.deps.codec.encode(this.schemaTopic(domain), ERROR_REPLY, value);
    return { outbound: [replyMessage(envelope, code, encoded)], outcome: code, operation: operation ?? undefined, correlationId: envelope.correlationId };
  }

  private async deadLetter(
    domain: Domain,
    record: CommandRecord,
    position: RecordPosition,
    envelope: Envelope,
    reason: DeadLetterReason,
    detail: string,
    recordName?: string,
  ): Promise<ProcessOutcome> {
    const outbound = [deadLetterMessage(this.deps.topics.deadLetters, record, position, reason, detail)];
    // Answer only a requester that can match the reply: one that sent a correlation id.
    if (envelope.correlationSource !== 'generated') {
      const code: ErrorCode = 'BAD_REQUEST';
      const value = errorReplyValue(code, `${reason}: ${detail}`, [], recordName ? shortName(recordName) : null);
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
