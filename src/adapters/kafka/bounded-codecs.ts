import { promisify } from 'node:util';
import { gzip, unzip } from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { installFetchMessages } from './fetch-messages';
import { BatchRefused } from './refused-batch';

/**
 * The decompression of fetched record batches, bounded. kafkajs inflates a compressed batch whole, inside
 * the decoding of the fetch response, with no limit (a 300 KB gzip batch became a 300 MB record, held
 * until the worker restarted), and has no Snappy, LZ4 or zstd codec: such a batch threw out of the fetch
 * and stopped the consumer for good, on every restart. An exception cannot be the answer either: it fails
 * the whole fetch, every partition with it. So a batch that cannot be inflated within the limit, or with a
 * codec this process has, is refused: the codec throws `BatchRefused`, and the fetch's batch decoding
 * (fetch-messages.ts) puts one placeholder record in the batch's place — at its last offset, without key or
 * value, carrying a header that names why and which offsets it spans — which the worker dead-letters
 * (`refusalOf`): the batch is skipped with one dead letter and the partition goes on.
 *
 * One placeholder per batch, not one per record: the count is the producer's to choose, and a gzip batch of
 * 300,000 empty records is 420 KB; with a placeholder and a dead letter per record it held its partition for
 * over a minute (docs/reliability.md).
 */
const inflate = promisify(unzip);
const deflate = promisify(gzip);

export interface BoundedCodecOptions {
  /** A batch inflating beyond this is refused (MAX_DECOMPRESSED_BATCH_BYTES). */
  maxInflatedBytes: number;
  /** Told of each refused batch, why. */
  onRefused?: (detail: string) => void;
}

/**
 * Registers, for this process's kafkajs, a gzip codec that inflates at most `maxInflatedBytes` and codecs
 * for Snappy, LZ4 and zstd that inflate nothing: their batches are refused as above. False when the fetch's
 * batch decoding could not be replaced (a fetch response of kafkajs was loaded first): a refused batch
 * would then fail its fetch.
 */
export function registerBoundedCodecs(options: BoundedCodecOptions): boolean {
  const refuse = (detail: string): never => {
    options.onRefused?.(detail);
    throw new BatchRefused(detail);
  };
  const bounded = {
    compress: (encoder: { buffer: Buffer }) => deflate(encoder.buffer),
    decompress: async (compressed: Buffer) => {
      try {
        return await inflate(compressed, { maxOutputLength: options.maxInflatedBytes });
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        return refuse(tooLarge ? `gzip batch inflates beyond ${options.maxInflatedBytes} bytes (MAX_DECOMPRESSED_BATCH_BYTES)` : `gzip batch does not inflate: ${(error as Error).message}`);
      }
    },
  };
  const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
  codecs[CompressionTypes.GZIP] = () => bounded;
  for (const [type, name] of [[CompressionTypes.Snappy, 'snappy'], [CompressionTypes.LZ4, 'lz4'], [CompressionTypes.ZSTD, 'zstd']] as const) {
    const unsupported = {
      compress: () => Promise.reject(new Error(`this service does not compress with ${name}`)),
      decompress: async () => refuse(`${name} batch: this worker has no ${name} codec`),
    };
    codecs[type] = () => unsupported;
  }
  return installFetchMessages();
}
