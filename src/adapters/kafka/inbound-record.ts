import type { Message } from '@platformatic/kafka';
import type { InboundRecord, RecordHeaders } from '../../contract/transport';

/** A record as the client hands it over (Buffers for key, value and headers). */
export type ConsumedRecord = Pick<Message<Buffer, Buffer, Buffer, Buffer>, 'key' | 'value' | 'headerEntries' | 'offset' | 'timestamp'>;

/**
 * A record's headers by name, every value of a repeated name kept in order. Linear in the headers: a
 * record may carry 150,000 values of one name (test/integration/hostile-input.test.ts), and copying the
 * array per value (kafkajs's decoder does) would block the event loop for minutes.
 */
export const headersOf = (record: Pick<ConsumedRecord, 'headerEntries'>): RecordHeaders | undefined => {
  if (record.headerEntries.length === 0) return undefined;
  const headers = Object.create(null) as RecordHeaders;
  for (const [name, value] of record.headerEntries) {
    const key = name.toString();
    const previous = headers[key];
    if (previous === undefined) headers[key] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else headers[key] = [previous, value];
  }
  return headers;
};

/** The record in the transport's vocabulary (offsets and timestamps as text). */
export const inbound = (record: ConsumedRecord): InboundRecord => ({
  key: record.key ?? null,
  value: record.value ?? null,
  headers: headersOf(record),
  offset: record.offset.toString(),
  timestamp: record.timestamp.toString(),
});
