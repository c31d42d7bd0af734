import { MalformedFraming } from './inflation-errors';

// The framing of a Kafka Snappy batch, read without inflating it. A batch is raw Snappy (librdkafka, the
// Node clients) or xerial-framed (Kafka's Java producer): the magic 0x82 'SNAPPY' 0, a version and a
// compatible version (4 bytes each), then chunks of [4-byte big-endian length][raw Snappy]. Raw Snappy
// starts with the varint of its uncompressed length, which a decoder must produce exactly, so the sum of
// the declared lengths is what the batch inflates to, known before anything is inflated.

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = XERIAL_MAGIC.length + 8;
const CHUNK_LENGTH_BYTES = 4;
/** A uint32 takes at most 5 varint bytes; Snappy lengths are uint32. */
const MAX_VARINT_BYTES = 5;

export interface SnappyChunks {
  /** The raw Snappy streams, in order. */
  readonly chunks: readonly Buffer[];
  /** What they inflate to, together: the sum of their declared lengths. */
  readonly declaredBytes: number;
}

export const isXerialFramed = (compressed: Buffer): boolean => compressed.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);

/** The uncompressed length a raw Snappy stream declares (its leading little-endian base-128 varint). */
export function declaredSnappyLength(raw: Buffer): number {
  let length = 0;
  for (let i = 0; i < Math.min(raw.length, MAX_VARINT_BYTES); i++) {
    const byte = raw[i];
    length += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) {
      if (length > 0xffffffff) throw new MalformedFraming('snappy length beyond 32 bits');
      return length;
    }
  }
  throw new MalformedFraming(raw.length < MAX_VARINT_BYTES ? 'snappy length cut short' : 'snappy length longer than 5 bytes');
}

/** The raw Snappy chunks of a batch and the length they declare together; MalformedFraming when they cannot be read. */
export function snappyChunksOf(compressed: Buffer): SnappyChunks {
  if (!isXerialFramed(compressed)) return { chunks: [compressed], declaredBytes: declaredSnappyLength(compressed) };
  if (compressed.length < XERIAL_HEADER_BYTES) throw new MalformedFraming('xerial header cut short');
  const chunks: Buffer[] = [];
  let declaredBytes = 0;
  for (let offset = XERIAL_HEADER_BYTES; offset < compressed.length;) {
    if (offset + CHUNK_LENGTH_BYTES > compressed.length) throw new MalformedFraming(`xerial chunk length cut short at byte ${offset}`);
    const length = compressed.readUInt32BE(offset);
    offset += CHUNK_LENGTH_BYTES;
    if (length === 0 || offset + length > compressed.length) {
      throw new MalformedFraming(`xerial chunk of ${length} bytes at byte ${offset} (${compressed.length - offset} left)`);
    }
    const chunk = compressed.subarray(offset, offset + length);
    chunks.push(chunk);
    declaredBytes += declaredSnappyLength(chunk);
    offset += length;
  }
  return { chunks, declaredBytes };
}
