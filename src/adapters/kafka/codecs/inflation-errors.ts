// The two ways a bounded inflater says no, in the shape zlib uses for its own `maxOutputLength`, so the
// codec table's wrapper (../bounded-codecs.ts) tells them apart the same way for all four codecs.

/** The code zlib gives a RangeError when `maxOutputLength` is reached; the Snappy and LZ4 inflaters use it too. */
export const BEYOND_BOUND = 'ERR_BUFFER_TOO_LARGE';

/** The batch would inflate beyond `maxOutputLength` bytes. */
export function beyondBound(maxOutputLength: number): RangeError {
  return Object.assign(new RangeError(`Cannot create a Buffer larger than ${maxOutputLength} bytes`), { code: BEYOND_BOUND });
}

/** The compressed bytes are not a frame of their codec (their declared sizes cannot be read or do not add up). */
export class MalformedFraming extends Error {
  override readonly name = 'MalformedFraming';
}
