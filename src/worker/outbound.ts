import type { IHeaders } from 'kafkajs';
import { ERROR_CODES, type ErrorCode, type FieldProblem } from '../errors/codes';
import { HEADER, type Envelope, type RecordPosition } from './envelope';

/** A message ready for the producer: the reply, an event, an NP request or a dead letter. */
export interface Outbound {
  topic: string;
  partition?: number;
  key: Buffer | string | null;
  value: Buffer | null;
  headers: Record<string, string | Buffer>;
}

export type DeadLetterReason = 'NOT_AVRO' | 'UNKNOWN_SCHEMA' | 'UNDECODABLE' | 'NO_HANDLER' | 'TOO_LARGE' | 'PROCESSING_FAILED';

export const DLQ_HEADER = {
  reason: 'x-dlq-reason',
  detail: 'x-dlq-detail',
  sourceTopic: 'x-dlq-source-topic',
  sourcePartition: 'x-dlq-source-partition',
  sourceOffset: 'x-dlq-source-offset',
  sourceTimestamp: 'x-dlq-source-timestamp',
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
export function replyHeaders(envelope: Envelope, status: string): Record<string, string | Buffer> {
  const headers: Record<string, string | Buffer> = {
    [HEADER.correlationId]: envelope.correlationId,
    [HEADER.status]: status,
  };
  if (envelope.kafkaCorrelationId) headers[HEADER.kafkaCorrelationId] = envelope.kafkaCorrelationId;
  return headers;
}

export function replyMessage(envelope: Envelope, status: string, value: Buffer): Outbound {
  return {
    topic: envelope.replyTopic,
    partition: envelope.replyPartition,
    key: envelope.correlationId,
    value,
    headers: replyHeaders(envelope, status),
  };
}

/** The bearer token is a credential, replayable until it expires: it never travels on to the DLQ. */
const isSecretHeader = (name: string): boolean => name.toLowerCase() === HEADER.authorization.toLowerCase();

const copyHeaders = (headers: IHeaders | undefined): Record<string, string | Buffer> => {
  const copy: Record<string, string | Buffer> = {};
  for (const [name, raw] of Object.entries(headers ?? {})) {
    if (isSecretHeader(name)) continue;
    const first = Array.isArray(raw) ? raw[0] : raw;
    if (first !== undefined) copy[name] = first;
  }
  return copy;
};

/** The poison message byte for byte (without its Authorization header), with headers saying why and where it came from. */
export function deadLetterMessage(
  deadLetterTopic: string,
  record: { key: Buffer | null; value: Buffer | null; headers?: IHeaders; timestamp: string },
  position: RecordPosition,
  reason: DeadLetterReason,
  detail: string,
): Outbound {
  return {
    topic: deadLetterTopic,
    key: record.key,
    value: record.value,
    headers: {
      ...copyHeaders(record.headers),
      [DLQ_HEADER.reason]: reason,
      [DLQ_HEADER.detail]: detail.slice(0, 1024),
      [DLQ_HEADER.sourceTopic]: position.topic,
      [DLQ_HEADER.sourcePartition]: String(position.partition),
      [DLQ_HEADER.sourceOffset]: position.offset,
      [DLQ_HEADER.sourceTimestamp]: record.timestamp,
    },
  };
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
