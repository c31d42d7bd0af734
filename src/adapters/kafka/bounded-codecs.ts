import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip, unzip } from 'node:zlib';
import { CompressionCodecs, CompressionTypes, type KafkaMessage } from 'kafkajs';

/**
 * The decompression of fetched record batches, bounded. kafkajs inflates a compressed batch whole, inside
 * the decoding of the fetch response, with no limit (a 300 KB gzip batch became a 300 MB record, held
 * until the worker restarted), and has no Snappy, LZ4 or zstd codec: such a batch threw out of the fetch
 * and stopped the consumer for good, on every restart. An exception cannot be the answer either: it fails
 * the whole fetch, every partition with it. So a batch that cannot be inflated within the limit, or with a
 * codec this process has, is decoded as placeholder records instead — one per record of the batch, at the
 * batch's offsets, without key or value, carrying a header that names why — and the worker dead-letters
 * them (`refusalOf`), so the batch is skipped with a dead letter per offset and the partition goes on.
 *
 * kafkajs hands a codec only the compressed bytes; the record count and last offset delta the placeholders
 * need are read from the batch header just before them (the bytes are a view into the fetch response, as
 * kafkajs 2.2.4 decodes it: test/unit/adapters/bounded-codecs.test.ts pins that layout).
 */
const REFUSAL_HEADER = 'x-wholesale-batch-refused';
/** Placeholders carry this process's secret, so a producer cannot forge a refusal. */
const SECRET = randomBytes(16).toString('hex');
/**
 * A batch's header before its records: base offset, length, leader epoch, magic, CRC, attributes, last
 * offset delta (at 23), timestamps, producer id and epoch, base sequence, record count (at 57).
 */
const BATCH_HEADER_BYTES = 61;
const LAST_OFFSET_DELTA_AT = 23;
const RECORD_COUNT_AT = 57;

const inflate = promisify(unzip);
const deflate = promisify(gzip);

/** Zig-zag varint, as the record format writes lengths, deltas and counts. */
export function varint(value: number): Buffer {
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  do {
    let byte = zigzag % 128;
    zigzag = Math.floor(zigzag / 128);
    if (zigzag > 0) byte |= 0x80;
    bytes.push(byte);
  } while (zigzag > 0);
  return Buffer.from(bytes);
}

/** One record without key and value whose only header names the refusal; at `offsetDelta` in its batch. */
function placeholder(offsetDelta: number, reason: Buffer): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]), // attributes
    varint(0), // timestamp delta
    varint(offsetDelta),
    varint(-1), // key: null
    varint(-1), // value: null
    varint(1), // one header
    varint(REFUSAL_HEADER.length),
    Buffer.from(REFUSAL_HEADER),
    varint(reason.length),
    reason,
  ]);
  return Buffer.concat([varint(body.length), body]);
}

/** The batch's records as placeholders: as many as it holds, at its last offsets (all of them unless compacted). */
export function placeholderRecords(compressed: Buffer, detail: string): { records: Buffer; count: number } {
  if (compressed.byteOffset < BATCH_HEADER_BYTES) throw new Error(`cannot refuse a compressed batch without its header: ${detail}`);
  const header = Buffer.from(compressed.buffer, compressed.byteOffset - BATCH_HEADER_BYTES, BATCH_HEADER_BYTES);
  const lastOffsetDelta = header.readInt32BE(LAST_OFFSET_DELTA_AT);
  const count = header.readInt32BE(RECORD_COUNT_AT);
  const reason = Buffer.from(`${SECRET} ${detail}`);
  return { records: Buffer.concat(Array.from({ length: count }, (_, i) => placeholder(lastOffsetDelta - count + 1 + i, reason))), count };
}

/** Why the worker must dead-letter this record, when it is a placeholder of a refused batch. */
export function refusalOf(message: Pick<KafkaMessage, 'headers'>): string | undefined {
  const raw = message.headers?.[REFUSAL_HEADER];
  const text = (Array.isArray(raw) ? raw[0] : raw)?.toString();
  return text?.startsWith(`${SECRET} `) ? text.slice(SECRET.length + 1) : undefined;
}

export interface BoundedCodecOptions {
  /** A batch inflating beyond this is refused (MAX_DECOMPRESSED_BATCH_BYTES). */
  maxInflatedBytes: number;
  /** Told of each refused batch: why, and how many records it held. */
  onRefused?: (detail: string, records: number) => void;
}

/**
 * Registers, for this process's kafkajs, a gzip codec that inflates at most `maxInflatedBytes` and codecs
 * for Snappy, LZ4 and zstd that inflate nothing: their batches are refused as above.
 */
export function registerBoundedCodecs(options: BoundedCodecOptions): void {
  const refuse = (compressed: Buffer, detail: string): Buffer => {
    const { records, count } = placeholderRecords(compressed, detail);
    options.onRefused?.(detail, count);
    return records;
  };
  const bounded = {
    compress: (encoder: { buffer: Buffer }) => deflate(encoder.buffer),
    decompress: async (compressed: Buffer) => {
      try {
        return await inflate(compressed, { maxOutputLength: options.maxInflatedBytes });
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        return refuse(compressed, tooLarge ? `gzip batch inflates beyond ${options.maxInflatedBytes} bytes (MAX_DECOMPRESSED_BATCH_BYTES)` : `gzip batch does not inflate: ${(error as Error).message}`);
      }
    },
  };
  const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
  codecs[CompressionTypes.GZIP] = () => bounded;
  for (const [type, name] of [[CompressionTypes.Snappy, 'snappy'], [CompressionTypes.LZ4, 'lz4'], [CompressionTypes.ZSTD, 'zstd']] as const) {
    const unsupported = {
      compress: () => Promise.reject(new Error(`this service does not compress with ${name}`)),
      decompress: async (compressed: Buffer) => refuse(compressed, `${name} batch: this worker has no ${name} codec`),
    };
    codecs[type] = () => unsupported;
  }
}
