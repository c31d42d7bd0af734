import { uncompressSync } from 'lz4-napi';
import { beyondBound, MalformedFraming } from './inflation-errors';
import { lz4FrameOf } from './lz4-frame';

// An LZ4 batch inflated within `maxOutputLength`: refused before inflating when its frame declares a larger
// content size, else block by block with a running total, refused at the first block that takes the total
// beyond the bound (a block inflates to at most the frame's block size, 4 MiB at most, so no more than the
// bound plus one block is ever held). lz4-napi inflates one block; it takes the most a block may inflate
// to as a 4-byte little-endian prefix, and a linked block's 64 KiB window as a dictionary.

const WINDOW_BYTES = 64 * 1024;
/**
 * No LZ4 block inflates to more than 255 times its size (a match-length byte of 255 is the best a byte
 * does). The decoder allocates what the prefix says for every block, so the prefix is the smaller of
 * this and the frame's block size: a frame of a hundred thousand 1-byte blocks declaring 4 MiB each
 * would otherwise cost 4 MiB of allocating per block (minutes of CPU for one 1 MB batch).
 */
const MAX_RATIO = 255;

export function inflateLz4(compressed: Buffer, { maxOutputLength }: { maxOutputLength: number }): Buffer {
  const frame = lz4FrameOf(compressed);
  if (frame.contentSize !== undefined && frame.contentSize > maxOutputLength) throw beyondBound(maxOutputLength);
  const inflated: Buffer[] = [];
  let total = 0;
  for (const block of frame.blocks) {
    const bytes = block.stored ? block.bytes : inflateBlock(block.bytes, frame.blockMaxBytes, frame.independentBlocks ? undefined : windowOf(inflated));
    total += bytes.length;
    if (total > maxOutputLength) throw beyondBound(maxOutputLength);
    inflated.push(bytes);
  }
  if (frame.contentSize !== undefined && total !== frame.contentSize) {
    throw new MalformedFraming(`lz4 frame declares ${frame.contentSize} bytes and inflates to ${total}`);
  }
  return Buffer.concat(inflated, total);
}

function inflateBlock(block: Buffer, blockMaxBytes: number, window: Buffer | undefined): Buffer {
  const sizePrefixed = Buffer.allocUnsafe(4 + block.length);
  sizePrefixed.writeUInt32LE(Math.min(blockMaxBytes, block.length * MAX_RATIO), 0);
  block.copy(sizePrefixed, 4);
  return window === undefined ? uncompressSync(sizePrefixed) : uncompressSync(sizePrefixed, window);
}

/** The last 64 KiB inflated so far: what a linked block may refer back to. */
function windowOf(inflated: readonly Buffer[]): Buffer {
  const recent: Buffer[] = [];
  let bytes = 0;
  for (let i = inflated.length - 1; i >= 0 && bytes < WINDOW_BYTES; i--) {
    recent.unshift(inflated[i]);
    bytes += inflated[i].length;
  }
  const window = Buffer.concat(recent, bytes);
  return window.subarray(Math.max(0, window.length - WINDOW_BYTES));
}
