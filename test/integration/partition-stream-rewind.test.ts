import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { testConfig, testConnection } from '../support/harness';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { createGroupConsumer } from '../../src/adapters/kafka/group-consumer';
import { PartitionStream, type PartitionBatch } from '../../src/adapters/kafka/partition-stream';

/**
 * Exactly once, a batch is released once its outputs are on their way, and the partition's next batch is
 * processed while they commit. When the earlier one fails, its records come back while the later one is
 * still in flight (the output door refuses it: it comes after a failed unit of its partition). The next
 * batch must not be handed out before the later one settled: it would hold the returned records and those
 * fetched behind the one in flight, not the in-flight ones, and commit past them; those, handed out again
 * afterwards, publish their events behind later ones (np-broker-loss.test.ts: a port's COMPLETED before its
 * CONFIRMED). The door here is the test's: the first batch fails, the one in flight with it is refused, and
 * from then on a batch is accepted only when it starts where the partition's accepted records end.
 */
const config = testConfig();
const connection = testConnection(config, `rewind-${randomUUID().slice(0, 6)}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A gate the test opens. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('a batch whose records come back while the next batch of its partition is in flight', () => {
  const topic = `rewind-${randomUUID().slice(0, 8)}`;
  const kafka = new Kafka({ clientId: 'rewind-producer', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  let stream: PartitionStream | undefined;

  afterAll(async () => {
    await stream?.stop().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
  });

  it('holds the partition until the batch in flight settled: the next one starts at the returned records and leaves none out', async () => {
    await ensureTopicsExist(connection, [topic], 1, 1);
    await producer.connect();
    const produce = (from: number, count: number) => producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ key: 'k', value: String(from + i) })) });

    const handed: number[][] = [];
    const accepted: number[] = [];
    const firstFails = gate();
    const secondReleases = gate();
    const offsetsOf = (batch: PartitionBatch) => batch.records.map((r) => Number(r.offset));
    const onBatch = async (batch: PartitionBatch): Promise<bigint | undefined> => {
      const offsets = offsetsOf(batch);
      const nth = handed.push(offsets);
      if (nth === 1) {
        batch.release(); // its outputs on their way
        await firstFails.opened;
        throw new Error('the output transaction failed');
      }
      if (nth === 2) {
        await secondReleases.opened; // processed while the first commits, given to the door after it failed
        batch.release();
        await sleep(200);
        throw new Error('an earlier output of this partition failed');
      }
      batch.release();
      // the door: accepted only in order, from where the accepted records end
      if (offsets[0] !== accepted.length) throw new Error(`refused: starts at ${offsets[0]}, accepted up to ${accepted.length}`);
      accepted.push(...offsets);
      return BigInt(offsets[offsets.length - 1] + 1);
    };

    const consumer = createGroupConsumer(connection, `rewind-${randomUUID()}`);
    stream = new PartitionStream({
      consumer,
      log: connection.log,
      consumeOptions: () => ({ topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: false }),
      onBatch,
      assignedOnly: true,
      onFatal: () => undefined,
    });
    await produce(0, 10);
    await stream.start(4);
    await until(() => handed.length === 1, 'the first batch');
    await produce(10, 10);
    await until(() => handed.length === 2, 'the second batch');
    await produce(20, 10);
    await until(() => stream!.nextOffset(topic, 0) === 30n, 'the third ten queued');
    firstFails.open();
    await sleep(100); // the first batch's records are back in the queue
    secondReleases.open();
    const contiguous = (offsets: number[]) => offsets.every((offset, i) => i === 0 || offset === offsets[i - 1] + 1);
    await until(() => accepted.length === 30 || !handed.every(contiguous), 'every record accepted, or a batch with a gap', 15_000);

    expect(handed.filter((offsets) => !contiguous(offsets))).toEqual([]);
    expect(handed[2]).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(accepted).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});
