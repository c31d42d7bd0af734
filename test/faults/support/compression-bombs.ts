import { connect } from 'node:net';
import { createGzip } from 'node:zlib';
import { CompressionCodecs, CompressionTypes, type Producer } from 'kafkajs';
import { compressFrameSync } from 'lz4-napi';
import { compressSync as snappyCompressSync } from 'snappy';
import { varint } from '../../support/avro-bytes';
import { produceModules } from '../../support/kafkajs-produce';

// Compressed record batches whose one record inflates to `inflatedBytes` (its value all zeros), produced on
// a real broker. kafkajs compresses a batch's records with the codec registered for its compression type;
// while a bomb is sent, that codec hands kafkajs the bomb's bytes instead (the test process only), and
// kafkajs writes them into a valid batch (record count 1, CRC over the bytes as sent). Neither side holds
// the inflated record: the gzip stream is fed in chunks, the zstd frame is written by hand with RLE blocks.
// Snappy (≈ 21:1 at best) and LZ4 (≈ 255:1) cannot carry 300 MB in a batch the broker accepts (1 MB), so
// their bombs are smaller and made whole, in the test process only, with the codecs' own packages.

/**
 * The record's bytes before its value (length, attributes, timestamp and offset deltas, null key, value
 * length); after the value only the header count follows, 0 — a zero byte like the value's.
 */
function recordHead(valueBytes: number): Buffer {
  const afterLength = Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(-1), varint(valueBytes)]);
  const bodyBytes = afterLength.length + valueBytes + 1;
  return Buffer.concat([varint(bodyBytes), afterLength]);
}

/** gzip of one record of `inflatedBytes` zeros (deflate tops out near 1:1000, so 300 MB is ≈ 300 KB). */
export async function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(1024 * 1024);
  const write = (chunk: Buffer) => (gzip.write(chunk) ? Promise.resolve() : new Promise((resolve) => gzip.once('drain', resolve)));
  await write(recordHead(inflatedBytes));
  for (let left = inflatedBytes + 1; left > 0; left -= zeros.length) await write(left >= zeros.length ? zeros : zeros.subarray(0, left));
  gzip.end();
  await done;
  return Buffer.concat(chunks);
}

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_BLOCK = 128 * 1024;

/** A zstd block header: last-block bit, type (0 raw, 1 RLE), size (for RLE: how many times its byte repeats). */
function zstdBlockHeader(last: boolean, type: 0 | 1, size: number): Buffer {
  const value = (last ? 1 : 0) | (type << 1) | (size << 3);
  return Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff]);
}

/** A zstd frame of one record of `inflatedBytes` zeros: its head in a raw block, then RLE blocks of zeros (4 bytes per 128 KiB). */
export function zstdBomb(inflatedBytes: number): Buffer {
  const head = recordHead(inflatedBytes);
  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(ZSTD_MAGIC);
  // frame header: no content size, no checksum, no dictionary; window 128 KiB (exponent 7)
  const parts = [magic, Buffer.from([0x00, 7 << 3]), zstdBlockHeader(false, 0, head.length), head];
  for (let left = inflatedBytes + 1; left > 0; left -= ZSTD_BLOCK) {
    const size = Math.min(ZSTD_BLOCK, left);
    parts.push(zstdBlockHeader(left <= ZSTD_BLOCK, 1, size), Buffer.from([0]));
  }
  return Buffer.concat(parts);
}

/** One record of `inflatedBytes` zeros, whole: what the Snappy and LZ4 bombs compress. */
function zeroRecord(inflatedBytes: number): Buffer {
  const head = recordHead(inflatedBytes);
  const record = Buffer.alloc(head.length + inflatedBytes + 1);
  head.copy(record);
  return record;
}

/** Raw Snappy of one record of `inflatedBytes` zeros (16 MB is ≈ 770 KB). */
export const snappyBomb = (inflatedBytes: number): Buffer => snappyCompressSync(zeroRecord(inflatedBytes));

/** An LZ4 frame (independent 4 MiB blocks, no content size: the running bound's case) of one record of `inflatedBytes` zeros (200 MB is ≈ 820 KB). */
export const lz4Bomb = (inflatedBytes: number): Buffer => compressFrameSync(zeroRecord(inflatedBytes));

type Codecs = Record<number, () => unknown>;

/** Sends one batch that carries `compressed` as its one record, under `compression`; resolves with its offset. */
export async function sendBomb(producer: Producer, topic: string, partition: number, compression: CompressionTypes, compressed: Buffer): Promise<string> {
  const codecs = CompressionCodecs as unknown as Codecs;
  const registered = codecs[compression];
  codecs[compression] = () => ({ compress: async () => compressed, decompress: async () => Buffer.alloc(0) });
  try {
    const [ack] = await producer.send({ topic, acks: -1, compression, messages: [{ partition, key: null, value: 'replaced by the bomb' }] });
    return ack.baseOffset!;
  } finally {
    codecs[compression] = registered!;
  }
}

const { decode: decodeProduceResponse, parse: parseProduceResponse } = require('kafkajs/src/protocol/requests/produce/v3/response') as {
  decode: (payload: Buffer) => Promise<unknown>;
  parse: (decoded: unknown) => Promise<{ topics: { partitions: { baseOffset: string }[] }[] }>;
};

/**
 * Sends one record batch of `count` empty records (no key, no value), compressed under `compression`, to
 * `partition` of `topic` on `broker`: one Produce request written with kafkajs's request encoder and sent on
 * a socket of its own. kafkajs's producer cannot send such a batch — it groups a call's messages per
 * partition by copying the partition's array once per message, so 150,000 messages took minutes.
 * Resolves with the batch's base offset.
 */
export async function sendEmptyRecords(broker: string, topic: string, partition: number, compression: CompressionTypes, count: number): Promise<string> {
  const { produce, frame } = produceModules();
  const messages = Array.from({ length: count }, () => ({ key: null, value: null }));
  const request = produce({ acks: -1, timeout: 30_000, compression, topicData: [{ topic, partitions: [{ partition, messages }] }] });
  const bytes = (await frame({ correlationId: 1, clientId: 'faults-raw-batch', request })).buffer;
  const [host, port] = broker.split(':');
  const response = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect({ host, port: Number(port) }, () => socket.write(bytes));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        socket.end();
        resolve(received.subarray(4 + 4, 4 + received.readInt32BE(0))); // after the size and the correlation id
      }
    });
    socket.on('error', reject);
  });
  const parsed = await parseProduceResponse(await decodeProduceResponse(response));
  return parsed.topics[0].partitions[0].baseOffset;
}
