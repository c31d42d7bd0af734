import fc from 'fast-check';
import { installPooledEncoder } from '../../../src/adapters/kafka/pooled-encoder';
import { assertSameProduceRequests, produceModules, type ProduceModules } from '../../support/kafkajs-produce';

/**
 * The patched Encoder writes the same bytes as kafkajs's own: every test encodes with both, the stock one
 * loaded apart (jest.isolateModules gives a second, unpatched copy of kafkajs's modules).
 */
interface Encoder {
  buf: Buffer;
  buffer: Buffer;
  writeInt8(v: number): Encoder;
  writeInt16(v: number): Encoder;
  writeInt32(v: number): Encoder;
  writeInt64(v: number | bigint): Encoder;
  writeString(v: string | null): Encoder;
  writeBytes(v: Buffer | string | null): Encoder;
  writeVarInt(v: number): Encoder;
  writeUVarInt(v: number): Encoder;
  writeVarLong(v: number): Encoder;
  writeVarIntString(v: string | null): Encoder;
  writeVarIntBytes(v: Buffer | string | null): Encoder;
  writeEncoder(v: Encoder): Encoder;
  writeEncoderArray(v: Encoder[]): Encoder;
}
type EncoderClass = new (initialSize?: number) => Encoder;
function kafkajs(): { Encoder: EncoderClass } & ProduceModules {
  return { Encoder: require('kafkajs/src/protocol/encoder'), ...produceModules() };
}

let stock!: ReturnType<typeof kafkajs>;
jest.isolateModules(() => {
  stock = kafkajs();
});
installPooledEncoder();
const pooled = kafkajs();

type Write = (encoder: Encoder) => void;
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const text = fc.oneof(fc.constant(null), fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', minLength: 300, maxLength: 1500 }));
const bytes = fc.oneof(fc.constant(null), fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)));
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.integer({ min: -128, max: 127 }).map((v): Write => (e) => void e.writeInt8(v)),
  fc.integer({ min: -32768, max: 32767 }).map((v): Write => (e) => void e.writeInt16(v)),
  int32.map((v): Write => (e) => void e.writeInt32(v)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v): Write => (e) => void e.writeInt64(v.toString() as unknown as bigint)),
  int32.map((v): Write => (e) => void e.writeVarInt(v)),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((v): Write => (e) => void e.writeUVarInt(v)),
  fc.integer({ min: -(2 ** 52), max: 2 ** 52 }).map((v): Write => (e) => void e.writeVarLong(v)),
  text.map((v): Write => (e) => void e.writeString(v)),
  text.map((v): Write => (e) => void e.writeVarIntString(v)),
  bytes.map((v): Write => (e) => void e.writeBytes(v)),
  bytes.map((v): Write => (e) => void e.writeVarIntBytes(v)),
);

describe('the pooled Encoder (kafkajs patch)', () => {
  it('writes the same bytes as kafkajs for any sequence of writes, across its growth, and appends encoders alike', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 40 }), (writes) => {
        const mine = new pooled.Encoder();
        const theirs = new stock.Encoder();
        for (const w of writes) {
          w(mine);
          w(theirs);
        }
        expect(mine.buffer.equals(theirs.buffer)).toBe(true);
        const outer = [
          new pooled.Encoder().writeInt32(7).writeEncoder(mine).writeEncoderArray([mine, new pooled.Encoder(), mine]).buffer,
          new stock.Encoder().writeInt32(7).writeEncoder(theirs).writeEncoderArray([theirs, new stock.Encoder(), theirs]).buffer,
        ];
        expect(outer[0]!.equals(outer[1]!)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('frames the same produce request, record batches and headers included', async () => {
    await assertSameProduceRequests(pooled, stock);
  });

  it('starts an Encoder without a zero-filled buffer, and installs once', () => {
    expect(new pooled.Encoder().buf.length).toBe(0);
    expect(new stock.Encoder().buf.length).toBe(512);
    const ensureAvailable = (pooled.Encoder.prototype as unknown as { ensureAvailable: unknown }).ensureAvailable;
    installPooledEncoder();
    expect((pooled.Encoder.prototype as unknown as { ensureAvailable: unknown }).ensureAvailable).toBe(ensureAvailable);
    expect(new pooled.Encoder().writeInt32(1).buffer).toEqual(Buffer.from([0, 0, 0, 1]));
  });
});
