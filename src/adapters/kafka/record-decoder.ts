import { replaceKafkajsModule } from './kafkajs-module';

/**
 * kafkajs 2.2.4 decodes each fetched record (protocol/recordBatch/record/v0/decoder) with Long arithmetic for
 * its timestamp and offset (parsing the batch's first timestamp and offset from their decimal text for every
 * record) and gathers its headers with a reduce that copies the headers object once per header. Every
 * command the worker handles, and every reply or event a client reads, is such a record.
 *
 * `decodeRecord` returns the same record (test/unit/adapters/record-decoder.test.ts compares it with
 * kafkajs's own over random records and batch contexts): the sums in plain numbers when they are safe
 * integers (Long otherwise, as kafkajs), the headers gathered in one object, the values of a repeated name
 * into one growing array (kafkajs copies it per value). kafkajs's quirks are kept: it reads an existing
 * header through the object, so a header named after an Object.prototype member ("constructor") starts an
 * array with that member, and a header named "__proto__" is an own property, not the prototype.
 */

const RECORD_DECODER = 'kafkajs/src/protocol/recordBatch/record/v0/decoder';
const BATCH_DECODER = 'kafkajs/src/protocol/recordBatch/v0/decoder';
const LONG = 'kafkajs/src/utils/long';
/** kafkajs's TimestampTypes.LOG_APPEND_TIME. */
const LOG_APPEND_TIME = 1;

/** The parts of kafkajs's Decoder this file uses. */
export interface KafkaDecoder {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): LongValue;
  readVarIntString(): string | null;
  readVarIntBytes(): Buffer | null;
}

interface LongValue {
  add(other: LongValue | number): LongValue;
  toString(): string;
}
interface LongClass {
  fromValue(value: unknown): LongValue;
}

/** What kafkajs's record batch decoder passes each record (its texts are Int64s in decimal). */
export interface BatchContext {
  firstOffset?: string;
  firstTimestamp?: string;
  magicByte?: number;
  isControlBatch?: boolean;
  timestampType?: number;
  maxTimestamp?: string;
  [other: string]: unknown;
}

type Headers = Record<string, Buffer | null | unknown[]>;

export interface DecodedRecord {
  magicByte: number | undefined;
  attributes: number;
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Headers;
  isControlRecord: boolean;
  batchContext: BatchContext;
}

/** The most varint bytes read here as a number: 7 × 7 = 49 bits, exact in a double; longer ones go through Long. */
const NUMERIC_VARLONG_BYTES = 7;

/**
 * A zigzag varlong of at most 49 bits as a number, the decoder moved past it; undefined (not moved) when it is
 * longer. A byte beyond the buffer reads as 0 and ends it, as kafkajs's readVarLong does.
 */
function readNumericVarLong(decoder: KafkaDecoder): number | undefined {
  const { buffer } = decoder;
  let at = decoder.offset;
  let unsigned = 0;
  for (let i = 0; i < NUMERIC_VARLONG_BYTES; i++) {
    const byte = buffer[at++];
    unsigned += ((byte ?? 0) & 0x7f) * 2 ** (7 * i);
    if (byte === undefined || byte < 0x80) {
      decoder.offset = at;
      return unsigned % 2 === 0 ? unsigned / 2 : -(unsigned + 1) / 2;
    }
  }
  return undefined;
}

/** `base` (an Int64 in decimal) + `delta`, in decimal: in numbers when exact, else as kafkajs does, in Long. */
function sum(Long: LongClass, base: string | undefined, delta: number | LongValue): string {
  if (typeof delta === 'number') {
    const value = Number(base) + delta;
    if (Number.isSafeInteger(value) && Number.isSafeInteger(Number(base))) return String(value);
  }
  return Long.fromValue(base).add(delta).toString();
}

function decodeHeaders(decoder: KafkaDecoder): Headers {
  const headers: Headers = {};
  for (let count = decoder.readVarInt(); count > 0; count--) {
    const key = decoder.readVarIntString() as string;
    const value = decoder.readVarIntBytes();
    const existing = headers[key];
    // kafkajs concatenates into a new array per value (quadratic again, in the values of one name); an
    // array here is always one made here, so it grows in place
    const gathered = existing === undefined ? value : Array.isArray(existing) ? (existing.push(value), existing) : [existing, value];
    if (key === '__proto__') Object.defineProperty(headers, key, { value: gathered, writable: true, enumerable: true, configurable: true });
    else headers[key] = gathered;
  }
  return headers;
}

/** kafkajs's record decoder, the same record; `Long` is kafkajs's own. */
export function decodeRecord(Long: LongClass, decoder: KafkaDecoder, batchContext: BatchContext = {}): DecodedRecord {
  const { firstOffset, firstTimestamp, magicByte, isControlBatch = false, timestampType, maxTimestamp } = batchContext;
  const attributes = decoder.readInt8();
  const timestampDelta = readNumericVarLong(decoder) ?? decoder.readVarLong();
  const timestamp = timestampType === LOG_APPEND_TIME && maxTimestamp ? maxTimestamp : sum(Long, firstTimestamp, timestampDelta);
  const offset = sum(Long, firstOffset, decoder.readVarInt());
  const key = decoder.readVarIntBytes();
  const value = decoder.readVarIntBytes();
  const headers = decodeHeaders(decoder);
  return { magicByte, attributes, timestamp, offset, key, value, headers, isControlRecord: isControlBatch, batchContext };
}

/**
 * Puts decodeRecord where kafkajs's record batch decoder will load its record decoder from; once per process.
 * False when that module was loaded already (it keeps kafkajs's own): only slower.
 */
export function installRecordDecoder(): boolean {
  return replaceKafkajsModule<unknown>(RECORD_DECODER, BATCH_DECODER, (kafkajsDecoder) => {
    const Long = require(LONG) as LongClass;
    if (typeof kafkajsDecoder !== 'function' || typeof Long.fromValue !== 'function') {
      throw new Error('kafkajs internals changed: its record decoder or Long is not the one record-decoder.ts replaces');
    }
    return (decoder: KafkaDecoder, batchContext?: BatchContext) => decodeRecord(Long, decoder, batchContext);
  });
}
