import { gzipSync } from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { refusalOf, registerBoundedCodecs, varint } from '../../../src/adapters/kafka/bounded-codecs';

/**
 * The bounded codecs against kafkajs's own record batch encoder and decoder (the installed version): a batch
 * within the limit decodes as it was written; one beyond it, or compressed with a codec the process has
 * not, decodes as placeholders at the batch's offsets whose refusal only this process can read. This pins
 * the batch layout the codecs read around the compressed bytes.
 * kafkajs's protocol internals are required by path: they have no public API.
 */
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (batch: object) => Promise<{ buffer: Buffer }> };
const Long = require('kafkajs/src/utils/long') as { fromInt: (n: number) => unknown };
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: object) => unknown;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (decoder: unknown) => Promise<{ records: DecodedRecord[] }>;

interface DecodedRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}

type Codecs = Record<number, () => unknown>;
const codecs = CompressionCodecs as unknown as Codecs;

/** A batch at offset 100 of these values, compressed by `compress` under `compression`, as a fetch response holds it (after other bytes). */
async function fetchedBatch(compression: CompressionTypes, values: string[], compress: (records: Buffer) => Buffer): Promise<Buffer> {
  const registered = codecs[compression];
  codecs[compression] = () => ({ compress: async (encoder: { buffer: Buffer }) => compress(encoder.buffer) });
  try {
    const records = values.map((value, offsetDelta) => Record({ offsetDelta, key: Buffer.from(`k${offsetDelta}`), value: Buffer.from(value) }));
    const batch = await RecordBatch({ compression, firstOffset: Long.fromInt(100), lastOffsetDelta: values.length - 1, records });
    return Buffer.concat([Buffer.alloc(40, 7), batch.buffer]).subarray(40); // a view, as kafkajs decodes a fetch response
  } finally {
    codecs[compression] = registered!;
  }
}

const decode = async (batch: Buffer) => (await decodeBatch(new Decoder(batch))).records;

describe('bounded codecs', () => {
  const refused: string[] = [];
  beforeAll(() => registerBoundedCodecs({ maxInflatedBytes: 64 * 1024, onRefused: (detail, records) => refused.push(`${records}: ${detail}`) }));
  beforeEach(() => (refused.length = 0));

  it('inflate a gzip batch within the limit as it was written', async () => {
    const records = await decode(await fetchedBatch(CompressionTypes.GZIP, ['a', 'bb', 'ccc'], (b) => gzipSync(b)));
    expect(records.map((r) => [r.offset, r.key?.toString(), r.value?.toString(), refusalOf(r)])).toEqual([
      ['100', 'k0', 'a', undefined],
      ['101', 'k1', 'bb', undefined],
      ['102', 'k2', 'ccc', undefined],
    ]);
    expect(refused).toEqual([]);
  });

  it('refuse a gzip batch inflating beyond the limit: placeholders at its offsets, no value', async () => {
    const big = 'x'.repeat(40 * 1024);
    const records = await decode(await fetchedBatch(CompressionTypes.GZIP, [big, big], (b) => gzipSync(b)));
    expect(records.map((r) => [r.offset, r.key, r.value, refusalOf(r)])).toEqual([
      ['100', null, null, 'gzip batch inflates beyond 65536 bytes (MAX_DECOMPRESSED_BATCH_BYTES)'],
      ['101', null, null, 'gzip batch inflates beyond 65536 bytes (MAX_DECOMPRESSED_BATCH_BYTES)'],
    ]);
    expect(refused).toEqual(['2: gzip batch inflates beyond 65536 bytes (MAX_DECOMPRESSED_BATCH_BYTES)']);
  });

  it('refuse a gzip batch that does not inflate, and batches of codecs the process has not', async () => {
    const corrupt = await decode(await fetchedBatch(CompressionTypes.GZIP, ['a'], () => Buffer.from('not gzip at all')));
    expect(refusalOf(corrupt[0]!)).toMatch(/^gzip batch does not inflate: /);
    for (const [type, name] of [[CompressionTypes.ZSTD, 'zstd'], [CompressionTypes.Snappy, 'snappy'], [CompressionTypes.LZ4, 'lz4']] as const) {
      const records = await decode(await fetchedBatch(type, ['a', 'b'], (b) => b));
      expect(records.map((r) => [r.offset, refusalOf(r)])).toEqual([
        ['100', `${name} batch: this worker has no ${name} codec`],
        ['101', `${name} batch: this worker has no ${name} codec`],
      ]);
    }
  });

  it('a refusal header written by a producer is not a refusal: only this process knows the secret', () => {
    expect(refusalOf({ headers: { 'x-wholesale-batch-refused': Buffer.from('0123 gzip batch inflates beyond') } })).toBeUndefined();
    expect(refusalOf({ headers: {} })).toBeUndefined();
  });

  it('varint writes the record format\'s zig-zag varints', () => {
    expect([0, -1, 1, 63, 64, -65, 300].map((n) => varint(n).toString('hex'))).toEqual(['00', '01', '02', '7e', '8001', '8101', 'd804']);
  });
});
