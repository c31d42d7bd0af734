import { createHash } from 'node:crypto';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { compressionsAlgorithms } from '@platformatic/kafka';
import { BatchRefused } from './refused-batch';
import { inflateLz4 } from './codecs/bounded-lz4';
import { inflateSnappy } from './codecs/bounded-snappy';
import { BEYOND_BOUND } from './codecs/inflation-errors';

/**
 * The decompression of fetched record batches, bounded. @platformatic/kafka inflates a compressed batch
 * whole, inside the decoding of the fetch response, through its codec table, with no limit: a 300 KB gzip
 * batch (or a 6 KB zstd one) of one record became a 300 MB record in memory. The client has no option
 * bounding it (its fetch limits bound the compressed bytes), so this replaces the decompressing side of the
 * entries of the codec table the package exports (`compressionsAlgorithms`, the same objects as
 * `compressionsAlgorithmsByBitmask`, which the batch decoding reads): a stop-gap, the one
 * docs/decisions/kafka-client.md allows (no private module is touched, but the library is mutated), as the
 * kafkajs version of this file replaced kafkajs's exported `CompressionCodecs`; the compressing side is
 * left as it is. The plan is a bound option upstream; the day the client has one, use it instead
 * (test/unit/adapters/bounded-codecs.test.ts fails that day).
 *
 * All four codecs inflate at most `maxInflatedBytes`: gzip and zstd with Node's zlib (`maxOutputLength`);
 * Snappy and LZ4 by the sizes their framings declare (codecs/): a Snappy batch is refused before inflating
 * when its chunks declare more, an LZ4 one when its frame's content size does, else block by block with a
 * running total. They inflate with the `snappy` and `lz4-napi` packages, not the client's WebAssembly
 * codecs, which inflate a whole frame in one call and trap on bad input (a panic in WebAssembly leaks what
 * it allocated). A batch beyond the bound, or that does not inflate, makes the codec throw `BatchRefused`
 * — which fails the whole fetch (every partition of it, and the good batches before the
 * refused one, which are never delivered) and is not retried: the consumer then finds the batch
 * (refused-batch-locator.ts) and hands on one placeholder for it (refused-batch.ts), which the worker
 * dead-letters; the partition goes on past it.
 */
export interface BoundedCodecOptions {
  /** A batch inflating beyond this is refused (MAX_DECOMPRESSED_BATCH_BYTES). */
  maxInflatedBytes: number;
  /** Told of each refused batch, why. */
  onRefused?: (detail: string) => void;
}

/** What the client hands a codec: a Buffer, or its growable buffer (whose `buffer` is the bytes). */
type CompressedInput = Buffer | { readonly buffer: Buffer };
type Decompress = (data: CompressedInput) => Buffer;

const bytesOf = (data: CompressedInput): Buffer => (Buffer.isBuffer(data) ? data : data.buffer);

/** Names the compressed bytes: a probe that fetches the same batch again refuses the same fingerprint. */
export const fingerprintOf = (compressed: Buffer): string => createHash('sha1').update(compressed).digest('hex');

/** The decompressors of this process's client, bounded as above (one function per codec, made from the options). */
export function boundedDecompressors({ maxInflatedBytes, onRefused }: BoundedCodecOptions): Record<'gzip' | 'snappy' | 'lz4' | 'zstd', Decompress> {
  const refuse = (detail: string, compressed: Buffer): never => {
    onRefused?.(detail);
    throw new BatchRefused(detail, fingerprintOf(compressed));
  };
  const bounded =
    (name: string, inflate: (compressed: Buffer, options: { maxOutputLength: number }) => Buffer): Decompress =>
    (data) => {
      const compressed = bytesOf(data);
      try {
        return inflate(compressed, { maxOutputLength: maxInflatedBytes });
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === BEYOND_BOUND;
        return refuse(
          tooLarge ? `${name} batch inflates beyond ${maxInflatedBytes} bytes (MAX_DECOMPRESSED_BATCH_BYTES)` : `${name} batch does not inflate: ${(error as Error).message}`,
          compressed,
        );
      }
    };
  return {
    gzip: bounded('gzip', gunzipSync),
    zstd: bounded('zstd', zstdDecompressSync),
    snappy: bounded('snappy', inflateSnappy),
    lz4: bounded('lz4', inflateLz4),
  };
}

/**
 * Puts the bounded decompressors into the client's codec table, for every client of this process; again
 * replaces them (the last options win). False when the table did not take them (then a batch inflates
 * unbounded).
 */
export function registerBoundedCodecs(options: BoundedCodecOptions): boolean {
  const decompressors = boundedDecompressors(options);
  for (const [name, decompress] of Object.entries(decompressors)) {
    try {
      codecTable()[name].decompressSync = decompress;
    } catch {
      // a frozen table: reported below
    }
  }
  registered = decompressors;
  return boundedCodecsInPlace();
}

/** The decompressors last registered. */
let registered: Record<string, Decompress> | undefined;

const codecTable = () => compressionsAlgorithms as unknown as Record<string, { decompressSync: Decompress }>;

/** Whether every compressed batch this process fetches now goes through the bounded decompressors. */
export function boundedCodecsInPlace(): boolean {
  return registered !== undefined && Object.entries(registered).every(([name, decompress]) => codecTable()[name]?.decompressSync === decompress);
}
