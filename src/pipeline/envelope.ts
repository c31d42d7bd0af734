import { sha256Hex } from '../domain/digest';
import type { FieldProblem } from '../contract/errors';
import { HEADER, headerBuffer, headerText } from '../contract/headers';
import type { RecordHeaders, RecordPosition } from '../contract/transport';
import type { Domain, TopicRole } from '../contract/topics';
import { Problems, checkString, type StringRule } from '../domain/validation/problems';
import { CORRELATION_ID, WHOLESALE_CUSTOMER_ID_BALANCE, WHOLESALE_CUSTOMER_ID_PORTIN } from '../domain/validation/spec-fields';

/**
 * What the headers of a command say about how to answer it, read without I/O. Besides our own headers
 * (X-Correlation-Id, X-Reply-Topic, wholesaleCustomerId) it understands Spring Kafka's and NestJS's
 * kafka_correlationId / kafka_replyTopic / kafka_replyPartition (contract/headers.ts), so those
 * requesters work unchanged.
 * A requested reply topic and partition are only read here: they are judged after authentication, against
 * the caller's own partner namespace (pipeline/reply-route.ts), since before it nobody is known.
 */
export type CorrelationSource = 'header' | 'kafka-string' | 'kafka-binary' | 'generated';

export interface Envelope {
  correlationId: string;
  correlationSource: CorrelationSource;
  /** kafka_correlationId exactly as received, echoed back in the same form (Spring: 16 binary bytes). */
  kafkaCorrelationId?: Buffer;
  /** X-Reply-Topic (else kafka_replyTopic) as received: not yet judged. */
  requestedReplyTopic?: string;
  /** kafka_replyPartition as received (Spring: 4-byte int, NestJS: text); NaN when it is not a number. */
  requestedReplyPartition?: number;
  /** The command's own partition: a reply without a requested partition goes to the one of the same number. */
  sourcePartition: number;
  wholesaleCustomerId?: string;
  authorization?: string;
  problems: FieldProblem[];
}

/** Where an admitted command is answered: set once the caller is known (pipeline/reply-route.ts). */
export interface RoutedEnvelope extends Envelope {
  replyTopic: string;
  replyPartition?: number;
}

export interface EnvelopeRules {
  /** The legacy shared reply topic of the domain: the schema subject of its replies, and AUTH_MODE=none's fallback. */
  defaultReplyTopic: string;
  /** The partner topic role of the domain's replies (`<prefix><partnerId>.<domain>.replies.v1`). */
  partnerReplyRole: 'portinReplies' | 'balanceReplies';
  partnerTopicPrefix: string;
  /** Topics the service owns that a requester may not direct replies to (commands, events, DLQ, NP). */
  forbiddenReplyTopics: ReadonlySet<string>;
  wholesaleCustomerId: StringRule;
}

const MAX_HEADER_TEXT = 4096;

const isPrintableAscii = (buffer: Buffer): boolean => buffer.every((byte) => byte >= 0x20 && byte < 0x7f);

/**
 * An X-Correlation-Id the spec refuses (over 128 characters) is still echoed when it is sane: a requester
 * matches its reply on the id it sent, so an id derived from the record's position would leave it waiting
 * for a BAD_REQUEST it never sees. Beyond this size, or not valid UTF-8, or with control characters, it is
 * not echoed (the reply carries the positional id).
 */
export const MAX_ECHOED_CORRELATION_BYTES = 1024;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function isEchoable(raw: Buffer): boolean {
  if (raw.length === 0 || raw.length > MAX_ECHOED_CORRELATION_BYTES) return false;
  try {
    return !CONTROL_CHARACTER.test(strictUtf8.decode(raw));
  } catch {
    return false;
  }
}

const asUuid = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/** A missing correlation id is derived from the record's position, so a redelivery gets the same one. */
export const positionalCorrelationId = (position: RecordPosition): string => asUuid(sha256Hex(`${position.topic}/${position.partition}/${position.offset}`));

function readCorrelation(headers: RecordHeaders | undefined, problems: Problems, position: RecordPosition) {
  const raw = headerBuffer(headers, HEADER.correlationId);
  const kafka = headerBuffer(headers, HEADER.kafkaCorrelationId);
  if (raw !== undefined) {
    const explicit = raw.toString('utf8');
    // Checked (and a problem listed) whatever its length; echoed when valid or merely too long but sane.
    const valid = checkString(problems, `headers.${HEADER.correlationId}`, explicit, CORRELATION_ID);
    if (valid || isEchoable(raw)) return { correlationId: explicit, correlationSource: 'header' as const, kafkaCorrelationId: kafka };
  }
  if (kafka !== undefined && kafka.length > 0 && kafka.length <= 128) {
    // Spring sends 16 raw bytes by default; NestJS and Spring's string mode send text.
    return isPrintableAscii(kafka)
      ? { correlationId: kafka.toString('utf8'), correlationSource: 'kafka-string' as const, kafkaCorrelationId: kafka }
      : { correlationId: asUuid(kafka.toString('hex').padEnd(32, '0')), correlationSource: 'kafka-binary' as const, kafkaCorrelationId: kafka };
  }
  return { correlationId: positionalCorrelationId(position), correlationSource: 'generated' as const, kafkaCorrelationId: undefined };
}

/** The correlation id a record's lines are logged with, the same one readEnvelope gives its handler. */
export const correlationIdOf = (headers: RecordHeaders | undefined, position: RecordPosition): string => readCorrelation(headers, new Problems(), position).correlationId;

function readReplyPartition(headers: RecordHeaders | undefined): number | undefined {
  const raw = headerBuffer(headers, HEADER.kafkaReplyPartition);
  if (raw === undefined) return undefined;
  // Spring: 4-byte big-endian int; NestJS: the number as text.
  return raw.length === 4 && !isPrintableAscii(raw) ? raw.readInt32BE(0) : Number(raw.toString('utf8') || NaN);
}

export function readEnvelope(headers: RecordHeaders | undefined, position: RecordPosition, rules: EnvelopeRules): Envelope {
  const problems = new Problems();
  const correlation = readCorrelation(headers, problems, position);
  const wholesaleCustomerId = headerText(headers, HEADER.wholesaleCustomerId);
  if (wholesaleCustomerId !== undefined) {
    checkString(problems, `headers.${HEADER.wholesaleCustomerId}`, wholesaleCustomerId, { ...rules.wholesaleCustomerId, pattern: /^.*$/ });
  }
  const authorization = headerText(headers, HEADER.authorization);
  if (authorization !== undefined && authorization.length > MAX_HEADER_TEXT) {
    problems.add(`headers.${HEADER.authorization}`, `must be at most ${MAX_HEADER_TEXT} characters`);
  }
  return {
    ...correlation,
    requestedReplyTopic: headerText(headers, HEADER.replyTopic) ?? headerText(headers, HEADER.kafkaReplyTopic),
    requestedReplyPartition: readReplyPartition(headers),
    sourcePartition: position.partition,
    wholesaleCustomerId: problems.list.some((p) => p.path.endsWith(HEADER.wholesaleCustomerId)) ? undefined : wholesaleCustomerId,
    authorization,
    problems: problems.list,
  };
}

/**
 * The envelope rules of each command domain: its default reply topic, the partner's own reply topic, and
 * the service's own topics, which are never a reply topic.
 */
export function envelopeRules(topics: Readonly<Record<TopicRole, string>>, partnerTopicPrefix: string): Record<Domain, EnvelopeRules> {
  const forbiddenReplyTopics = new Set([topics.portinCommands, topics.balanceCommands, topics.portinEvents, topics.balanceEvents, topics.deadLetters, topics.npRequests, topics.npResponses]);
  return {
    portin: { defaultReplyTopic: topics.portinReplies, partnerReplyRole: 'portinReplies', partnerTopicPrefix, forbiddenReplyTopics, wholesaleCustomerId: WHOLESALE_CUSTOMER_ID_PORTIN },
    balance: { defaultReplyTopic: topics.balanceReplies, partnerReplyRole: 'balanceReplies', partnerTopicPrefix, forbiddenReplyTopics, wholesaleCustomerId: WHOLESALE_CUSTOMER_ID_BALANCE },
  };
}
