import { replaceKafkajsModule } from './kafkajs-module';

/**
 * kafkajs 2.2.4 encodes each produced record (protocol/recordBatch/record/v0) through a flatMap of its
 * headers into objects, a new Encoder per header appended to the record's, the timestamp delta as a 64-bit
 * varint through Long arithmetic, and each header's sizes measured twice. The worker produces one or two
 * records per command: in its profile at saturation the records were ~6 % of its CPU.
 *
 * `encodeRecord` writes the same bytes (test/unit/adapters/record-encoder.test.ts compares them with
 * kafkajs's own over random records) into one Encoder sized once, headers in place, and a timestamp delta
 * within int32 as the 32-bit varint it equals (zigzag of such a value is the same in 32 and 64 bits).
 * A 24-record micro-benchmark: 201-210 µs of CPU with kafkajs's, 97-104 with this (docs/benchmarks.md,
 * eleventh round).
 *
 * kafkajs's produce request captures the record function when its module loads (lazily, at the first
 * produce request), so this is installed before that (kafkajs-module.ts): from createKafka.
 */

/** The parts of kafkajs's Encoder this file uses. */
interface Encoder {
  /** What was written. */
  readonly buffer: Buffer;
  ensureAvailable(length: number): void;
  writeVarInt(value: number): Encoder;
  writeInt8(value: number): Encoder;
  writeVarLong(value: unknown): Encoder;
  writeVarIntBytes(value: unknown): Encoder;
  writeVarIntString(value: string): Encoder;
}

interface EncoderClass {
  new (): Encoder;
  sizeOfVarInt(value: number): number;
  sizeOfVarLong(value: unknown): number;
  sizeOfVarIntBytes(value: unknown): number;
}

type HeaderValue = string | Buffer;

export interface RecordFields {
  offsetDelta?: number;
  timestampDelta?: unknown;
  key?: unknown;
  value?: unknown;
  headers?: Record<string, HeaderValue | HeaderValue[]>;
}

const ENCODER = 'kafkajs/src/protocol/encoder';
const RECORD = 'kafkajs/src/protocol/recordBatch/record/v0';
const PRODUCE_REQUEST = 'kafkajs/src/protocol/requests/produce/v3/request';

/** A delta within int32 is the same varint through kafkajs's 32-bit zigzag (which writes it as unsigned) as through its 64-bit one. */
const isInt32 = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;

/** Calls `each` for every header as kafkajs flattens them: an array value is one header per element. */
function forEachHeader(headers: RecordFields['headers'], each: (name: string, value: HeaderValue) => void): void {
  for (const name of Object.keys(headers!)) {
    const value = headers![name]!;
    if (Array.isArray(value)) for (const one of value) each(name, one);
    else each(name, value);
  }
}

/** kafkajs's Record, the same bytes: `Encoder` is kafkajs's own (patched or not). */
export function encodeRecord(Encoder: EncoderClass, { offsetDelta = 0, timestampDelta = 0, key, value, headers = {} }: RecordFields): Encoder {
  let count = 0;
  let headerBytes = 0;
  forEachHeader(headers, (name, one) => {
    // Buffer.byteLength throws on a null value, as kafkajs's own sizing does
    const nameSize = Buffer.byteLength(name);
    const valueSize = Buffer.byteLength(one);
    count++;
    headerBytes += Encoder.sizeOfVarInt(nameSize) + nameSize + Encoder.sizeOfVarInt(valueSize) + valueSize;
  });
  const small = isInt32(timestampDelta);
  const body =
    1 + // attributes
    (small ? Encoder.sizeOfVarInt(timestampDelta) : Encoder.sizeOfVarLong(timestampDelta)) +
    Encoder.sizeOfVarInt(offsetDelta) +
    Encoder.sizeOfVarIntBytes(key) +
    Encoder.sizeOfVarIntBytes(value) +
    Encoder.sizeOfVarInt(count) +
    headerBytes;
  const encoder = new Encoder();
  encoder.ensureAvailable(Encoder.sizeOfVarInt(body) + body);
  encoder.writeVarInt(body).writeInt8(0);
  if (small) encoder.writeVarInt(timestampDelta);
  else encoder.writeVarLong(timestampDelta);
  encoder.writeVarInt(offsetDelta).writeVarIntBytes(key).writeVarIntBytes(value).writeVarInt(count);
  forEachHeader(headers, (name, one) => encoder.writeVarIntString(name).writeVarIntBytes(one));
  return encoder;
}

/**
 * Puts encodeRecord where kafkajs's produce request will load its record function from; once per process.
 * False when that request module was loaded already (it keeps kafkajs's own record function): only slower.
 */
export function installRecordEncoder(): boolean {
  return replaceKafkajsModule<unknown>(RECORD, PRODUCE_REQUEST, (kafkajsRecord) => {
    const Encoder = require(ENCODER) as EncoderClass;
    if (typeof kafkajsRecord !== 'function' || typeof Encoder.sizeOfVarLong !== 'function') {
      throw new Error('kafkajs internals changed: its record or Encoder is not the one record-encoder.ts replaces');
    }
    return (fields: RecordFields) => encodeRecord(Encoder, fields);
  });
}
