import type { RecordHeaders } from './transport';

/**
 * The header names of the message contract (README "Headers", asyncapi.yaml) and how a header value
 * reads. Besides our own headers the service understands Spring Kafka's and NestJS's kafka_correlationId /
 * kafka_replyTopic / kafka_replyPartition, so those requesters work unchanged.
 */
export const HEADER = {
  correlationId: 'X-Correlation-Id',
  replyTopic: 'X-Reply-Topic',
  status: 'X-Status',
  wholesaleCustomerId: 'wholesaleCustomerId',
  authorization: 'Authorization',
  kafkaCorrelationId: 'kafka_correlationId',
  kafkaReplyTopic: 'kafka_replyTopic',
  kafkaReplyPartition: 'kafka_replyPartition',
} as const;

/** Why and where from a record was dead-lettered, and which key opens it (README "Dead letters"). */
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
  /** UNDELIVERABLE: where the message was meant to go (the partition only when one was asked for). */
  targetTopic: 'x-dlq-target-topic',
  targetPartition: 'x-dlq-target-partition',
  /** The correlation id the service answered (or logged) the record with: find its reply and log lines. */
  correlationId: 'x-dlq-correlation-id',
  /** The value and original headers are sealed: cipher, key id (the key that opens it) and nonce (base64). */
  cipher: 'x-dlq-cipher',
  keyId: 'x-dlq-key-id',
  nonce: 'x-dlq-nonce',
  /** No key configured (AUTH_MODE=none only): neither value nor original headers are kept; the value's size. */
  valueDropped: 'x-dlq-value-dropped',
} as const;

/** A header's first value as bytes; the name is also looked up lower-cased (some clients lower-case them). */
export function headerBuffer(headers: RecordHeaders | undefined, name: string): Buffer | undefined {
  const raw = headers?.[name] ?? headers?.[name.toLowerCase()];
  const first = Array.isArray(raw) ? raw[0] : raw;
  if (first === undefined) return undefined;
  return Buffer.isBuffer(first) ? first : Buffer.from(first);
}

/** A header's first value as UTF-8 text. */
export function headerText(headers: RecordHeaders | undefined, name: string): string | undefined {
  const buffer = headerBuffer(headers, name);
  return buffer === undefined ? undefined : buffer.toString('utf8');
}
