// Avro's building blocks written by hand, for hostile bodies no encoder would produce.

/** Zig-zag varint of a (possibly huge) whole number, as Avro writes int, long, lengths and block counts. */
export const varint = (n: number): Buffer => {
  let z = n < 0 ? -BigInt(n) * 2n - 1n : BigInt(n) * 2n;
  const bytes: number[] = [];
  while (z >= 0x80n) {
    bytes.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  bytes.push(Number(z));
  return Buffer.from(bytes);
};

export const avroString = (text: string): Buffer => Buffer.concat([varint(Buffer.byteLength(text)), Buffer.from(text)]);

/** The Confluent wire format's 5-byte header: magic byte 0 and the big-endian schema id. */
export const wireHeader = (schemaId: number): Buffer => {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(schemaId, 1);
  return header;
};
