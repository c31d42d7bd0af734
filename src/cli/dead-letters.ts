import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DlqAdminConfig } from './config';
import { readTopicRange, type TopicSelection } from '../adapters/kafka/topic-reader';
import { AvroCodec } from '../adapters/registry/avro-codec';
import { openDeadLetter, sealContext, type DeadLetterKeyring, type SealedOriginal } from '../security/dead-letter-seal';
import { DLQ_HEADER, headerText } from '../contract/headers';
import type { RecordHeaders } from '../contract/transport';
import { plain } from './output';

/**
 * `wholesale admin dlq decrypt`: reads dead letters (from the DLQ topic or a file) and opens their sealed
 * body with the operator's keys, printing the original record: key, headers and value (base64, and decoded
 * Avro when a registry is given and knows the schema).
 */
export interface DeadLetterRecord {
  /** Where it was read: `<topic>/<partition>@<offset>`, or `<file>:<line>`. */
  at: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeaders;
}

export interface OpenedDeadLetter {
  at: string;
  reason: string;
  detail: string;
  correlationId: string;
  source: string;
  key: string | null;
  /** The original record, or why there is none (a letter of a service without a key: x-dlq-value-dropped). */
  original?: SealedOriginal;
  missing?: string;
}

/** Opens one dead letter with the key its x-dlq-key-id names; throws DeadLetterSealError when it does not open. */
export function openRecord(record: DeadLetterRecord, keyring: DeadLetterKeyring): OpenedDeadLetter {
  const header = (name: string): string => headerText(record.headers, name) ?? '';
  const source = { topic: header(DLQ_HEADER.sourceTopic), partition: header(DLQ_HEADER.sourcePartition), offset: header(DLQ_HEADER.sourceOffset) };
  const opened: OpenedDeadLetter = {
    at: record.at,
    reason: header(DLQ_HEADER.reason),
    detail: header(DLQ_HEADER.detail),
    correlationId: header(DLQ_HEADER.correlationId),
    source: `${source.topic}/${source.partition}@${source.offset}`,
    key: record.key?.toString('utf8') ?? null,
  };
  const keyId = header(DLQ_HEADER.keyId);
  if (!keyId || record.value === null) return { ...opened, missing: `no sealed body (${DLQ_HEADER.valueDropped}: ${header(DLQ_HEADER.valueDropped) || '?'} bytes)` };
  const nonce = Buffer.from(header(DLQ_HEADER.nonce), 'base64');
  return { ...opened, original: openDeadLetter({ ciphertext: record.value, nonce }, keyId, sealContext(keyId, source), keyring) };
}

const isPrintable = (bytes: Buffer): boolean => bytes.every((b) => b >= 0x20 && b < 0x7f);
const headerForPrint = (value: Buffer | string): string => (typeof value === 'string' ? value : isPrintable(value) ? value.toString('utf8') : `base64:${value.toString('base64')}`);

export interface DecodedValue {
  recordName: string;
  schemaId: number;
  value: unknown;
}

/** One JSON line (--json), or readable lines. */
export function formatOpened(opened: OpenedDeadLetter, decoded: DecodedValue | string | undefined, json: boolean): string {
  const original = opened.original;
  const headers = Object.fromEntries((original?.headers ?? []).map(([name, value]) => [name, headerForPrint(value)]));
  const value = original?.value?.toString('base64') ?? null;
  if (json) {
    return JSON.stringify({ ...opened, original: undefined, headers, valueBase64: value, diagnostic: original?.diagnostic, decoded });
  }
  const lines = [`dead letter ${opened.at}: ${opened.reason} (${opened.detail})`, `  source: ${opened.source}   correlation id: ${opened.correlationId}`, `  key: ${opened.key ?? '-'}`];
  if (opened.missing) return [...lines, `  ${opened.missing}`].join('\n');
  lines.push(`  diagnostic: ${original!.diagnostic}`, '  headers:', ...Object.entries(headers).map(([name, v]) => `    ${name}: ${v}`));
  lines.push(`  value (base64): ${value ?? 'null'}`);
  if (typeof decoded === 'string') lines.push(`  value (Avro): not decoded: ${decoded}`);
  else if (decoded) lines.push(`  value (Avro ${decoded.recordName}, schema id ${decoded.schemaId}): ${JSON.stringify(decoded.value)}`);
  return lines.join('\n');
}

/** The original value as Avro, when a registry is given: the record, or why it is not one. */
export async function decodeAvro(codec: AvroCodec | undefined, value: Buffer | null | undefined): Promise<DecodedValue | string | undefined> {
  if (!codec || !value) return undefined;
  try {
    const decoded = await codec.decode(value);
    return { recordName: decoded.recordName, schemaId: decoded.schemaId, value: plain(decoded.value) };
  } catch (error) {
    return (error as Error).message;
  }
}

export const codecFor = (config: DlqAdminConfig): AvroCodec | undefined => (config.schemaRegistryUrl ? new AvroCodec(config.schemaRegistryUrl) : undefined);

/** A file of dead letters, one JSON object per line: { key: text | null, value: base64 | null, headers: { name: text } }. */
export function parseDeadLetterFile(name: string, text: string): DeadLetterRecord[] {
  return text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => {
      const parsed = JSON.parse(line) as { key?: string | null; value?: string | null; headers?: Record<string, string> };
      return {
        at: `${name}:${number}`,
        key: parsed.key === undefined || parsed.key === null ? null : Buffer.from(parsed.key, 'utf8'),
        value: parsed.value === undefined || parsed.value === null ? null : Buffer.from(parsed.value, 'base64'),
        headers: parsed.headers ?? {},
      };
    });
}

/**
 * Up to `count` dead letters of each selected partition from `offset` (default: the oldest kept), read with a
 * throw-away consumer group that commits nothing.
 */
export async function readDeadLetters(config: DlqAdminConfig, selection: Omit<TopicSelection, 'groupId'>, log: Logger): Promise<DeadLetterRecord[]> {
  const topic = config.deadLetterTopic;
  const read = await readTopicRange({ ...config.kafka, log }, topic, { ...selection, groupId: `wholesale-admin-${randomUUID()}` });
  return read.map(({ partition, record }) => ({ at: `${topic}/${partition}@${record.offset}`, key: record.key, value: record.value, headers: record.headers ?? {} }));
}
