import type { Type } from 'avsc';

/**
 * A cheap pass over an Avro body, before avsc decodes it, that checks every length and block count against
 * the bytes actually left. avsc trusts them: a 16-byte UpdateBalances whose array header claims 2^30 items
 * makes it push items (reading past the end) until the heap is exhausted (2^40 happens to fail at once, as
 * an invalid array length; 2^20 to 2^31 do not) — one such record crashed the worker
 * again at every restart (found by the fault suite). Returns what does not fit, or undefined.
 */
const MAX_DEPTH = 64;
/** Items of a type that takes no bytes (null, an empty record) cannot be bounded by the body's length. */
const MAX_EMPTY_ITEMS = 1024;

class OutOfBounds extends Error {}

class Cursor {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** A zig-zag varint (Avro int and long), at most 10 bytes. */
  long(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new OutOfBounds(`a number runs past the end at byte ${this.pos}`);
      const byte = this.buf[this.pos++];
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
      scale *= 128;
    }
    throw new OutOfBounds(`a number longer than 10 bytes at byte ${this.pos}`);
  }

  skip(count: number, what: string): void {
    if (count < 0 || count > this.remaining) throw new OutOfBounds(`${what} of ${count} bytes at byte ${this.pos}, ${this.remaining} left`);
    this.pos += count;
  }
}

interface AnyType {
  typeName: string;
  fields?: { type: AnyType }[];
  itemsType?: AnyType;
  valuesType?: AnyType;
  types?: AnyType[];
  size?: number;
  symbols?: string[];
  underlyingType?: AnyType;
}

const FIXED_SIZE: Record<string, number> = { null: 0, boolean: 1, int: 1, long: 1, float: 4, double: 8, string: 1, bytes: 1, enum: 1, array: 1, map: 1 };

/** The fewest bytes a value of the type can take. */
function minimumSize(type: AnyType, depth = 0): number {
  if (depth > MAX_DEPTH) return 0;
  if (type.typeName in FIXED_SIZE) return FIXED_SIZE[type.typeName];
  if (type.typeName === 'fixed') return type.size ?? 0;
  if (type.typeName.startsWith('union')) return 1;
  if (type.underlyingType) return minimumSize(type.underlyingType, depth + 1);
  return (type.fields ?? []).reduce((sum, field) => sum + minimumSize(field.type, depth + 1), 0);
}

function blocks(cursor: Cursor, itemSize: number, readItem: () => void): void {
  for (;;) {
    let count = cursor.long();
    if (count === 0) return;
    if (count < 0) {
      count = -count;
      cursor.long(); // the block's size in bytes, which a reader may use to skip it
    }
    const fits = itemSize > 0 ? count * itemSize <= cursor.remaining : count <= MAX_EMPTY_ITEMS;
    if (!fits) throw new OutOfBounds(`a block of ${count} items at byte ${cursor.pos}, ${cursor.remaining} bytes left`);
    for (let i = 0; i < count; i++) readItem();
  }
}

function walk(type: AnyType, cursor: Cursor, depth: number): void {
  if (depth > MAX_DEPTH) throw new OutOfBounds(`nested deeper than ${MAX_DEPTH}`);
  switch (type.typeName) {
    case 'null':
      return;
    case 'boolean':
      return cursor.skip(1, 'a boolean');
    case 'int':
    case 'long':
    case 'enum':
      cursor.long();
      return;
    case 'float':
      return cursor.skip(4, 'a float');
    case 'double':
      return cursor.skip(8, 'a double');
    case 'string':
    case 'bytes':
      return cursor.skip(cursor.long(), `a ${type.typeName}`);
    case 'fixed':
      return cursor.skip(type.size ?? 0, 'a fixed');
    case 'array':
      return blocks(cursor, minimumSize(type.itemsType!), () => walk(type.itemsType!, cursor, depth + 1));
    case 'map':
      return blocks(cursor, 1 + minimumSize(type.valuesType!), () => {
        cursor.skip(cursor.long(), 'a map key');
        walk(type.valuesType!, cursor, depth + 1);
      });
  }
  if (type.typeName.startsWith('union')) {
    const branch = cursor.long();
    const branches = type.types ?? [];
    if (branch < 0 || branch >= branches.length) throw new OutOfBounds(`union branch ${branch} of ${branches.length}`);
    return walk(branches[branch], cursor, depth + 1);
  }
  if (type.underlyingType) return walk(type.underlyingType, cursor, depth + 1);
  for (const field of type.fields ?? []) walk(field.type, cursor, depth + 1);
}

export function avroBoundsProblem(type: Type, body: Buffer): string | undefined {
  try {
    walk(type, new Cursor(body), 0);
    return undefined;
  } catch (error) {
    if (error instanceof OutOfBounds) return error.message;
    throw error;
  }
}
