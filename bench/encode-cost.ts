import { installPooledEncoder } from '../src/adapters/kafka/pooled-encoder';
import { installRecordDecoder } from '../src/adapters/kafka/record-decoder';
import { installRecordEncoder } from '../src/adapters/kafka/record-encoder';

/**
 * `npm run bench:encode`: what kafkajs costs to encode one produce request like the worker's — 24 records of
 * ~850 bytes with three headers over four partitions — with kafkajs's own encoding, with its Encoder patched
 * (src/adapters/kafka/pooled-encoder.ts), then with its record function replaced too (record-encoder.ts);
 * and to decode such records fetched in one record batch, with kafkajs's record decoder and with
 * record-decoder.ts. CPU per request or batch (process CPU, garbage collection included) and wall time,
 * after a warm-up; a few seconds in all. The figures to compare when those patches change.
 */
const REQUESTS = 20_000;
const WARM_UP = 2_000;

interface Request { encode(): Promise<unknown> }
type Produce = (args: { acks: number; timeout: number; topicData: unknown[] }) => Request;
type Frame = (args: { correlationId: number; clientId: string; request: Request }) => Promise<unknown>;

const value = Buffer.alloc(700, 7);
const messages = Array.from({ length: 24 }, (_, i) => ({
  key: `1800000000${String(i).padStart(2, '0')}`,
  value,
  headers: { 'X-Correlation-Id': `abcdefgh-1234-5678-9abc-${String(i).padStart(12, '0')}`, 'content-type': 'application/avro', ce_id: 'x'.repeat(40) },
  timestamp: Date.now(),
}));
const topicData = [0, 1, 2, 3].map((partition) => ({
  topic: 'wholesale.partner.100000108464.balance.replies.v1',
  partitions: [{ partition, firstSequence: 0, messages: messages.slice(partition * 6, partition * 6 + 6) }],
}));

/**
 * Runs `install`, then loads kafkajs's modules afresh: its request and batch modules capture the record
 * functions when they load, so each configuration gets its own.
 */
function freshModules<T>(install: () => void, load: () => T): T {
  for (const path of Object.keys(require.cache)) if (/kafkajs\/src\/protocol\/(requests|request\.js|recordBatch)/.test(path)) delete require.cache[path];
  install();
  return load();
}

async function measure(label: string, run: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const cpu = process.cpuUsage();
  const began = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await run();
  const wallMicros = Number(process.hrtime.bigint() - began) / 1000 / REQUESTS;
  const used = process.cpuUsage(cpu);
  console.log(`| ${label} | ${((used.user + used.system) / REQUESTS).toFixed(0)} | ${wallMicros.toFixed(0)} |`);
}

async function measureEncoding(label: string, install: () => void = () => {}): Promise<void> {
  const { produce, frame } = freshModules(install, () => ({
    produce: require('kafkajs/src/protocol/requests/produce/v3/request') as Produce,
    frame: require('kafkajs/src/protocol/request') as Frame,
  }));
  await measure(label, () => frame({ correlationId: 1, clientId: 'bench', request: produce({ acks: -1, timeout: 30_000, topicData }) }));
}

/** The 24 records as a fetch returns them: one record batch, encoded by kafkajs. */
async function fetchedBatch(): Promise<Buffer> {
  const record = require('kafkajs/src/protocol/recordBatch/record/v0') as (fields: object) => unknown;
  const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (fields: object) => Promise<{ buffer: Buffer }> };
  const now = Date.now();
  const records = messages.map((m, i) => record({ ...m, offsetDelta: i, timestampDelta: 0 }));
  return (await RecordBatch({ firstOffset: require('kafkajs/src/utils/long').fromNumber(123_456_789), firstTimestamp: now, maxTimestamp: now, lastOffsetDelta: 23, records })).buffer;
}

type BatchDecoder = (decoder: unknown) => Promise<{ records: unknown[] }>;

async function measureDecoding(label: string, batch: Buffer, install: () => void = () => {}): Promise<void> {
  const { Decoder, decodeBatch } = freshModules(install, () => ({
    Decoder: require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown,
    decodeBatch: require('kafkajs/src/protocol/recordBatch/v0/decoder') as BatchDecoder,
  }));
  await measure(label, () => decodeBatch(new Decoder(batch)));
}

async function main(): Promise<void> {
  const batch = await fetchedBatch();
  console.log('| Encoding a produce request | CPU µs per request | wall µs per request |\n|---|---:|---:|');
  await measureEncoding("kafkajs's own");
  await measureEncoding('Encoder patched (pooled-encoder.ts)', installPooledEncoder);
  await measureEncoding('and records (record-encoder.ts)', () => {
    if (!installRecordEncoder()) throw new Error('the record encoder could not be installed');
  });
  console.log(`(${REQUESTS} produce requests of 24 records each, after ${WARM_UP} unmeasured)\n`);
  console.log('| Decoding a fetched record batch | CPU µs per batch | wall µs per batch |\n|---|---:|---:|');
  await measureDecoding("kafkajs's own", batch);
  await measureDecoding('records decoded by record-decoder.ts', batch, () => {
    if (!installRecordDecoder()) throw new Error('the record decoder could not be installed');
  });
  console.log(`(${REQUESTS} batches of the same 24 records, after ${WARM_UP} unmeasured)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
