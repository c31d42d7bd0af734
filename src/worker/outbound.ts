import type { IHeaders } from 'kafkajs';
import { ERROR_CODES, type ErrorCode, type FieldProblem } from '../errors/codes';
import { HEADER, type RecordPosition, type RoutedEnvelope } from './envelope';

/** A message ready for the producer: the reply, an event, an NP request or a dead letter. */
export interface Outbound {
  topic: string;
  partition?: number;
  /**
   * Without `partition`: the partition of this number modulo the topic's count, instead of the key's hash.
   * Replies use their command's partition, so the replies of one fetched batch make one produce request
   * instead of one per reply partition (requesters match replies by X-Correlation-Id, not by partition).
   */
  preferredPartition?: number;
  key: Buffer | string | null;
  value: Buffer | null;
  headers: Record<string, string | Buffer>;
}

/** UNAUTHENTICATED: a command without valid credentials, recorded for the operator without its value (docs/security.md). */
export type DeadLetterReason = 'NOT_AVRO' | 'UNKNOWN_SCHEMA' | 'UNDECODABLE' | 'NO_HANDLER' | 'TOO_LARGE' | 'PROCESSING_FAILED' | 'UNAUTHENTICATED';

export const DLQ_HEADER = {
  reason: 'x-dlq-reason',
  detail: 'x-dlq-detail',
  sourceTopic: 'x-dlq-source-topic',
  sourcePartition: 'x-dlq-source-partition',
  sourceOffset: 'x-dlq-source-offset',
  sourceTimestamp: 'x-dlq-source-timestamp',
  keyTruncated: 'x-dlq-key-truncated',
  valueTruncated: 'x-dlq-value-truncated',
  headersDropped: 'x-dlq-headers-dropped',
} as const;

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
    headers: replyHeaders(envelope, status),
  };
}

/** The bearer token is a credential, replayable until it expires: it never travels on to the DLQ. */
const isSecretHeader = (name: string): boolean => name.toLowerCase() === HEADER.authorization.toLowerCase();

/**
 * A dead letter must itself fit in one Kafka record (the broker's message.max.bytes, 1 MiB by default),
 * whatever the poison record carried: its key and value are kept up to DEAD_LETTER_BODY_BYTES together and
 * its headers up to DEAD_LETTER_HEADER_BYTES, and what was cut is said in x-dlq-*-truncated headers (the
 * original sizes). A record the broker refuses would fail the whole batch again at every redelivery.
 */
export const DEAD_LETTER_BODY_BYTES = 512 * 1024;
export const DEAD_LETTER_HEADER_BYTES = 256 * 1024;
const DEAD_LETTER_KEY_BYTES = 16 * 1024;

const headerBytes = (value: string | Buffer): number => (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value));

const copyHeaders = (headers: IHeaders | undefined): { headers: Record<string, string | Buffer>; dropped: number } => {
  const copy: Record<string, string | Buffer> = {};
  let bytes = 0;
  let dropped = 0;
  for (const [name, raw] of Object.entries(headers ?? {})) {
    if (isSecretHeader(name)) continue;
    const first = Array.isArray(raw) ? raw[0] : raw;
    if (first === undefined) continue;
    const size = Buffer.byteLength(name) + headerBytes(first);
    if (bytes + size > DEAD_LETTER_HEADER_BYTES) {
      dropped++;
      continue;
    }
    bytes += size;
    copy[name] = first;
  }
  return { headers: copy, dropped };
};

function truncated(bytes: Buffer | null, limit: number): Buffer | null {
  return bytes === null || bytes.length <= limit ? bytes : bytes.subarray(0, limit);
}

/** The poison message byte for byte (within the bounds above, without its Authorization header), with headers saying why and where it came from. */
export function deadLetterMessage(
  deadLetterTopic: string,
  record: { key: Buffer | null; value: Buffer | null; headers?: IHeaders; timestamp: string },
  position: RecordPosition,
  reason: DeadLetterReason,
  detail: string,
): Outbound {
  const { headers, dropped } = copyHeaders(record.headers);
  const key = truncated(record.key, DEAD_LETTER_KEY_BYTES);
  const value = truncated(record.value, DEAD_LETTER_BODY_BYTES - (key?.length ?? 0));
  const cut: Record<string, string> = {};
  if (key !== record.key) cut[DLQ_HEADER.keyTruncated] = String(record.key!.length);
  if (value !== record.value) cut[DLQ_HEADER.valueTruncated] = String(record.value!.length);
  if (dropped > 0) cut[DLQ_HEADER.headersDropped] = String(dropped);
  return {
    topic: deadLetterTopic,
    key,
    value,
    headers: {
      ...headers,
      ...cut,
      [DLQ_HEADER.reason]: reason,
      [DLQ_HEADER.detail]: detail.slice(0, 1024),
      [DLQ_HEADER.sourceTopic]: position.topic,
      [DLQ_HEADER.sourcePartition]: String(position.partition),
      [DLQ_HEADER.sourceOffset]: position.offset,
      [DLQ_HEADER.sourceTimestamp]: record.timestamp,
    },
  };
}

/** Bytes a message takes on the wire, near enough to keep a send below the broker's batch limit. */
export function outboundBytes(message: Outbound): number {
  let bytes = 64 + (message.key === null ? 0 : headerBytes(message.key)) + (message.value?.length ?? 0);
  for (const [name, value] of Object.entries(message.headers)) bytes += Buffer.byteLength(name) + headerBytes(value);
  return bytes;
}

/** CloudEvents Kafka binding, binary mode: attributes as ce_* headers, content-type = datacontenttype. */
export function cloudEventHeaders(event: {
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  correlationId?: string;
  causationId?: string;
}): Record<string, string> {
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
