import { CompressionTypes } from 'kafkajs';
import { DLQ_HEADER } from '../../src/contract/headers';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { gzipBomb, lz4Bomb, sendBomb, sendEmptyRecords, snappyBomb, zstdBomb } from './support/compression-bombs';
import { faultConfig, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { drainTopic, endOffsets, headerString, kafkaClient } from './support/topics';

jest.setTimeout(360_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14: compressed batches whose record inflates to hundreds of MB, in all four of Kafka's codecs. A
 * gzip batch (≈ 300 KB on the wire) and a zstd one (≈ 10 KB) of one 300 MB record each, an LZ4 one of a
 * 200 MB record (≈ 820 KB) and a Snappy one of a 16 MB record (≈ 770 KB: Snappy tops out near 21:1), each
 * on a partition of the balance commands and of the NP responses (Snappy after gzip, LZ4 after zstd: two
 * refused batches in a row); then 200 valid UpdateBalances, sent gzip-compressed over every partition. The
 * worker must neither crash nor stall nor inflate them: each bomb dead-lettered (UNDECOMPRESSABLE, naming
 * its offset), its RSS high-water mark well below one inflated record, and every valid command applied once.
 * Every bomb is refused by the inflation bound (its dead letter says so), and a zstd batch that is no
 * bomb — one 100-byte record — is consumed like any other: inflated, read and judged by the decoder.
 * Issue 16: a refused batch of many records — a gzip batch of 300,000 empty records (≈ 420 KB on the wire,
 * 2.7 MB inflated, beyond the worker's limit here) on a third partition of the commands — costs one dead
 * letter naming its offsets, not one placeholder record and dead letter per record. And a batch of 150,000
 * empty records within the limit, on the fourth (kafkajs's own fetch decoding overflowed the stack on it,
 * on every restart, when the service ran on kafkajs); its records (no credentials) are refused, recorded
 * UNAUTHENTICATED within the refusal budget and counted past it, and the worker goes past them.
 * The test reads the command topic's order with kafkajs, a partner's client with no bound: only between the
 * batches it cannot read (after the bombs, before the large batch).
 */
const MB = 1024 * 1024;
const INFLATED_BYTES = 300 * MB;
/** What the LZ4 and Snappy bombs inflate to: as much as a batch the broker accepts (1 MB) carries in each. */
const LZ4_INFLATED_BYTES = 200 * MB;
const SNAPPY_INFLATED_BYTES = 16 * MB;
/** The worker's (and this test's) MAX_DECOMPRESSED_BATCH_BYTES: below the flood batch's 2.7 MB, above the large batch's 1.3 MB. */
const MAX_INFLATED_BYTES = 2 * MB;
const FLOOD_RECORDS = 300_000;
const LARGE_BATCH_RECORDS = 150_000;
/**
 * The default budget of refusals recorded (the other fault tests record every one): the large batch's
 * records, which carry no credentials, are recorded up to it and only counted past it, as in production.
 * Nothing else here is refused that way (the bombs are dead-lettered before any check, the commands pass).
 */
const REFUSAL_BUDGET = { REJECTED_RATE_PER_SECOND: '10', REJECTED_BURST: '20' };
const VALID = 200;
/** The record of the zstd batch that is no bomb: far below any bound. */
const SMALL_ZSTD_BYTES = 100;
/** The worker's peak RSS may grow by this much over its RSS before the bombs: far below one inflated record. */
const PEAK_GROWTH_LIMIT = 150 * MB;

const tallyBy = <T>(items: T[], keyOf: (item: T) => string): Record<string, number> => {
  const tally: Record<string, number> = {};
  for (const item of items) tally[keyOf(item)] = (tally[keyOf(item)] ?? 0) + 1;
  return tally;
};

describe('compressed batches that inflate to 300 MB (gzip, zstd; LZ4 200 MB, Snappy 16 MB)', () => {
  let worker: WorkerProcess | undefined;
  let load: BalanceLoad | undefined;

  afterAll(async () => {
    await worker?.signal('SIGKILL');
    await load?.stop();
  });

  it('are dead-lettered without inflating them; the worker keeps its memory and handles what follows', async () => {
    const began = Date.now();
    const config = await faultConfig();
    const { topics } = config;
    await createTopics(config);
    load = await BalanceLoad.prepare(config, { subscriptions: 8, commands: VALID, producers: 1, ratePerSecond: 100, compression: CompressionTypes.GZIP });
    await load.watchReplies();
    worker = await WorkerProcess.start({ ...workerEnv(config), MAX_DECOMPRESSED_BATCH_BYTES: String(MAX_INFLATED_BYTES), ...REFUSAL_BUDGET });
    const rssBefore = worker.rssBytes();

    const bombs = { gzip: await gzipBomb(INFLATED_BYTES), zstd: zstdBomb(INFLATED_BYTES), snappy: snappyBomb(SNAPPY_INFLATED_BYTES), lz4: lz4Bomb(LZ4_INFLATED_BYTES) };
    const producer = kafkaClient(config.kafka.brokers, 'faults-bombs').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const sent: { kind: string; topic: string; partition: number; offset: string }[] = [];
    try {
      for (const topic of [topics.balanceCommands, topics.npResponses]) {
        sent.push({ kind: 'gzip', topic, partition: 0, offset: await sendBomb(producer, topic, 0, CompressionTypes.GZIP, bombs.gzip) });
        sent.push({ kind: 'zstd', topic, partition: 1, offset: await sendBomb(producer, topic, 1, CompressionTypes.ZSTD, bombs.zstd) });
        sent.push({ kind: 'snappy', topic, partition: 0, offset: await sendBomb(producer, topic, 0, CompressionTypes.Snappy, bombs.snappy) });
        sent.push({ kind: 'lz4', topic, partition: 1, offset: await sendBomb(producer, topic, 1, CompressionTypes.LZ4, bombs.lz4) });
      }
      // a zstd batch that is no bomb: one record of 100 bytes, a valid frame like any partner's zstd batch
      sent.push({ kind: 'zstd, 100 bytes', topic: topics.npResponses, partition: 2, offset: await sendBomb(producer, topics.npResponses, 2, CompressionTypes.ZSTD, zstdBomb(SMALL_ZSTD_BYTES)) });
      const floodBase = await sendEmptyRecords(config.kafka.brokers[0], topics.balanceCommands, 2, CompressionTypes.GZIP, FLOOD_RECORDS);
      sent.push({ kind: 'gzip flood', topic: topics.balanceCommands, partition: 2, offset: String(Number(floodBase) + FLOOD_RECORDS - 1) });
    } finally {
      await producer.disconnect();
    }
    const commandsFrom = await endOffsets(config.kafka.brokers, topics.balanceCommands);
    await load.send();
    await worker.whileRunning(load.settled(60_000));
    load.readCommandsWithin({ from: commandsFrom, to: await endOffsets(config.kafka.brokers, topics.balanceCommands) });
    const peak = worker.peakRssBytes();
    const rssAfter = worker.rssBytes();
    // Then the large batch, apart: its 150,000 decoded records (≈ 185 bytes each, live until the batch is
    // done) and their garbage lift the RSS high-water mark above the bound asserted for the bombs.
    await sendEmptyRecords(config.kafka.brokers[0], topics.balanceCommands, 3, CompressionTypes.GZIP, LARGE_BATCH_RECORDS);
    const largeBegan = Date.now();
    await worker.whileRunning(load.settled(180_000)); // ≈ 5 s here (35 s recording every refusal)
    const largeSeconds = (Date.now() - largeBegan) / 1000;

    const drained = await drainTopic(config.kafka.brokers, topics.deadLetters);
    const flood = sent.find((s) => s.kind === 'gzip flood')!;
    const lettersOf = (partition: number) => drained.filter((d) => headerString(d, DLQ_HEADER.sourceTopic) === flood.topic && headerString(d, DLQ_HEADER.sourcePartition) === String(partition));
    const floodLetters = lettersOf(2);
    const largeBatchReasons = tallyBy(lettersOf(3), (d) => headerString(d, DLQ_HEADER.reason) ?? 'none');
    const letterAt = (s: (typeof sent)[number]) =>
      drained.find(
        (d) =>
          [headerString(d, DLQ_HEADER.sourceTopic), headerString(d, DLQ_HEADER.sourcePartition), headerString(d, DLQ_HEADER.sourceOffset)].join('/') === `${s.topic}/${s.partition}/${s.offset}`,
      );
    const where = (s: (typeof sent)[number]) => `${s.kind} on ${s.topic === topics.npResponses ? 'NP responses' : 'commands'}`;
    const outcomes = sent.map((s) => `${where(s)}: ${(letterAt(s) && headerString(letterAt(s)!, DLQ_HEADER.reason)) ?? 'not dead-lettered'}`);
    // why each was refused, as its dead letter says (the offsets named at the end left out)
    const detailOf = (s: (typeof sent)[number]) => {
      const letter = letterAt(s);
      return letter ? (headerString(letter, DLQ_HEADER.detail)?.replace(/; its .*$/, '') ?? 'no detail') : 'not dead-lettered';
    };
    const why = (kind: string) => [...new Set(sent.filter((s) => s.kind === kind).map(detailOf))];
    const details = { gzipBomb: why('gzip'), zstdBomb: why('zstd'), snappyBomb: why('snappy'), lz4Bomb: why('lz4'), zstdSmall: why('zstd, 100 bytes') };
    const tally = await load.tally();
    report('compressed batches inflating to 300 MB', tally, [
      `bombs of one ${INFLATED_BYTES / MB} MB record: gzip ${(bombs.gzip.length / 1024).toFixed(0)} KB, zstd ${(bombs.zstd.length / 1024).toFixed(0)} KB on the wire; of ${LZ4_INFLATED_BYTES / MB} MB: lz4 ${(bombs.lz4.length / 1024).toFixed(0)} KB; of ${SNAPPY_INFLATED_BYTES / MB} MB: snappy ${(bombs.snappy.length / 1024).toFixed(0)} KB; ${outcomes.join(', ')}`,
      `details: gzip bombs "${details.gzipBomb.join('" / "')}"; zstd bombs "${details.zstdBomb.join('" / "')}"; snappy bombs "${details.snappyBomb.join('" / "')}"; lz4 bombs "${details.lz4Bomb.join('" / "')}"; a zstd batch of one ${SMALL_ZSTD_BYTES}-byte record "${details.zstdSmall.join('" / "')}" (consumed)`,
      `worker RSS ${(rssBefore / MB).toFixed(0)} MB before, peak ${(peak / MB).toFixed(0)} MB (high-water mark), ${(rssAfter / MB).toFixed(0)} MB after; same process: ${worker.running}`,
      `a gzip batch of ${FLOOD_RECORDS} empty records (offsets ${Number(flood.offset) - FLOOD_RECORDS + 1}–${flood.offset}): ${floodLetters.length} dead letter(s), detail "${floodLetters.map((d) => headerString(d, DLQ_HEADER.detail)).join('; ')}"`,
      `then a gzip batch of ${LARGE_BATCH_RECORDS} empty records within the limit: past it in ${largeSeconds.toFixed(1)} s, dead letters ${JSON.stringify(largeBatchReasons)} (the refusal budget: 10/s, burst 20), worker RSS ${(worker.peakRssBytes() / MB).toFixed(0)} MB peak`,
      `the ${VALID} valid commands sent gzip-compressed; worker outcomes ${JSON.stringify(worker.outcomes())}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    // every bomb refused undecompressed; the small zstd record read: its value (zeros) names schema id 0
    expect(outcomes).toEqual(sent.map((s) => `${where(s)}: ${s.kind === 'zstd, 100 bytes' ? 'UNKNOWN_SCHEMA' : 'UNDECOMPRESSABLE'}`));
    // all four codecs alike: refused for inflating beyond the bound, as the dead letters say
    for (const codec of ['gzip', 'zstd', 'snappy', 'lz4'] as const) {
      expect([codec, details[`${codec}Bomb`]]).toEqual([codec, [`${codec} batch inflates beyond ${MAX_INFLATED_BYTES} bytes (MAX_DECOMPRESSED_BATCH_BYTES)`]]);
    }
    expect(floodLetters.map((d) => [headerString(d, DLQ_HEADER.sourceOffset), headerString(d, DLQ_HEADER.detail)])).toEqual([
      [
        flood.offset,
        `gzip batch inflates beyond ${MAX_INFLATED_BYTES} bytes (MAX_DECOMPRESSED_BATCH_BYTES); its ${FLOOD_RECORDS} records at offsets ${Number(flood.offset) - FLOOD_RECORDS + 1}–${flood.offset} skipped`,
      ],
    ]);
    // no credentials: recorded without a value within the budget, only counted past it
    expect(Object.keys(largeBatchReasons)).toEqual(['UNAUTHENTICATED']);
    expect(largeBatchReasons.UNAUTHENTICATED).toBeLessThanOrEqual(20 + 10 * Math.ceil(largeSeconds));
    expect(Math.min(rssBefore, rssAfter)).toBeGreaterThan(0); // readings, not a default
    expect(peak - rssBefore).toBeLessThan(PEAK_GROWTH_LIMIT);
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, VALID);
  });
});
