import { compressSync } from 'snappy';

// Snappy as Kafka's Java producer writes it (snappy-java's SnappyOutputStream, the xerial framing): the
// magic 0x82 'SNAPPY' 0, version 1 and compatible version 1 (4 bytes each, big-endian), then each chunk of
// at most 32 KiB of the input as [4-byte big-endian length][raw Snappy].

export const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
const CHUNK_BYTES = 32 * 1024;

const lengthOf = (chunk: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(chunk.length);
  return length;
};

/** The xerial framing of already compressed chunks (any bytes: a test's malformed ones too). */
export const xerialFramed = (chunks: readonly Buffer[]): Buffer => Buffer.concat([XERIAL_HEADER, ...chunks.flatMap((chunk) => [lengthOf(chunk), chunk])]);

/** `data` compressed as the Java producer does. */
export function xerialSnappy(data: Buffer): Buffer {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += CHUNK_BYTES) chunks.push(compressSync(data.subarray(offset, offset + CHUNK_BYTES)));
  return xerialFramed(chunks);
}
