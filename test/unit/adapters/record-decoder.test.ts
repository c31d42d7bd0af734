import fc from 'fast-check';
import { decodeRecord, installRecordDecoder, type BatchContext, type KafkaDecoder } from '../../../src/adapters/kafka/record-decoder';

/**
 * decodeRecord returns the same record as kafkajs's own record decoder, and once installed kafkajs's record
 * batch decoder uses it: every test decodes with both, kafkajs's own loaded apart (jest.isolateModules gives
 * a second, unpatched copy of its modules). Records are encoded with kafkajs's own encoder.
 */
type Decoder = KafkaDecoder;
type RecordDecoder = (decoder: Decoder, context?: BatchContext) => unknown;
type BatchDecoder = (decoder: Decoder) => Promise<{ records: unknown[] }>;

function kafkajs() {
  return {
    Decoder: require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => Decoder,
    Long: require('kafkajs/src/utils/long'),
    recordDecoder: require('kafkajs/src/protocol/recordBatch/record/v0/decoder') as RecordDecoder,
    batchDecoder: require('kafkajs/src/protocol/recordBatch/v0/decoder') as BatchDecoder,
    record: require('kafkajs/src/protocol/recordBatch/record/v0') as (fields: object) => { buffer: Buffer },
    batch: (require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (fields: object) => Promise<{ buffer: Buffer }> }).RecordBatch,
  };
}

// Installed first, as createKafka does: before kafkajs's record batch decoder is loaded.
const installed = installRecordDecoder();
const patched = kafkajs();
let stock!: ReturnType<typeof kafkajs>;
jest.isolateModules(() => {
  stock = kafkajs();
});

const bytes = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));
const headerName = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'X-Correlation-Id'));
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
// around 2^53, where a sum stops being exact in a double, and the everyday sizes
const nearSafe = fc.bigInt({ min: 2n ** 53n - 5000n, max: 2n ** 53n + 5000n }).map(String);
const everyday = fc.integer({ min: -1, max: 2_000_000_000_000 }).map(String);
const anchor = fc.oneof(everyday, nearSafe, int64);
const context: fc.Arbitrary<BatchContext> = fc.record({
  firstOffset: anchor,
  firstTimestamp: anchor,
  magicByte: fc.constant(2),
  isControlBatch: fc.boolean(),
  timestampType: fc.constantFrom(0, 1),
  maxTimestamp: fc.oneof(everyday, fc.constant(undefined)),
});
const record = fc.record({
  offsetDelta: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  // small deltas take the numeric path, 49 bits and more kafkajs's Long one
  timestampDelta: fc.oneof(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), fc.constantFrom(2 ** 48 - 1, 2 ** 48, -(2 ** 48), -(2 ** 48) - 1)),
  key: fc.oneof(fc.constant(null), bytes),
  value: fc.oneof(fc.constant(null), bytes),
  headers: fc.array(fc.tuple(headerName, bytes), { maxLength: 6 }),
});

/** kafkajs's record encoder takes headers as an object; several values of one name as an array. */
const headersObject = (pairs: [string, Buffer][]) => {
  const headers: Record<string, Buffer[]> = Object.create(null);
  for (const [name, value] of pairs) (headers[name] ??= []).push(value);
  return headers;
};

describe("the record decoder (kafkajs's record decoder, replaced)", () => {
  it('returns the same record as kafkajs for any record and batch context: offsets and timestamps past 2^53, duplicate and odd header names', () => {
    fc.assert(
      fc.property(record, context, ({ headers, ...fields }, batchContext) => {
        const encoded = stock.record({ ...fields, headers: headersObject(headers) }).buffer;
        const withoutLength = (decoder: Decoder) => (decoder.readVarInt(), decoder);
        const theirs = stock.recordDecoder(withoutLength(new stock.Decoder(encoded)), batchContext);
        const mine = decodeRecord(patched.Long, withoutLength(new patched.Decoder(encoded)), batchContext);
        expect(mine).toEqual(theirs);
        expect(Object.keys(mine.headers)).toEqual(Object.keys((theirs as { headers: object }).headers));
      }),
      { numRuns: 500 },
    );
  });

  it("is what kafkajs's record batch decoder uses once installed, and whole batches decode the same", async () => {
    expect(installed).toBe(true);
    expect(patched.recordDecoder).not.toBe(stock.recordDecoder);
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 2 ** 40 }), async (records, firstOffset) => {
        const encoded = await stock.batch({
          firstOffset: stock.Long.fromNumber(firstOffset),
          firstTimestamp: 1_800_000_000_000,
          maxTimestamp: 1_800_000_000_500,
          lastOffsetDelta: records.length - 1,
          records: records.map(({ headers, ...fields }, i) => stock.record({ ...fields, offsetDelta: i, headers: headersObject(headers) })),
        });
        const theirs = await stock.batchDecoder(new stock.Decoder(encoded.buffer));
        const mine = await patched.batchDecoder(new patched.Decoder(encoded.buffer));
        expect(mine).toEqual(theirs);
        expect(mine.records).toHaveLength(records.length);
      }),
      { numRuns: 60 },
    );
  });

  it('installs once', () => {
    expect(installRecordDecoder()).toBe(true);
    expect(require('kafkajs/src/protocol/recordBatch/record/v0/decoder')).toBe(patched.recordDecoder);
  });
});
