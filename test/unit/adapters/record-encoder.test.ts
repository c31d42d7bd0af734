import fc from 'fast-check';
import { encodeRecord, installRecordEncoder, type RecordFields } from '../../../src/adapters/kafka/record-encoder';
import { installPooledEncoder } from '../../../src/adapters/kafka/pooled-encoder';
import { assertSameProduceRequests, produceModules } from '../../support/kafkajs-produce';

/**
 * encodeRecord writes the same bytes as kafkajs's own record function, and once installed kafkajs's produce
 * requests use it: every test encodes with both, kafkajs's own loaded apart (jest.isolateModules gives a
 * second, unpatched copy of its modules).
 */
type KafkajsRecord = (fields: RecordFields) => { buffer: Buffer };

function kafkajs() {
  return {
    Encoder: require('kafkajs/src/protocol/encoder'),
    record: require('kafkajs/src/protocol/recordBatch/record/v0') as KafkajsRecord,
    ...produceModules(),
  };
}

// Installed first, as createKafka does: before kafkajs's produce request is loaded.
installPooledEncoder();
const installed = installRecordEncoder();
const patched = kafkajs();
let stock!: ReturnType<typeof kafkajs>;
jest.isolateModules(() => {
  stock = kafkajs();
});

const bytes = fc.uint8Array({ maxLength: 1500 }).map((a) => Buffer.from(a));
const text = fc.string({ unit: 'grapheme', maxLength: 60 });
const headerValue = fc.oneof(text, bytes);
const record: fc.Arbitrary<RecordFields> = fc.record(
  {
    offsetDelta: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    // deltas within int32 take the 32-bit path, the rest kafkajs's own 64-bit one: both sides of each bound
    timestampDelta: fc.oneof(fc.integer({ min: -(2 ** 31) - 2, max: 2 ** 31 + 2 }), fc.constantFrom(-(2 ** 31) - 1, -(2 ** 31), 2 ** 31 - 1, 2 ** 31), fc.integer({ min: -(2 ** 52), max: 2 ** 52 })),
    key: fc.oneof(fc.constant(null), text, bytes),
    value: fc.oneof(fc.constant(null), bytes, text),
    headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })), { maxKeys: 5 }),
  },
  { requiredKeys: [] },
);

describe("the record encoder (kafkajs's record function, replaced)", () => {
  it('writes the same bytes as kafkajs for any record: null, text and byte keys and values, headers with several values, any timestamp delta', () => {
    fc.assert(
      fc.property(record, (fields) => {
        expect(encodeRecord(patched.Encoder, fields).buffer.equals(stock.record(fields).buffer)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("is what kafkajs's produce requests use once installed, and they frame the same bytes", async () => {
    expect(installed).toBe(true);
    expect(patched.record).not.toBe(stock.record);
    await assertSameProduceRequests(patched, stock);
  });

  it('installs once', () => {
    expect(installRecordEncoder()).toBe(true);
    expect(require('kafkajs/src/protocol/recordBatch/record/v0')).toBe(patched.record);
  });

  it('fails as kafkajs does on a null header value', () => {
    const fields = { key: 'k', value: Buffer.from('v'), headers: { a: null as unknown as string } };
    const kafkajsError = /argument must be of type string or an instance of Buffer/;
    expect(() => stock.record(fields)).toThrow(kafkajsError);
    expect(() => encodeRecord(patched.Encoder, fields)).toThrow(kafkajsError);
  });
});
