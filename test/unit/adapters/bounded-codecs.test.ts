import { gzipSync } from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { registerBoundedCodecs } from '../../../src/adapters/kafka/bounded-codecs';
import { decodeMessages } from '../../../src/adapters/kafka/fetch-messages';
import { refusalOf } from '../../../src/adapters/kafka/refused-batch';

/**
 * The bounded codecs and the fetch's batch decoding, against kafkajs's own record batch encoder (the
 * installed version): a batch within the limit decodes as it was written; one beyond it, or compressed with
 * a codec the process has not, decodes as one placeholder at the batch's last offset whose refusal only
 * this process can read, and the batches after it decode as usual. This pins the batch layout the
 * placeholder reads. kafkajs's protocol internals are required by path: they have no public API.
 */
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (batch: object) => Promise<{ buffer: Buffer }> };
const Long = require('kafkajs/src/utils/long') as { fromInt: (n: number) => unknown };
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: object) => unknown;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => { offset: number; readInt32(): number; canReadBytes(n: number): boolean; readBytes(n: number): Buffer };

interface DecodedRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
  batchContext: { inTransaction: boolean; producerId: string };
}

type Codecs = Record<number, () => unknown>;
const codecs = CompressionCodecs as unknown as Codecs;

/** A record batch at `firstOffset` of these values, compressed by `compress` under `compression`. */
async function batchOf(compression: CompressionTypes, values: string[], compress: (records: Buffer) => Buffer, firstOffset = 100): Promise<Buffer> {
  const registered = codecs[compression];
  codecs[compression] = () => ({ compress: async (encoder: { buffer: Buffer }) => compress(encoder.buffer) });
  try {
    const records = values.map((value, offsetDelta) => Record({ offsetDelta, key: Buffer.from(`k${offsetDelta}`), value: Buffer.from(value) }));
    return (await RecordBatch({ compression, firstOffset: Long.fromInt(firstOffset), lastOffsetDelta: values.length - 1, records })).buffer;
  } finally {
    codecs[compression] = registered!;
  }
}

/** One partition's fetched bytes (size, then the batches back to back), decoded as the consumer does. */
async function decode(...batches: Buffer[]): Promise<DecodedRecord[]> {
  const body = Buffer.concat(batches);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return (await decodeMessages(new Decoder(Buffer.concat([size, body])))) as DecodedRecord[];
}

/** The batch as if it held `count` records (kafkajs reads neither its CRC nor its records before inflating them). */
function claiming(batch: Buffer, count: number): Buffer {
  const copy = Buffer.from(batch);
  copy.writeInt32BE(count - 1, 23); // last offset delta
  copy.writeInt32BE(count, 57); // record count
  return copy;
}

const LIMIT = 'gzip batch inflates beyond 65536 bytes (MAX_DECOMPRESSED_BATCH_BYTES)';

describe('bounded codecs', () => {
  const refused: string[] = [];
  let installed = false;
  beforeAll(() => (installed = registerBoundedCodecs({ maxInflatedBytes: 64 * 1024, onRefused: (detail) => refused.push(detail) })));
  beforeEach(() => (refused.length = 0));

  it('inflate a gzip batch within the limit as it was written', async () => {
    expect(installed).toBe(true);
    const records = await decode(await batchOf(CompressionTypes.GZIP, ['a', 'bb', 'ccc'], (b) => gzipSync(b)));
    expect(records.map((r) => [r.offset, r.key?.toString(), r.value?.toString(), refusalOf(r)])).toEqual([
      ['100', 'k0', 'a', undefined],
      ['101', 'k1', 'bb', undefined],
      ['102', 'k2', 'ccc', undefined],
    ]);
    expect(refused).toEqual([]);
  });

  it('refuse a gzip batch inflating beyond the limit: one placeholder at its last offset, naming its offsets; the next batch decodes', async () => {
    const big = 'x'.repeat(40 * 1024);
    const bomb = await batchOf(CompressionTypes.GZIP, [big, big, big], (b) => gzipSync(b));
    const next = await batchOf(CompressionTypes.GZIP, ['after'], (b) => gzipSync(b), 103);
    const records = await decode(bomb, next);
    expect(records.map((r) => [r.offset, r.key, r.value?.toString() ?? null, refusalOf(r)])).toEqual([
      ['102', null, null, `${LIMIT}; its 3 records at offsets 100–102 skipped`],
      ['103', Buffer.from('k0'), 'after', undefined],
    ]);
    expect(records[0]!.batchContext).toMatchObject({ inTransaction: false, producerId: '-1' });
    expect(refused).toEqual([LIMIT]);
  });

  it('refuse a batch claiming a million records with one placeholder, not a million', async () => {
    const big = 'x'.repeat(70 * 1024);
    const records = await decode(claiming(await batchOf(CompressionTypes.GZIP, [big], (b) => gzipSync(b), 0), 1_000_000));
    expect(records.map((r) => [r.offset, refusalOf(r)])).toEqual([['999999', `${LIMIT}; its 1000000 records at offsets 0–999999 skipped`]]);
  });

  it('refuse a gzip batch that does not inflate, and batches of codecs the process has not', async () => {
    const [corrupt] = await decode(await batchOf(CompressionTypes.GZIP, ['a'], () => Buffer.from('not gzip at all')));
    expect(refusalOf(corrupt!)).toMatch(/^gzip batch does not inflate: .*; its 1 record at offsets 100–100 skipped$/);
    for (const [type, name] of [[CompressionTypes.ZSTD, 'zstd'], [CompressionTypes.Snappy, 'snappy'], [CompressionTypes.LZ4, 'lz4']] as const) {
      const records = await decode(await batchOf(type, ['a', 'b'], (b) => b));
      expect(records.map((r) => [r.offset, refusalOf(r)])).toEqual([['101', `${name} batch: this worker has no ${name} codec; its 2 records at offsets 100–101 skipped`]]);
    }
  });

  it('a refusal header written by a producer is not a refusal: only this process knows the secret', () => {
    expect(refusalOf({ headers: { 'x-wholesale-batch-refused': Buffer.from('0123 gzip batch inflates beyond') } })).toBeUndefined();
    expect(refusalOf({ headers: {} })).toBeUndefined();
  });
});
