import fc from 'fast-check';
import { installFetchMessages } from '../../../src/adapters/kafka/fetch-messages';

/**
 * decodeMessages returns the same records as kafkajs's own for one partition's fetched bytes, of any number:
 * kafkajs's own throws on a batch of ~125,000 records (a spread call's arguments exceed the stack). Both
 * decode bytes made by kafkajs's own record batch encoder; kafkajs's own is loaded apart (jest.isolateModules).
 */
type DecodeMessages = (decoder: unknown) => Promise<unknown[]>;

function kafkajs() {
  return {
    Decoder: require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown,
    decodeMessages: require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages') as DecodeMessages,
    record: require('kafkajs/src/protocol/recordBatch/record/v0') as (fields: object) => unknown,
    batch: (require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (fields: object) => Promise<{ buffer: Buffer }> }).RecordBatch,
    Long: require('kafkajs/src/utils/long') as { fromNumber(n: number): unknown },
  };
}

// Installed first, as createKafka does: before kafkajs's fetch responses are loaded.
const installed = installFetchMessages();
const patched = kafkajs();
let stock!: ReturnType<typeof kafkajs>;
jest.isolateModules(() => {
  stock = kafkajs();
});

/** One partition's fetched bytes: the size, then record batches back to back, the last one cut short by `cut` bytes. */
async function fetched(batches: { key: string | null; value: string | null }[][], cut = 0): Promise<Buffer> {
  let firstOffset = 0;
  const encoded: Buffer[] = [];
  for (const records of batches) {
    const batch = await stock.batch({
      firstOffset: stock.Long.fromNumber(firstOffset),
      lastOffsetDelta: records.length - 1,
      records: records.map((r, i) => stock.record({ ...r, offsetDelta: i, headers: {} })),
    });
    encoded.push(batch.buffer);
    firstOffset += records.length;
  }
  const bytes = Buffer.concat(encoded);
  const body = bytes.subarray(0, bytes.length - cut);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

const decodeWith = (side: ReturnType<typeof kafkajs>, bytes: Buffer) => side.decodeMessages(new side.Decoder(bytes));

describe("the fetched messages decoder (kafkajs's decodeMessages, replaced)", () => {
  it('returns the same records as kafkajs for any batches, a partial batch at the tail included', async () => {
    expect(installed).toBe(true);
    const record = fc.record({ key: fc.option(fc.string({ maxLength: 20 })), value: fc.option(fc.string({ maxLength: 200 })) });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(record, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }), fc.nat({ max: 30 }), async (batches, cut) => {
        const bytes = await fetched(batches, cut);
        expect(await decodeWith(patched, bytes)).toEqual(await decodeWith(stock, bytes));
      }),
      { numRuns: 100 },
    );
  });

  it("decodes a batch of 200,000 records, on which kafkajs's own throws", async () => {
    const bytes = await fetched([Array.from({ length: 200_000 }, () => ({ key: null, value: null }))]);
    await expect(decodeWith(stock, bytes)).rejects.toThrow(/Maximum call stack size exceeded/);
    const records = (await decodeWith(patched, bytes)) as { offset: string }[];
    expect(records).toHaveLength(200_000);
    expect(records[199_999]!.offset).toBe('199999');
  });

  it('installs once', () => {
    expect(installFetchMessages()).toBe(true);
    expect(require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages')).toBe(patched.decodeMessages);
  });
});
