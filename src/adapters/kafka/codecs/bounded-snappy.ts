import { uncompressSync } from 'snappy';
import { beyondBound } from './inflation-errors';
import { snappyChunksOf } from './snappy-framing';

// A Snappy batch (raw or xerial-framed) inflated within `maxOutputLength`, refused before any inflating when
// its chunks declare more: a Snappy decoder produces exactly the length a chunk declares, or fails.

export function inflateSnappy(compressed: Buffer, { maxOutputLength }: { maxOutputLength: number }): Buffer {
  const { chunks, declaredBytes } = snappyChunksOf(compressed);
  if (declaredBytes > maxOutputLength) throw beyondBound(maxOutputLength);
  const inflated = chunks.map((chunk) => uncompressSync(chunk, { asBuffer: true }) as Buffer);
  return inflated.length === 1 ? inflated[0] : Buffer.concat(inflated, declaredBytes);
}
