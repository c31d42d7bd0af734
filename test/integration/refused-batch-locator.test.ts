import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Consumer, type Message } from '@platformatic/kafka';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { registerBoundedCodecs } from '../../src/adapters/kafka/bounded-codecs';
import { batchRefusalIn, type BatchRefused } from '../../src/adapters/kafka/refused-batch';
import type { InboundRecord } from '../../src/contract/transport';
import { locateRefusedBatch, probeBudget, type LocatorCost, type RefusalCandidate } from '../../src/adapters/kafka/refused-batch-locator';
import { gzipBomb, sendBomb, sendEmptyRecords, zstdBomb } from '../faults/support/compression-bombs';
import { testConfig } from '../support/harness';
import { createTopicsWithLeaders } from '../support/kafkajs-topics';

jest.setTimeout(240_000);

/**
 * On a real broker, with the bounded codecs in @platformatic/kafka's codec table: a consumer's stream dies
 * of each refused batch (a gzip bomb, a gzip batch of 50,000 empty records beyond the bound, a zstd bomb)
 * with a BatchRefused; the locator finds exactly each batch's offsets from where the stream stopped (a
 * partition of good records among the candidates); and past them the stream consumes good records and a
 * small zstd batch, which is inflated (within the bound). The process's peak RSS while the 300 MB bomb is
 * refused and probed stays far below one inflated record. The partner's side produces with kafkajs.
 */
const MB = 1024 * 1024;
/** Below the flood's ≈ 400 KB inflated, far above a batch of good records. */
const MAX_INFLATED_BYTES = 256 * 1024;
const BOMB_BYTES = 300 * MB;
const FLOOD_RECORDS = 50_000;
const SMALL_ZSTD_BYTES = 100;
/** The stream's fetch size per partition, which the locator is told. */
const MAX_BYTES_PER_PARTITION = 1024 * 1024;
const GZIP_LIMIT = `gzip batch inflates beyond ${MAX_INFLATED_BYTES} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`;
const ZSTD_LIMIT = `zstd batch inflates beyond ${MAX_INFLATED_BYTES} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`;

/** The process's peak RSS since the last reset (Linux: VmHWM, reset by writing 5 to clear_refs). */
const peakRss = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

interface Read {
  delivered: { partition: number; offset: bigint; value: Buffer | undefined }[];
  error?: Error;
}

describe('a refused batch, located by one-batch probes', () => {
  const config = testConfig();
  const brokers = config.kafka.brokers;
  const topic = `refused-batch-${randomUUID()}`;
  const kafka = new Kafka({ clientId: 'refused-batch-test', brokers, logLevel: logLevel.NOTHING });
  const sent = { good: [] as bigint[][], bomb: -1n, flood: { first: -1n, last: -1n }, zstdBomb: -1n, smallZstd: -1n, after: -1n, partitionOne: [] as bigint[] };
  let consumer: Consumer;
  let bombs: { gzip: Buffer; zstd: Buffer };
  const costs: Record<string, LocatorCost> = {};
  /** What the stream's 'error' event carried. */
  const shapes: Record<string, string> = {};
  /**
   * The client's retries while locating: a probe refused after one that decoded leaves the client's fetch
   * session an epoch behind the broker's, so the next probe is answered INVALID_FETCH_SESSION_EPOCH and
   * retried once, after the client's retry delay (seen once per location).
   */
  const retriedBy: Record<string, string[]> = {};

  beforeAll(async () => {
    expect(registerBoundedCodecs({ maxInflatedBytes: MAX_INFLATED_BYTES })).toBe(true);
    bombs = { gzip: await gzipBomb(BOMB_BYTES), zstd: zstdBomb(BOMB_BYTES) };
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
    await admin.disconnect();
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const good = async (partition: number, label: string): Promise<bigint[]> => {
      const messages = [1, 2, 3].map((n) => ({ partition, value: `${label} ${n}` }));
      const [ack] = await producer.send({ topic, acks: -1, messages });
      return [0n, 1n, 2n].map((n) => BigInt(ack.baseOffset!) + n);
    };
    try {
      sent.partitionOne = await good(1, 'partition one');
      sent.good.push(await good(0, 'before the bomb'));
      sent.bomb = BigInt(await sendBomb(producer, topic, 0, CompressionTypes.GZIP, bombs.gzip));
      sent.good.push(await good(0, 'after the bomb'));
      const floodFirst = BigInt(await sendEmptyRecords(brokers[0], topic, 0, CompressionTypes.GZIP, FLOOD_RECORDS));
      sent.flood = { first: floodFirst, last: floodFirst + BigInt(FLOOD_RECORDS) - 1n };
      sent.good.push(await good(0, 'after the flood'));
      sent.zstdBomb = BigInt(await sendBomb(producer, topic, 0, CompressionTypes.ZSTD, bombs.zstd));
      sent.smallZstd = BigInt(await sendBomb(producer, topic, 0, CompressionTypes.ZSTD, zstdBomb(SMALL_ZSTD_BYTES)));
      sent.after = (await good(0, 'at the end'))[0]!;
    } finally {
      await producer.disconnect();
    }
    consumer = new Consumer({ clientId: 'refused-batch-test', bootstrapBrokers: brokers, groupId: `refused-batch-${randomUUID()}`, retries: 3, retryDelay: 200 });
  });

  afterAll(async () => {
    await consumer?.close(true);
    // the client's codec table is the process's, shared with the test files after this one: the service's bound again
    registerBoundedCodecs({ maxInflatedBytes: testConfig().limits.maxDecompressedBatchBytes });
  });

  /** Reads both partitions from `offsets` until the stream dies, `done` says so, or 20 s pass. */
  async function read(offsets: Map<number, bigint>, done: (delivered: Read['delivered']) => boolean = () => false): Promise<Read> {
    const stream = await consumer.consume({
      topics: [topic],
      mode: 'manual',
      offsets: [...offsets].map(([partition, offset]) => ({ topic, partition, offset })),
      autocommit: false,
      maxWaitTime: 100,
      maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
    });
    const result: Read = { delivered: [] };
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => {
        result.delivered.push({ partition: message.partition, offset: message.offset, value: message.value });
        if (done(result.delivered)) finish();
      });
      stream.on('error', (error: Error) => {
        result.error = error;
        finish();
      });
    });
    await stream.close().catch(() => undefined);
    return result;
  }

  /** Where the stream would go on: after the last record delivered on each partition, else where it began. */
  const nextOffsets = (from: Map<number, bigint>, { delivered }: Read): Map<number, bigint> => {
    const next = new Map(from);
    for (const { partition, offset } of delivered) if (offset + 1n > next.get(partition)!) next.set(partition, offset + 1n);
    return next;
  };
  // partition one (good records only) is probed first: the culprit must be told apart by the fingerprint
  const candidatesOf = (next: Map<number, bigint>): RefusalCandidate[] => [1, 0].map((partition) => ({ topic, partition, offset: next.get(partition)! }));
  const offsetsOn = (partition: number, { delivered }: Read) => delivered.filter((d) => d.partition === partition).map((d) => d.offset);

  /** Reads from `from` until the stream dies of a refusal; locates the refused batch. */
  async function readAndLocate(name: string, from: Map<number, bigint>) {
    const read0 = await read(from);
    const refusal = batchRefusalIn(read0.error);
    expect([name, read0.error?.message]).toEqual([name, refusal?.message]);
    const cost: LocatorCost = { probes: 0, ms: 0 };
    const retries: string[] = [];
    const onRetry = (operation: string) => retries.push(operation);
    consumer.on('client:performWithRetry:retry', onRetry);
    const located = await locateRefusedBatch(consumer, candidatesOf(nextOffsets(from, read0)), refusal as BatchRefused, { maxBytesPerPartition: MAX_BYTES_PER_PARTITION, cost });
    consumer.off('client:performWithRetry:retry', onRetry);
    costs[name] = cost;
    retriedBy[name] = retries;
    shapes[name] = read0.error === refusal ? 'the BatchRefused itself' : `${read0.error?.name} wrapping it`;
    return { read: read0, refusal: refusal!, located, next: nextOffsets(from, read0) };
  }

  it('refuses the gzip bomb, the flood and the zstd bomb in turn, each located exactly, and consumes a small zstd batch', async () => {
    const rssBefore = process.memoryUsage.rss();
    const peakResettable = resetPeakRss();
    const bomb = await readAndLocate(
      'gzip bomb',
      new Map([
        [0, 0n],
        [1, 0n],
      ]),
    );
    const peakDuringBomb = peakRss();
    // the good records before each refused batch: delivered by the stream, or (when the failed fetch held
    // them) handed back by the locator — together exactly the records sent, in order
    const goodOf = (read: Read, before: InboundRecord[] | undefined) => [...offsetsOn(0, read), ...(before ?? []).map((r) => BigInt(r.offset))];
    expect(goodOf(bomb.read, bomb.located?.before)).toEqual(sent.good[0]);
    expect(bomb.refusal.detail).toBe(GZIP_LIMIT);
    expect(bomb.located && { ...bomb.located, before: undefined }).toEqual({ topic, partition: 0, first: sent.bomb, last: sent.bomb, before: undefined });

    const flood = await readAndLocate('gzip flood', new Map([...bomb.next, [0, sent.bomb + 1n]]));
    expect(goodOf(flood.read, flood.located?.before)).toEqual(sent.good[1]);
    expect(flood.refusal.detail).toBe(GZIP_LIMIT);
    expect(flood.located && { ...flood.located, before: undefined }).toEqual({ topic, partition: 0, first: sent.flood.first, last: sent.flood.last, before: undefined });

    const zstd = await readAndLocate('zstd bomb', new Map([...flood.next, [0, sent.flood.last + 1n]]));
    expect(goodOf(zstd.read, zstd.located?.before)).toEqual(sent.good[2]);
    expect(zstd.refusal.detail).toBe(ZSTD_LIMIT);
    expect(zstd.located && { ...zstd.located, before: undefined }).toEqual({ topic, partition: 0, first: sent.zstdBomb, last: sent.zstdBomb, before: undefined });
    const handedBack = [bomb, flood, zstd].flatMap((step) => step.located!.before);
    expect(handedBack.every((r) => r.key === null && /^(before the bomb|after the bomb|after the flood) [123]$/.test(r.value!.toString()))).toBe(true);

    const last = sent.after + 2n;
    const rest = await read(new Map([...zstd.next, [0, sent.zstdBomb + 1n]]), (delivered) => delivered.some((d) => d.partition === 0 && d.offset === last));
    expect(rest.error).toBeUndefined();
    expect(offsetsOn(0, rest)).toEqual([sent.smallZstd, sent.after, sent.after + 1n, last]);
    // the small zstd batch's one record: SMALL_ZSTD_BYTES zero bytes (compression-bombs.ts's record of zeros)
    expect(rest.delivered.find((d) => d.offset === sent.smallZstd)?.value).toEqual(Buffer.alloc(SMALL_ZSTD_BYTES));
    expect(offsetsOn(1, { delivered: [...bomb.read.delivered, ...flood.read.delivered, ...zstd.read.delivered, ...rest.delivered] })).toContain(sent.partitionOne[2]);

    console.log(
      [
        `bombs of one ${BOMB_BYTES / MB} MB record: gzip ${(bombs.gzip.length / 1024).toFixed(0)} KB, zstd ${(bombs.zstd.length / 1024).toFixed(1)} KB on the wire; bound ${MAX_INFLATED_BYTES / 1024} KiB`,
        `RSS before ${(rssBefore / MB).toFixed(0)} MB; peak while the gzip bomb was refused and located ${(peakDuringBomb / MB).toFixed(0)} MB (${peakResettable ? 'VmHWM reset before it' : 'VmHWM since the process began'})`,
        ...Object.entries(costs).map(([name, cost]) => `${name}: ${cost.probes} probes in ${cost.ms} ms`),
        `the client's retries while locating: ${JSON.stringify(retriedBy)}`,
        `the streams' errors: ${JSON.stringify(shapes)}`,
        `good records the failed fetches held, handed back by the locator: ${[bomb, flood, zstd].map((step) => step.located!.before.length).join(', ')}; delivered by the streams before they died: ${[bomb, flood, zstd].map((step) => offsetsOn(0, step.read).length).join(', ')}`,
      ].join('\n'),
    );
    expect(peakDuringBomb - rssBefore).toBeLessThan(100 * MB);
    // partition one: a probe or two; the batch's start: one probe a batch before it; its end: ≈ 2 × log2 of its span
    for (const cost of Object.values(costs)) expect(cost.probes).toBeLessThanOrEqual(4 + 2 + probeBudget(sent.after + 3n - sent.flood.first));
  });
});
