import { replaceKafkajsModule } from './kafkajs-module';
import type { DecodedRecord } from './record-decoder';
import { BatchRefused, refusalRecord } from './refused-batch';

/**
 * kafkajs 2.2.4 gathers the records of a fetched partition's record batches with
 * `records.push(...recordBatch.records)` (protocol/requests/fetch/v4/decodeMessages): a spread call, whose
 * arguments V8 puts on the stack. A batch of ~125,000 records or more — a gzip batch of that many empty
 * records is a few kilobytes, within any broker's size limit, and any partner may send one — throws
 * "Maximum call stack size exceeded" out of the fetch: kafkajs's consumer crashes, restarts, fetches the
 * same batch and crashes again, and every partition of the worker stalls for good.
 *
 * `decodeMessages` is kafkajs's own with the records appended one by one: the same records
 * (test/unit/adapters/fetch-messages.test.ts compares them with kafkajs's own), of any number. A compressed
 * batch its codec refused (bounded-codecs.ts) becomes one placeholder record (refused-batch.ts) instead of
 * failing the fetch.
 */

const DECODE_MESSAGES = 'kafkajs/src/protocol/requests/fetch/v4/decodeMessages';
/** The fetch responses that bind decodeMessages when they load (v4's own, and those built on it). */
const FETCH_RESPONSES = [4, 5, 7, 8, 11].map((version) => `kafkajs/src/protocol/requests/fetch/v${version}/response`);

/** The parts of kafkajs's Decoder this file uses. */
interface Decoder {
  offset: number;
  readInt32(): number;
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer;
}
type DecoderClass = new (buffer: Buffer) => Decoder;
type BatchDecoder = (decoder: Decoder) => Promise<{ records: unknown[] }>;
type MessageSetDecoder = (decoder: Decoder, size: number) => unknown;

// As kafkajs: the magic byte sits at the same offset in every message format; a record batch has 49 bytes of overhead.
const MAGIC_OFFSET = 16;
const RECORD_BATCH_OVERHEAD = 49;
const RECORD_BATCH_MAGIC = 2;

interface KafkajsParts {
  Decoder: DecoderClass;
  decodeBatch: BatchDecoder;
  decodeMessageSet: MessageSetDecoder;
}

/** kafkajs's parts, loaded at the first fetch: the record batch decoder must load after the record decoder is replaced. */
let parts: KafkajsParts | undefined;
const kafkajsParts = (): KafkajsParts =>
  (parts ??= {
    Decoder: require('kafkajs/src/protocol/decoder') as DecoderClass,
    decodeBatch: require('kafkajs/src/protocol/recordBatch/v0/decoder') as BatchDecoder,
    decodeMessageSet: require('kafkajs/src/protocol/messageSet/decoder') as MessageSetDecoder,
  });

/** kafkajs's decodeMessages: one partition's fetched bytes as records. */
export async function decodeMessages(decoder: Decoder, { Decoder: MessagesDecoder, decodeBatch, decodeMessageSet }: KafkajsParts = kafkajsParts()): Promise<unknown> {
  const messagesSize = decoder.readInt32();
  if (messagesSize <= 0 || !decoder.canReadBytes(messagesSize)) return [];
  const messagesBuffer = decoder.readBytes(messagesSize);
  const messagesDecoder = new MessagesDecoder(messagesBuffer);
  const magicByte = messagesBuffer.subarray(MAGIC_OFFSET).readInt8(0);
  if (magicByte !== RECORD_BATCH_MAGIC) return decodeMessageSet(messagesDecoder, messagesSize);
  const records: unknown[] = [];
  while (messagesDecoder.canReadBytes(RECORD_BATCH_OVERHEAD)) {
    let batch: { records: unknown[] };
    const batchStart = messagesDecoder.offset;
    try {
      batch = await decodeBatch(messagesDecoder);
    } catch (error) {
      // the tail of a fetch may hold a partial batch (how maxBytes works): what came before it is returned
      if ((error as Error)?.name === 'KafkaJSPartialMessageError') break;
      // kafkajs moved past the whole batch before inflating its records
      if (error instanceof BatchRefused) batch = { records: [refusalPlaceholder(messagesBuffer.subarray(batchStart), error.detail)] };
      else throw error;
    }
    for (const record of batch.records) records.push(record);
  }
  return records;
}

/**
 * A record batch's header, from its first byte: base offset, length, leader epoch, magic, CRC, attributes,
 * last offset delta, first and max timestamps, producer id and epoch, base sequence, record count.
 */
const AT = { leaderEpoch: 12, magic: 16, attributes: 21, lastOffsetDelta: 23, firstTimestamp: 27, maxTimestamp: 35, producerId: 43, producerEpoch: 51, firstSequence: 53 } as const;
const TIMESTAMP_TYPE_FLAG = 0x08;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;

/**
 * The refused batch starting at `batch` (a view from its base offset) as kafkajs would decode one record of
 * it: the placeholder of refused-batch.ts, in the batch's context (its transaction, to be filtered as kafkajs would).
 */
function refusalPlaceholder(batch: Buffer, detail: string): DecodedRecord {
  const first = batch.readBigInt64BE(0);
  const last = first + BigInt(batch.readInt32BE(AT.lastOffsetDelta));
  const attributes = batch.readInt16BE(AT.attributes);
  const firstTimestamp = batch.readBigInt64BE(AT.firstTimestamp).toString();
  const placeholder = refusalRecord({ first, last, detail });
  const batchContext = {
    firstOffset: first.toString(),
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
  return {
    magicByte: batchContext.magicByte,
    attributes: 0,
    timestamp: firstTimestamp,
    offset: placeholder.offset,
    key: null,
    value: null,
    headers: placeholder.headers as DecodedRecord['headers'],
    isControlRecord: batchContext.isControlBatch,
    batchContext,
  };
}

/**
 * Puts decodeMessages where kafkajs's fetch responses will load it from; once per process. False when one
 * of them was loaded already (it keeps kafkajs's own): batches of that many records then still crash it.
 */
export function installFetchMessages(): boolean {
  return replaceKafkajsModule<unknown>(DECODE_MESSAGES, FETCH_RESPONSES, (kafkajsDecodeMessages) => {
    if (typeof kafkajsDecodeMessages !== 'function') throw new Error('kafkajs internals changed: its decodeMessages is not the one fetch-messages.ts replaces');
    return (decoder: Decoder) => decodeMessages(decoder);
  });
}
