// A small length-prefixed binary layout of the sealed dead letters (src/security/dead-letter-seal.ts): text = u32 length + UTF-8, bytes =
// u32 length + bytes, tagged = tag (0 null, 1 bytes, 2 text) + the value. No base64, no JSON.

const enum Tag {
  Null = 0,
  Bytes = 1,
  Text = 2,
}

export class BinaryWriter {
  private readonly parts: Buffer[] = [];

  u8(value: number): void {
    const b = Buffer.allocUnsafe(1);
    b.writeUInt8(value);
    this.parts.push(b);
  }

  u16(value: number): void {
    const b = Buffer.allocUnsafe(2);
    b.writeUInt16BE(value);
    this.parts.push(b);
  }

  i32(value: number): void {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(value);
    this.parts.push(b);
  }

  bytes(value: Buffer): void {
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(value.length);
    this.parts.push(length, value);
  }

  text(value: string): void {
    this.bytes(Buffer.from(value, 'utf8'));
  }

  tagged(value: Buffer | string | null): void {
    if (value === null) return this.u8(Tag.Null);
    this.u8(Buffer.isBuffer(value) ? Tag.Bytes : Tag.Text);
    if (Buffer.isBuffer(value)) this.bytes(value);
    else this.text(value);
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export class BinaryReader {
  private offset = 0;

  constructor(
    private readonly buffer: Buffer,
    /** Names the layout in errors: "stored outcome: truncated". */
    private readonly what: string,
  ) {}

  u8(): number {
    return this.buffer.readUInt8(this.advance(1));
  }

  u16(): number {
    return this.buffer.readUInt16BE(this.advance(2));
  }

  i32(): number {
    return this.buffer.readInt32BE(this.advance(4));
  }

  bytes(): Buffer {
    const length = this.buffer.readUInt32BE(this.advance(4));
    const start = this.advance(length);
    // A copy: the stored bytes outlive the reply buffer ioredis handed over.
    return Buffer.from(this.buffer.subarray(start, start + length));
  }

  text(): string {
    const length = this.buffer.readUInt32BE(this.advance(4));
    const start = this.advance(length);
    return this.buffer.toString('utf8', start, start + length);
  }

  tagged(): Buffer | string | null {
    const tag = this.u8() as Tag; // any byte: one that is no tag falls through to the throw
    if (tag === Tag.Null) return null;
    if (tag === Tag.Bytes) return this.bytes();
    if (tag === Tag.Text) return this.text();
    throw new Error(`${this.what}: unknown value tag ${tag}`);
  }

  end(): void {
    if (this.offset !== this.buffer.length) throw new Error(`${this.what}: ${this.buffer.length - this.offset} bytes left over`);
  }

  private advance(bytes: number): number {
    const at = this.offset;
    if (at + bytes > this.buffer.length) throw new Error(`${this.what}: truncated`);
    this.offset += bytes;
    return at;
  }
}
