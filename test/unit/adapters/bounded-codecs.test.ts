import { createHash } from 'node:crypto';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { baseOptionsSchema, compressionsAlgorithms, compressionsAlgorithmsByBitmask, consumeOptionsSchema, consumerOptionsSchema, fetchOptionsSchema, findErrorBy } from '@platformatic/kafka';
import { registerBoundedCodecs, boundedCodecsInPlace } from '../../../src/adapters/kafka/bounded-codecs';
import { BatchRefused } from '../../../src/adapters/kafka/refused-batch';

/**
 * The bounded codecs, through the codec table of @platformatic/kafka as its batch decoding reads it (by
 * the batch's compression bits: gzip 1, snappy 2, lz4 3, zstd 4), on real compressed bytes made with
 * Node's zlib and the client's own compressors (the framings' own cases: ./codecs/).
 */
const MAX = 64 * 1024;
const GZIP_LIMIT = `gzip batch inflates beyond ${MAX} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`;
const ZSTD_LIMIT = `zstd batch inflates beyond ${MAX} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`;
type Codec = { decompressSync(data: unknown): Buffer; compressSync(data: Buffer): Buffer };
const byBitmask = compressionsAlgorithmsByBitmask as unknown as Record<number, Codec>;
const [GZIP, SNAPPY, LZ4, ZSTD] = [1, 2, 3, 4];
const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

/** The error `decompress` throws, or a failure when it returns. */
function refusalOf(decompress: () => unknown): BatchRefused {
  try {
    decompress();
  } catch (error) {
    expect(error).toBeInstanceOf(BatchRefused);
    return error as BatchRefused;
  }
  throw new Error('the batch was inflated');
}

describe('bounded codecs', () => {
  const refused: string[] = [];
  const compressors = Object.fromEntries(Object.entries(compressionsAlgorithms).map(([name, codec]) => [name, codec.compressSync]));
  beforeAll(() => {
    expect(boundedCodecsInPlace()).toBe(false);
    expect(registerBoundedCodecs({ maxInflatedBytes: 1 })).toBe(true);
    // registering again is fine: the last options win
    expect(registerBoundedCodecs({ maxInflatedBytes: MAX, onRefused: (detail) => refused.push(detail) })).toBe(true);
    expect(boundedCodecsInPlace()).toBe(true);
  });
  beforeEach(() => (refused.length = 0));

  it('inflate gzip and zstd batches within the bound as they were written', () => {
    const records = Buffer.alloc(MAX, 7);
    expect(byBitmask[GZIP].decompressSync(gzipSync(records))).toEqual(records);
    expect(byBitmask[ZSTD].decompressSync(zstdCompressSync(records))).toEqual(records);
    // the client hands over its growable buffer as often as a Buffer
    expect(byBitmask[GZIP].decompressSync({ buffer: gzipSync(records) })).toEqual(records);
    expect(refused).toEqual([]);
  });

  it('refuse a gzip or zstd batch one byte beyond the bound, naming its compressed bytes', () => {
    const gzip = gzipSync(Buffer.alloc(MAX + 1));
    const zstd = zstdCompressSync(Buffer.alloc(MAX + 1));
    const gzipRefusal = refusalOf(() => byBitmask[GZIP].decompressSync(gzip));
    const zstdRefusal = refusalOf(() => byBitmask[ZSTD].decompressSync(zstd));
    expect([gzipRefusal.detail, gzipRefusal.fingerprint]).toEqual([GZIP_LIMIT, sha1(gzip)]);
    expect([zstdRefusal.detail, zstdRefusal.fingerprint]).toEqual([ZSTD_LIMIT, sha1(zstd)]);
    expect(gzipRefusal.message).toBe(`compressed record batch refused: ${GZIP_LIMIT}`);
    // the same bytes, the same fingerprint: how a probe recognises the batch again
    expect(refusalOf(() => byBitmask[GZIP].decompressSync({ buffer: Buffer.from(gzip) })).fingerprint).toBe(gzipRefusal.fingerprint);
    expect(refused).toEqual([GZIP_LIMIT, ZSTD_LIMIT, GZIP_LIMIT]);
  });

  it('refuse a 32 MB record of zeros (32 KB of gzip) without inflating it', () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    expect(refusalOf(() => byBitmask[GZIP].decompressSync(bomb)).detail).toBe(GZIP_LIMIT);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuse batches that do not inflate', () => {
    const notGzip = refusalOf(() => byBitmask[GZIP].decompressSync(Buffer.from('not gzip at all')));
    const notZstd = refusalOf(() => byBitmask[ZSTD].decompressSync(Buffer.from('not zstd at all')));
    expect(notGzip.detail).toMatch(/^gzip batch does not inflate: .+/);
    expect(notZstd.detail).toMatch(/^zstd batch does not inflate: .+/);
    const truncated = gzipSync(Buffer.alloc(1000, 1)).subarray(0, 20);
    expect(refusalOf(() => byBitmask[GZIP].decompressSync(truncated)).detail).toMatch(/^gzip batch does not inflate: /);
  });

  it('inflate snappy and lz4 batches the client compressed, within the bound, and refuse one byte beyond', () => {
    const records = Buffer.from(Array.from({ length: MAX + 1 }, (_, i) => i % 253));
    for (const [bitmask, name] of [
      [SNAPPY, 'snappy'],
      [LZ4, 'lz4'],
    ] as const) {
      const within = byBitmask[bitmask].compressSync(records.subarray(0, MAX));
      expect(byBitmask[bitmask].decompressSync({ buffer: within }).equals(records.subarray(0, MAX))).toBe(true);
      const beyond = byBitmask[bitmask].compressSync(records);
      const refusal = refusalOf(() => byBitmask[bitmask].decompressSync(beyond));
      expect([refusal.detail, refusal.fingerprint]).toEqual([`${name} batch inflates beyond ${MAX} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`, sha1(beyond)]);
      expect(refusalOf(() => byBitmask[bitmask].decompressSync(Buffer.from(`not ${name} at all`))).detail).toMatch(new RegExp(`^${name} batch does not inflate: .+`));
    }
  });

  it('leave the compressing side as it was', () => {
    expect(Object.fromEntries(Object.entries(compressionsAlgorithms).map(([name, codec]) => [name, codec.compressSync]))).toEqual(compressors);
    const compressed = byBitmask[ZSTD].compressSync(Buffer.from('x'.repeat(1000)));
    expect(byBitmask[ZSTD].decompressSync(compressed).toString()).toBe('x'.repeat(1000));
  });

  it('are refusals the client does not retry: a retry would refuse the same batch again', () => {
    const refusal = new BatchRefused('why', 'which');
    expect(findErrorBy(refusal, 'canRetry', false)).toBe(refusal);
  });

  it('are still needed: the client has no option bounding inflation (when this fails, use its own)', () => {
    const optionNames = [baseOptionsSchema, consumerOptionsSchema, consumeOptionsSchema, fetchOptionsSchema].flatMap((schema) => Object.keys(schema.properties));
    expect(optionNames.filter((name) => /decompress|inflat|uncompress|expand/i.test(name))).toEqual([]);
    // and its codecs take the compressed bytes alone: nothing to pass a bound with
    for (const codec of Object.values(compressionsAlgorithms)) {
      expect(Object.keys(codec).filter((key) => !['compress', 'compressSync', 'decompressSync', 'bitmask', 'available'].includes(key))).toEqual([]);
    }
  });
});
