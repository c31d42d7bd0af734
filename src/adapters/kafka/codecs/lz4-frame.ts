import { MalformedFraming } from './inflation-errors';

// The LZ4 frame of a Kafka LZ4 batch (Kafka uses the LZ4 frame format), read without inflating it: the
// magic 0x184D2204; FLG (version 01, block independence, block checksums, content size, content checksum,
// dictionary id) and BD (the largest block's uncompressed size: 64 KiB, 256 KiB, 1 MiB or 4 MiB); the
// content size when FLG declares it; the header checksum; then blocks, each a 4-byte little-endian size
// (high bit: stored uncompressed) and its bytes (and a checksum when FLG says so), up to an end mark of 0;
// then the content checksum when FLG says so. No block inflates beyond the largest block size, so a
// frame can be inflated block by block within a running bound. The checksums are skipped, not verified:
// the broker checked the batch's CRC-32C, which covers these bytes, when the producer wrote them.

const MAGIC = 0x184d2204;
const VERSION = 0b01;
const FLG = { independentBlocks: 0x20, blockChecksums: 0x10, contentSize: 0x08, contentChecksum: 0x04, reserved: 0x02, dictionaryId: 0x01 } as const;
const BD_RESERVED = 0x8f;
const BLOCK_MAX_BYTES: Readonly<Record<number, number>> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 };
const STORED = 0x80000000;
const CHECKSUM_BYTES = 4;

export interface Lz4Block {
  /** The block's bytes as written: LZ4-compressed, or the data itself when `stored`. */
  readonly bytes: Buffer;
  readonly stored: boolean;
}

export interface Lz4Frame {
  /** No block inflates beyond this (BD). */
  readonly blockMaxBytes: number;
  /** False when a block may refer to the 64 KiB inflated before it (linked blocks). */
  readonly independentBlocks: boolean;
  /** What the frame inflates to, when it declares it. */
  readonly contentSize?: number;
  readonly blocks: readonly Lz4Block[];
}

/** The frame's parts; MalformedFraming when the bytes are not one whole LZ4 frame. */
export function lz4FrameOf(compressed: Buffer): Lz4Frame {
  const take = (offset: number, bytes: number, what: string): number => {
    if (offset + bytes > compressed.length) throw new MalformedFraming(`lz4 ${what} cut short at byte ${offset}`);
    return offset + bytes;
  };
  take(0, 7, 'frame header');
  if (compressed.readUInt32LE(0) !== MAGIC) throw new MalformedFraming(`lz4 magic ${compressed.readUInt32LE(0).toString(16)} is not 184d2204`);
  const flg = compressed[4];
  const bd = compressed[5];
  if (flg >> 6 !== VERSION) throw new MalformedFraming(`lz4 frame version ${flg >> 6} is not 1`);
  if (flg & FLG.reserved || bd & BD_RESERVED) throw new MalformedFraming('lz4 frame header sets reserved bits');
  if (flg & FLG.dictionaryId) throw new MalformedFraming('lz4 frame names a dictionary (Kafka frames have none)');
  const blockMaxBytes = BLOCK_MAX_BYTES[(bd >> 4) & 0x07];
  if (blockMaxBytes === undefined) throw new MalformedFraming(`lz4 block maximum size id ${(bd >> 4) & 0x07} is not 4–7`);
  let offset = 6;
  let contentSize: number | undefined;
  if (flg & FLG.contentSize) {
    offset = take(offset, 8, 'content size');
    contentSize = Number(compressed.readBigUInt64LE(offset - 8));
  }
  offset = take(offset, 1, 'header checksum');
  const blocks: Lz4Block[] = [];
  for (;;) {
    offset = take(offset, 4, 'block size');
    const word = compressed.readUInt32LE(offset - 4);
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (size > blockMaxBytes) throw new MalformedFraming(`lz4 block of ${size} bytes at byte ${offset} beyond the frame's ${blockMaxBytes}-byte blocks`);
    const start = offset;
    offset = take(offset, size, 'block');
    blocks.push({ bytes: compressed.subarray(start, offset), stored: (word & STORED) !== 0 });
    if (flg & FLG.blockChecksums) offset = take(offset, CHECKSUM_BYTES, 'block checksum');
  }
  if (flg & FLG.contentChecksum) offset = take(offset, CHECKSUM_BYTES, 'content checksum');
  if (offset !== compressed.length) throw new MalformedFraming(`${compressed.length - offset} bytes after the lz4 frame`);
  return { blockMaxBytes, independentBlocks: (flg & FLG.independentBlocks) !== 0, ...(contentSize === undefined ? {} : { contentSize }), blocks };
}
