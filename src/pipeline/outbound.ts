import { withTraceHeaders } from '../shared/tracing';
import { ERROR_CODES, type ErrorCode, type FieldProblem } from '../contract/errors';
import { DEAD_LETTER_CIPHER, sealContext, sealDeadLetter, type DeadLetterKey } from '../security/dead-letter-seal';
import { DLQ_HEADER, HEADER } from '../contract/headers';
import type { RecordHeaders, Outbound, RecordPosition } from '../contract/transport';
import { correlationIdOf, type RoutedEnvelope } from './envelope';

/**
 * UNAUTHENTICATED: a command without valid credentials, recorded for the operator without its value (docs/security.md).
 * UNDECOMPRESSABLE: a record of a compressed batch the worker did not inflate (too large inflated, or a codec it has not).
 */
export type DeadLetterReason = 'NOT_AVRO' | 'UNKNOWN_SCHEMA' | 'UNDECODABLE' | 'NO_HANDLER' | 'TOO_LARGE' | 'PROCESSING_FAILED' | 'UNDELIVERABLE' | 'UNAUTHENTICATED' | 'UNDECOMPRESSABLE';

export interface ErrorReplyValue {
  status: ErrorCode;
  operation: string | null;
  error: { code: ErrorCode; message: string; problems: FieldProblem[] };
}

export function errorReplyValue(code: ErrorCode, message: string, problems: FieldProblem[] = [], operation: string | null = null): ErrorReplyValue {
  return { status: code, operation, error: { code, message: message || ERROR_CODES[code].description, problems } };
}

/** Reply headers: our correlation id and status, plus kafka_correlationId echoed in the form it came. */
export function replyHeaders(envelope: RoutedEnvelope, status: string): Record<string, string | Buffer> {
  const headers: Record<string, string | Buffer> = {
    [HEADER.correlationId]: envelope.correlationId,
    [HEADER.status]: status,
  };
  if (envelope.kafkaCorrelationId) headers[HEADER.kafkaCorrelationId] = envelope.kafkaCorrelationId;
  return headers;
}

export function replyMessage(envelope: RoutedEnvelope, status: string, value: Buffer): Outbound {
  return {
    topic: envelope.replyTopic,
    partition: envelope.replyPartition,
    preferredPartition: envelope.sourcePartition,
    key: envelope.correlationId,
    value,
    headers: withTraceHeaders(replyHeaders(envelope, status)),
  };
}

/** The bearer token is a credential, replayable until it expires: it never travels on, not even sealed. */
const isSecretHeader = (name: string): boolean => name.toLowerCase() === HEADER.authorization.toLowerCase();

/**
 * Where dead letters go and the key that seals what they carried. Without a key (allowed only with
 * AUTH_MODE=none, src/config) a dead letter carries no body and no original header at all.
 */
export interface DeadLetterSink {
  topic: string;
  key?: DeadLetterKey;
}

/**
 * A dead letter must itself fit in one Kafka record (the broker's message.max.bytes, 1 MiB by default),
 * whatever the poison record carried: its key and value are kept up to DEAD_LETTER_BODY_BYTES together and
 * its headers up to DEAD_LETTER_HEADER_BYTES (with their layout bytes), and what was cut is said in
 * x-dlq-*-truncated headers (the original sizes). A record the broker refuses would fail the whole batch
 * again at every redelivery.
 */
export const DEAD_LETTER_BODY_BYTES = 512 * 1024;
export const DEAD_LETTER_HEADER_BYTES = 256 * 1024;
const DEAD_LETTER_KEY_BYTES = 16 * 1024;
/** Per header in the sealed layout: name length, tag, value length. */
const SEALED_HEADER_OVERHEAD = 9;
const DIAGNOSTIC_CHARS = 4096;

const headerBytes = (value: string | Buffer): number => (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value));

const copyHeaders = (headers: RecordHeaders | undefined): { headers: [string, string | Buffer][]; dropped: number } => {
  const copy: [string, string | Buffer][] = [];
  let bytes = 0;
  let dropped = 0;
  for (const [name, raw] of Object.entries(headers ?? {})) {
    if (isSecretHeader(name)) continue;
    const first = Array.isArray(raw) ? raw[0] : raw;
    if (first === undefined) continue;
    const size = Buffer.byteLength(name) + headerBytes(first) + SEALED_HEADER_OVERHEAD;
    if (bytes + size > DEAD_LETTER_HEADER_BYTES) {
      dropped++;
      continue;
    }
    bytes += size;
    copy.push([name, first]);
  }
  return { headers: copy, dropped };
};

function truncated(bytes: Buffer | null, limit: number): Buffer | null {
  return bytes === null || bytes.length <= limit ? bytes : bytes.subarray(0, limit);
}

/** Why a record was dead-lettered: `detail` travels in clear (x-dlq-detail, the requester's reply), `diagnostic` only sealed. */
export interface DeadLetterCause {
  reason: DeadLetterReason;
  /** Says what failed without quoting anything the record carried. */
  detail: string;
  /** The full failure text, which may quote field values. */
  diagnostic?: string;
}

/**
 * The poison message (within the bounds above, without its Authorization header), its value and original
 * headers sealed with the sink's key; in clear only the key (the gpsi: same key, same DLQ partition) and
 * the x-dlq-* headers saying why, where from and how to open it.
 */
export function deadLetterMessage(
  sink: DeadLetterSink,
  record: { key: Buffer | null; value: Buffer | null; headers?: RecordHeaders; timestamp: string },
  position: RecordPosition,
  cause: DeadLetterCause,
): Outbound {
  const { headers, dropped } = copyHeaders(record.headers);
  const key = truncated(record.key, DEAD_LETTER_KEY_BYTES);
  const value = truncated(record.value, DEAD_LETTER_BODY_BYTES - (key?.length ?? 0));
  const described: Record<string, string> = {
    [DLQ_HEADER.reason]: cause.reason,
    [DLQ_HEADER.detail]: cause.detail.slice(0, 1024),
    [DLQ_HEADER.correlationId]: correlationIdOf(record.headers, position),
    [DLQ_HEADER.sourceTopic]: position.topic,
    [DLQ_HEADER.sourcePartition]: String(position.partition),
    [DLQ_HEADER.sourceOffset]: position.offset,
    [DLQ_HEADER.sourceTimestamp]: record.timestamp,
  };
  if (key !== record.key) described[DLQ_HEADER.keyTruncated] = String(record.key!.length);
  if (value !== record.value) described[DLQ_HEADER.valueTruncated] = String(record.value!.length);
  if (dropped > 0) described[DLQ_HEADER.headersDropped] = String(dropped);
  if (!sink.key) {
    described[DLQ_HEADER.valueDropped] = String(record.value?.length ?? 0);
    return { topic: sink.topic, key, value: null, headers: described };
  }
  const original = { value, headers, diagnostic: (cause.diagnostic ?? cause.detail).slice(0, DIAGNOSTIC_CHARS) };
  const sealed = sealDeadLetter(original, sink.key, sealContext(sink.key.id, position));
  described[DLQ_HEADER.cipher] = DEAD_LETTER_CIPHER;
  described[DLQ_HEADER.keyId] = sink.key.id;
  described[DLQ_HEADER.nonce] = sealed.nonce.toString('base64');
  return { topic: sink.topic, key, value: sealed.ciphertext, headers: described };
}

/**
 * A message of a record's output that Kafka refuses for good (a reply topic that does not exist or may not be
 * written, a partition the topic lacks, a reply above the topic's size limit): its own key, value and headers
 * sealed like any dead letter (a reply may carry a subscriber's name and address), where it was meant to go,
 * and the record it answered.
 */
export function undeliverableDeadLetter(
  sink: DeadLetterSink,
  message: Outbound,
  source: { timestamp: string },
  position: RecordPosition,
  reason: string,
  /** The full failure text when it may quote values (sealed with the letter, never in clear). */
  diagnostic?: string,
): Outbound {
  const key = typeof message.key === 'string' ? Buffer.from(message.key) : message.key;
  const letter = deadLetterMessage(sink, { key, value: message.value, headers: message.headers, timestamp: source.timestamp }, position, {
    reason: 'UNDELIVERABLE',
    detail: reason,
    diagnostic,
  });
  letter.headers[DLQ_HEADER.targetTopic] = message.topic;
  if (message.partition !== undefined) letter.headers[DLQ_HEADER.targetPartition] = String(message.partition);
  return letter;
}

/** CloudEvents Kafka binding, binary mode: attributes as ce_* headers, content-type = datacontenttype. */
export function cloudEventHeaders(event: { id: string; source: string; type: string; subject: string; time: string; correlationId?: string; causationId?: string }): Record<string, string> {
  const headers: Record<string, string> = {
    ce_specversion: '1.0',
    ce_id: event.id,
    ce_source: event.source,
    ce_type: event.type,
    ce_subject: event.subject,
    ce_time: event.time,
    'content-type': 'application/avro',
  };
  if (event.correlationId) headers.ce_correlationid = event.correlationId;
  if (event.causationId) headers.ce_causationid = event.causationId;
  return headers;
}

/** The dead letter of a record whose processor failed with anything but a RetriableError: never retried forever. */
export function processingFailedDeadLetter(sink: DeadLetterSink, record: Parameters<typeof deadLetterMessage>[1], position: RecordPosition, error: unknown): Outbound {
  return deadLetterMessage(sink, record, position, {
    reason: 'PROCESSING_FAILED',
    detail: 'the record processor failed unexpectedly',
    diagnostic: (error as Error)?.message ?? String(error),
  });
}
