/**
 * kafkajs 2.2.4 encodes every request, record batch and record with an Encoder that starts with a zero-filled
 * 512-byte Buffer.alloc (a new ArrayBuffer each, outside Node's buffer pool), grows by zero-filled copies,
 * and writes each varint through a fresh array and Buffer.from. A reply of the service is a record of
 * ~1 KB with a dozen varints: in the worker's profile at saturation these allocations were ~4 % of its
 * CPU (FastBuffer under Encoder and ensureAvailable) on top of the garbage collection they cause.
 *
 * Here an Encoder starts empty, grows with Buffer.allocUnsafe (slices of Node's pool below 4 KiB), writes
 * varints in place, and appends a record batch's records after one growth for all of them. The bytes are
 * the same (test/unit/adapters/pooled-encoder.test.ts compares them with kafkajs's own over random values):
 * every Encoder write lands at its offset, and only the bytes below it are ever read (`get buffer`), so
 * memory it has not written yet need not be zeroed.
 * `npm run bench:encode` (docs/benchmarks.md, tenth round): a 24-record produce request took 672-823 µs of
 * CPU to encode, 384-409 patched.
 */

/** The parts of kafkajs's Encoder this file touches. */
export interface KafkaEncoder {
  buf: Buffer;
  offset: number;
  ensureAvailable(length: number): void;
  writeUVarInt(value: number): KafkaEncoder;
  writeEncoder(value: KafkaEncoder): KafkaEncoder;
  writeEncoderArray(values: KafkaEncoder[]): KafkaEncoder;
}

interface EncoderClass {
  nextPowerOfTwo(value: number): number;
  prototype: KafkaEncoder & { [INSTALLED]?: true };
}

const INSTALLED = Symbol.for('wholesale.pooledEncoder');
/** The smallest buffer an Encoder grows to, as kafkajs's default initial size. */
const FIRST_SIZE = 512;

/** Grows to the next power of two that holds `length` more bytes, copying only what was written. */
export function ensureAvailable(this: KafkaEncoder, length: number): void {
  const needed = this.offset + length;
  if (needed <= this.buf.length) return;
  let size = FIRST_SIZE;
  while (size < needed) size *= 2;
  const grown = Buffer.allocUnsafe(size);
  this.buf.copy(grown, 0, 0, this.offset);
  this.buf = grown;
}

/** LEB128, as kafkajs's writeUVarInt (32-bit values), written in place. */
export function writeUVarInt(this: KafkaEncoder, value: number): KafkaEncoder {
  this.ensureAvailable(5);
  while ((value & 0xffffff80) !== 0) {
    this.buf[this.offset++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  this.buf[this.offset++] = value & 0x7f;
  return this;
}

const isEncoder = (value: unknown): value is KafkaEncoder => value != null && Buffer.isBuffer((value as KafkaEncoder).buf);

/** Appends another encoder's bytes, copied once from its buffer (kafkajs slices it first). */
export function writeEncoder(this: KafkaEncoder, value: KafkaEncoder): KafkaEncoder {
  if (!isEncoder(value)) throw new Error('value should be an instance of Encoder');
  this.ensureAvailable(value.offset);
  this.offset += value.buf.copy(this.buf, this.offset, 0, value.offset);
  return this;
}

/** Appends encoders (a record batch's records), growing once for all of them instead of once per doubling. */
export function writeEncoderArray(this: KafkaEncoder, values: KafkaEncoder[]): KafkaEncoder {
  if (!Array.isArray(values) || !values.every(isEncoder)) throw new Error('all values should be an instance of Encoder[]');
  this.ensureAvailable(values.reduce((sum, value) => sum + value.offset, 0));
  for (const value of values) this.offset += value.buf.copy(this.buf, this.offset, 0, value.offset);
  return this;
}

/** Patches kafkajs's Encoder once per process; later calls do nothing. */
export function installPooledEncoder(): void {
  // kafkajs's internals have no typed entry point; this is the module instance kafkajs itself loads
  const encoder = require('kafkajs/src/protocol/encoder') as Partial<EncoderClass>;
  const prototype = encoder.prototype;
  const methods = ['ensureAvailable', 'writeUVarInt', 'writeEncoder', 'writeEncoderArray'] as const;
  if (typeof encoder.nextPowerOfTwo !== 'function' || !prototype || methods.some((name) => typeof prototype[name] !== 'function')) {
    throw new Error(`kafkajs internals changed: its Encoder lacks nextPowerOfTwo or one of ${methods.join(', ')}; see src/adapters/kafka/pooled-encoder.ts`);
  }
  if (prototype[INSTALLED]) return;
  // The constructor allocates Buffer.alloc(Encoder.nextPowerOfTwo(initialSize)), its only other caller being
  // the ensureAvailable replaced here: answering 0 makes that first buffer empty, and the first write takes
  // one from the pool instead.
  encoder.nextPowerOfTwo = () => 0;
  prototype.ensureAvailable = ensureAvailable;
  prototype.writeUVarInt = writeUVarInt;
  prototype.writeEncoder = writeEncoder;
  prototype.writeEncoderArray = writeEncoderArray;
  prototype[INSTALLED] = true;
}
