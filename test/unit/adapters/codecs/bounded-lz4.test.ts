import fc from 'fast-check';
import { compressFrameSync, compressSync } from 'lz4-napi';
import { inflateLz4 } from '../../../../src/adapters/kafka/codecs/bounded-lz4';
import { codeOf, expectSameBytes } from './inflation-outcome';
import { BEYOND_BOUND, MalformedFraming } from '../../../../src/adapters/kafka/codecs/inflation-errors';
import { lz4FrameOf } from '../../../../src/adapters/kafka/codecs/lz4-frame';

// LZ4 frames as Kafka's producers write them (lz4-napi's frames, as the client's), and frames assembled
// here from blocks lz4-napi compressed, to reach every option of the framing: content size, stored
// blocks, block and content checksums, linked blocks, several blocks.

const KIB = 1024;
const BD: Record<number, number> = { [64 * KIB]: 0x40, [256 * KIB]: 0x50, [1024 * KIB]: 0x60, [4096 * KIB]: 0x70 };

interface FrameOptions {
  blockMaxBytes?: number;
  contentSize?: number;
  /** Which blocks are written as they are instead of compressed. */
  stored?: (index: number) => boolean;
  checksums?: boolean;
  /** Each block compressed with the 64 KiB before it as its dictionary. */
  linked?: boolean;
}

/** `data` as one LZ4 frame of blocks of at most `blockMaxBytes` (checksum bytes written as zeros: never read). */
function frameOf(data: Buffer, { blockMaxBytes = 64 * KIB, contentSize, stored = () => false, checksums = false, linked = false }: FrameOptions = {}): Buffer {
  const flg = 0x40 | (linked ? 0 : 0x20) | (checksums ? 0x14 : 0) | (contentSize === undefined ? 0 : 0x08);
  const parts: Buffer[] = [Buffer.from([0x04, 0x22, 0x4d, 0x18, flg, BD[blockMaxBytes]])];
  if (contentSize !== undefined) parts.push(Buffer.from(BigUint64Array.of(BigInt(contentSize)).buffer));
  parts.push(Buffer.from([0x00]));
  for (let offset = 0, index = 0; offset < data.length; offset += blockMaxBytes, index++) {
    const block = data.subarray(offset, offset + blockMaxBytes);
    const window = data.subarray(Math.max(0, offset - 64 * KIB), offset);
    const bytes = stored(index) ? block : (linked && offset > 0 ? compressSync(block, window) : compressSync(block)).subarray(4);
    parts.push(Buffer.from(Uint32Array.of(bytes.length | (stored(index) ? 0x80000000 : 0)).buffer), bytes);
    if (checksums) parts.push(Buffer.alloc(4));
  }
  parts.push(Buffer.alloc(checksums ? 8 : 4));
  return Buffer.concat(parts);
}
/** Bytes that compress a little (so blocks are neither stored nor tiny). */
const POOL = Buffer.from(Array.from({ length: 700 * KIB }, (_, i) => ((i * 7919) % 256) & (i % 3 === 0 ? 0xff : 0x0f)));
const records = (length: number): Buffer => Buffer.from(POOL.subarray(0, length));

describe('lz4 frame', () => {
  it('reads the frames lz4-napi writes (as the client does): independent blocks, no content size', () => {
    const frame = lz4FrameOf(compressFrameSync(records(600 * KIB)));
    expect([frame.independentBlocks, frame.contentSize]).toEqual([true, undefined]);
    expect(frame.blocks.length * frame.blockMaxBytes).toBeGreaterThanOrEqual(600 * KIB);
  });

  it('reads every option of the framing', () => {
    const data = records(150 * KIB);
    const frame = lz4FrameOf(frameOf(data, { contentSize: data.length, checksums: true, linked: true, stored: (index) => index === 1 }));
    expect([frame.blockMaxBytes, frame.independentBlocks, frame.contentSize]).toEqual([64 * KIB, false, data.length]);
    expect(frame.blocks.map((block) => block.stored)).toEqual([false, true, false]);
    expectSameBytes(frame.blocks[1].bytes, data.subarray(64 * KIB, 128 * KIB));
  });

  it('refuses bytes that are not one whole frame', () => {
    const good = frameOf(records(1000), { contentSize: 1000 });
    const withByte = (offset: number, value: number) => Buffer.from(good).fill(value, offset, offset + 1);
    const malformed = {
      'cut header': good.subarray(0, 6),
      'bad magic': withByte(0, 0x05),
      'version 0': withByte(4, good[4] & 0x3f),
      'reserved FLG bit': withByte(4, good[4] | 0x02),
      'dictionary id': withByte(4, good[4] | 0x01),
      'reserved BD bits': withByte(5, 0x41),
      'block size id 3': withByte(5, 0x30),
      'cut content size': good.subarray(0, 10),
      'no end mark': good.subarray(0, good.length - 4),
      'cut block': good.subarray(0, good.length - 10),
      'block beyond the block size': Buffer.concat([good.subarray(0, 15), Buffer.from(Uint32Array.of(64 * KIB + 1).buffer), Buffer.alloc(64 * KIB + 1), Buffer.alloc(4)]),
      'bytes after the frame': Buffer.concat([good, Buffer.from([0])]),
    };
    for (const [name, bytes] of Object.entries(malformed)) expect([name, codeOf(() => lz4FrameOf(bytes))]).toEqual([name, MalformedFraming.name]);
  });
});

describe('inflateLz4', () => {
  const MAX = 200 * KIB;
  const data = records(MAX + 1);

  it('inflates frames of exactly the bound, with and without a content size, as written', () => {
    const exact = data.subarray(0, MAX);
    expectSameBytes(inflateLz4(compressFrameSync(exact), { maxOutputLength: MAX }), exact);
    expectSameBytes(inflateLz4(frameOf(exact), { maxOutputLength: MAX }), exact);
    expectSameBytes(inflateLz4(frameOf(exact, { contentSize: MAX, checksums: true }), { maxOutputLength: MAX }), exact);
    expectSameBytes(inflateLz4(frameOf(Buffer.alloc(0)), { maxOutputLength: MAX }), Buffer.alloc(0));
  });

  it('refuses a frame one byte beyond the bound: at its last block, or at once by its content size', () => {
    expect(codeOf(() => inflateLz4(frameOf(data), { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
    expect(codeOf(() => inflateLz4(compressFrameSync(data), { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
    // the declared size refuses before any block is read: its blocks here do not even inflate
    const undecodable = frameOf(data, { contentSize: MAX + 1 });
    undecodable.fill(0xff, 20, 40);
    expect(codeOf(() => inflateLz4(undecodable, { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
  });

  it('does not refuse a frame whose blocks could hold more than the bound when they hold less', () => {
    // three 4 MiB blocks could inflate to 12 MiB; these inflate to 200 KiB
    const small = Buffer.concat([1, 2, 3].map(() => compressSync(data.subarray(0, MAX / 4)).subarray(4)).flatMap((block) => [Buffer.from(Uint32Array.of(block.length).buffer), block]));
    const frame = Buffer.concat([Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x00]), small, Buffer.alloc(4)]);
    expectSameBytes(inflateLz4(frame, { maxOutputLength: MAX }), Buffer.concat([1, 2, 3].map(() => data.subarray(0, MAX / 4))));
  });

  it('refuses a bomb of 32 MiB of zeros in 4 MiB blocks (a few KiB on the wire) holding no more than the bound and a block', () => {
    const bomb = frameOf(Buffer.alloc(32 * 1024 * KIB), { blockMaxBytes: 4096 * KIB });
    expect(bomb.length).toBeLessThan(256 * KIB);
    const before = process.memoryUsage().arrayBuffers;
    expect(codeOf(() => inflateLz4(bomb, { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(MAX + 4096 * KIB + 1024 * KIB);
  });

  it('inflates a frame of 20,000 one-byte blocks declaring 4 MiB each without allocating 4 MiB per block (≈ 20 s when it did)', () => {
    const tiny = compressSync(Buffer.alloc(0)).subarray(4); // one token: no literals, no match
    const blocks = Array.from({ length: 20_000 }, () => [Buffer.from(Uint32Array.of(tiny.length).buffer), tiny]).flat();
    const frame = Buffer.concat([Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x00]), ...blocks, Buffer.alloc(4)]);
    const began = performance.now();
    expect(inflateLz4(frame, { maxOutputLength: MAX }).length).toBe(0);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('inflates a block at the most LZ4 expands (near 255:1) whole', () => {
    const zeros = Buffer.alloc(64 * KIB);
    const frame = frameOf(zeros);
    expect(zeros.length / lz4FrameOf(frame).blocks[0].bytes.length).toBeGreaterThan(240);
    expectSameBytes(inflateLz4(frame, { maxOutputLength: MAX }), zeros);
  });

  it('fails, not beyond the bound, when blocks do not inflate or do not add up to the content size', () => {
    const corrupt = frameOf(data.subarray(0, 1000));
    corrupt.fill(0xff, 12, 30);
    expect(codeOf(() => inflateLz4(corrupt, { maxOutputLength: MAX }))).not.toMatch(new RegExp(`^(${BEYOND_BOUND}|inflated|${MalformedFraming.name})$`));
    expect(codeOf(() => inflateLz4(frameOf(data.subarray(0, 1000), { contentSize: 999 }), { maxOutputLength: MAX }))).toBe(MalformedFraming.name);
  });

  it('inflates any framing of any data within a bound of its length, and refuses it one byte under', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 * KIB }),
        fc.record({ contentSize: fc.boolean(), checksums: fc.boolean(), linked: fc.boolean(), storedMask: fc.nat(15) }),
        (length, { contentSize, checksums, linked, storedMask }) => {
          const input = records(length);
          const frame = frameOf(input, { checksums, linked, stored: (index) => ((storedMask >> index) & 1) === 1, ...(contentSize ? { contentSize: length } : {}) });
          expectSameBytes(inflateLz4(frame, { maxOutputLength: length }), input);
          expect(codeOf(() => inflateLz4(frame, { maxOutputLength: length - 1 }))).toBe(BEYOND_BOUND);
        },
      ),
      { numRuns: 40 },
    );
  });
});
