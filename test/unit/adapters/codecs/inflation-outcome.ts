// What an inflater did, in the terms the codecs' tests compare.

/** Byte for byte (Jest's deep equality walks a Buffer byte by byte: seconds for 200 KiB). */
export const expectSameBytes = (actual: Buffer, expected: Buffer): void => expect({ length: actual.length, same: actual.equals(expected) }).toEqual({ length: expected.length, same: true });

/** How `inflate` ended: the code (or name) of what it threw, or 'inflated'. */
export const codeOf = (inflate: () => unknown): unknown => {
  try {
    inflate();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).name;
  }
  return 'inflated';
};
