import { randomBytes } from 'node:crypto';
import type { KafkaMessage } from 'kafkajs';
import type { DecodedRecord } from './record-decoder';

/**
 * A compressed record batch the consumer does not inflate (bounded-codecs.ts) becomes one placeholder record
 * in the fetch (fetch-messages.ts): at the batch's last offset, without key or value, with a header naming
 * why and the offsets it spans. The worker dead-letters it (`refusalOf`) and the partition goes on.
 */
const REFUSAL_HEADER = 'x-wholesale-batch-refused';
/** Placeholders carry this process's secret, so a producer cannot forge a refusal. */
const SECRET = randomBytes(16).toString('hex');

/** Thrown by a codec for a batch it does not inflate; `detail` says why. */
export class BatchRefused extends Error {
  constructor(readonly detail: string) {
    super(`compressed record batch refused: ${detail}`);
    this.name = 'BatchRefused';
  }
}

/**
 * A record batch's header, from its first byte: base offset, length, leader epoch, magic, CRC, attributes,
 * last offset delta, first and max timestamps, producer id and epoch, base sequence, record count.
 */
const AT = { leaderEpoch: 12, magic: 16, attributes: 21, lastOffsetDelta: 23, firstTimestamp: 27, maxTimestamp: 35, producerId: 43, producerEpoch: 51, firstSequence: 53, count: 57 } as const;
const TIMESTAMP_TYPE_FLAG = 0x08;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;

/**
 * The refused batch starting at `batch` (a view from its base offset) as kafkajs would decode one record of
 * it: at the batch's last offset, so committing it moves past the whole batch (and a fetch from the middle
 * of the batch still gets it), in the batch's context (its transaction, to be filtered as kafkajs would).
 */
export function refusalPlaceholder(batch: Buffer, detail: string): DecodedRecord {
  const firstOffset = batch.readBigInt64BE(0);
  const lastOffset = firstOffset + BigInt(batch.readInt32BE(AT.lastOffsetDelta));
  const attributes = batch.readInt16BE(AT.attributes);
  const count = batch.readInt32BE(AT.count);
  const firstTimestamp = batch.readBigInt64BE(AT.firstTimestamp).toString();
  const batchContext = {
    firstOffset: firstOffset.toString(),
    firstTimestamp,
    partitionLeaderEpoch: batch.readInt32BE(AT.leaderEpoch),
    inTransaction: (attributes & TRANSACTIONAL_FLAG) > 0,
    isControlBatch: (attributes & CONTROL_FLAG) > 0,
    lastOffsetDelta: batch.readInt32BE(AT.lastOffsetDelta),
    producerId: batch.readBigInt64BE(AT.producerId).toString(),
    producerEpoch: batch.readInt16BE(AT.producerEpoch),
    firstSequence: batch.readInt32BE(AT.firstSequence),
    maxTimestamp: batch.readBigInt64BE(AT.maxTimestamp).toString(),
    timestampType: (attributes & TIMESTAMP_TYPE_FLAG) > 0 ? 1 : 0,
    magicByte: batch.readInt8(AT.magic),
  };
  const spans = `${count} record${count === 1 ? '' : 's'} at offsets ${firstOffset}–${lastOffset}`;
  return {
    magicByte: batchContext.magicByte,
    attributes: 0,
    timestamp: firstTimestamp,
    offset: lastOffset.toString(),
    key: null,
    value: null,
    headers: { [REFUSAL_HEADER]: Buffer.from(`${SECRET} ${detail}; its ${spans} skipped`) },
    isControlRecord: batchContext.isControlBatch,
    batchContext,
  };
}

/** Why the worker must dead-letter this record, when it is the placeholder of a refused batch. */
export function refusalOf(message: Pick<KafkaMessage, 'headers'>): string | undefined {
  const raw = message.headers?.[REFUSAL_HEADER];
  const text = (Array.isArray(raw) ? raw[0] : raw)?.toString();
  return text?.startsWith(`${SECRET} `) ? text.slice(SECRET.length + 1) : undefined;
}
