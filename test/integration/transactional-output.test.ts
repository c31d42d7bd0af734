import { randomUUID } from 'node:crypto';
import { Consumer, Producer, ProduceAcks } from '@platformatic/kafka';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { createTopics, testConfig, testConnection } from '../support/harness';
import { partitionCounts } from '../../src/adapters/kafka/partitioned-sender';
import { createProducer, partitionsReader } from '../../src/adapters/kafka/producer';
import { TransactionalOutput } from '../../src/adapters/kafka/transactional-output';
import type { Outbound } from '../../src/contract/transport';

/**
 * The exactly-once door on a real broker: what a read_committed reader sees of committed and aborted
 * output transactions, and a producer started again under the same transactional id (a worker restarted
 * with its static group instance id).
 */
const config = testConfig();
const connection = testConnection(config, `tx-test-${randomUUID().slice(0, 6)}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every record of `topic` a reader with this isolation sees, read until the topic is quiet for a second. */
async function readAll(topic: string, readUncommitted: boolean): Promise<KafkaMessage[]> {
  const kafka = new Kafka({ clientId: 'tx-reader', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `tx-reader-${randomUUID()}`, readUncommitted, maxWaitTimeInMs: 200 });
  const seen: KafkaMessage[] = [];
  let last = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void (seen.push(message), (last = Date.now())) });
  while (Date.now() - last < 1500 || seen.length === 0) {
    if (Date.now() - last > 15_000) break;
    await sleep(100);
  }
  await consumer.disconnect();
  return seen;
}

const message = (topic: string, text: string): Outbound => ({ topic, key: text, value: Buffer.from(text), headers: {} });

describe('transactional output (exactly-once door)', () => {
  const topic = `tx-out-${randomUUID().slice(0, 8)}`;
  const counts = createProducer(connection, { ordered: false });
  const countOf = partitionCounts(partitionsReader(counts));
  const closing: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await createTopics({ ...config, topics: { ...config.topics, deadLetters: topic } });
  });
  afterAll(async () => {
    for (const close of closing) await close().catch(() => undefined);
    await counts.close();
  });

  const output = (transactionalId: string, group?: Consumer<Buffer, Buffer, Buffer, Buffer>, ended: string[] = [], commitIntervalMs = 100) => {
    const door = new TransactionalOutput(connection, {
      transactionalId,
      countOf,
      limitOf: async () => undefined,
      group,
      commitIntervalMs,
      onSent: () => undefined,
      log: connection.log,
      onTransaction: (outcome) => ended.push(outcome),
    });
    closing.push(() => door.close());
    return door;
  };

  it('a producer started again under the same transactional id commits (the client default claimed producer 0 and was fenced for ever)', async () => {
    // another transactional producer first, so the id under test is not the cluster's producer 0
    const other = new Producer({ bootstrapBrokers: config.kafka.brokers, clientId: 'tx-other', idempotent: true, transactionalId: `other-${randomUUID()}`, acks: ProduceAcks.ALL });
    const warmUp = await other.beginTransaction();
    await warmUp.send({ messages: [{ topic, partition: 0, value: Buffer.from('other') }] });
    await warmUp.commit();
    await other.close();

    const id = `restarted-${randomUUID()}`;
    await output(id).send({ messages: [message(topic, 'first life')], replaceRefused: () => [] });
    await output(id).send({ messages: [message(topic, 'second life')], replaceRefused: () => [] });
    const values = (await readAll(topic, false)).map((m) => m.value?.toString());
    expect(values.filter((v) => v === 'first life' || v === 'second life').sort()).toEqual(['first life', 'second life']);
  });

  it('offsets of a generation the group does not know: the transaction aborts, a read_committed reader sees none of it, a read_uncommitted one does', async () => {
    const groupId = `tx-group-${randomUUID()}`;
    const group = new Consumer({ bootstrapBrokers: config.kafka.brokers, clientId: 'tx-group', groupId });
    closing.push(() => group.close(true));
    const ended: string[] = [];
    const zombie = output(`zombie-${randomUUID()}`, group, ended);
    const attempt = zombie.send({
      messages: [message(topic, 'from a zombie')],
      offsets: { generation: { groupId, memberId: 'a-member-that-left', generationId: 7 }, topic, partition: 0, first: '0', offset: '0' },
      replaceRefused: () => [],
    });
    await expect(attempt).rejects.toThrow(/UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION|FENCED/);
    expect((await readAll(topic, true)).map((m) => m.value?.toString())).toContain('from a zombie');
    // the door goes on: the next unit commits, and a read_committed reader that got past the aborted records
    // (it read the later one) never saw them
    await zombie.send({ messages: [message(topic, 'after the zombie')], replaceRefused: () => [] });
    const committed = (await readAll(topic, false)).map((m) => m.value?.toString());
    expect(committed).toContain('after the zombie');
    expect(committed).not.toContain('from a zombie');
    // what the metrics count (wholesale_output_transaction_duration_seconds by outcome)
    expect(ended).toEqual(['aborted', 'committed']);
  });

  it('a transaction waits for the slices being processed when it opened (one transaction for the round), not for those begun after', async () => {
    const ended: string[] = [];
    // an interval far longer than the test waits: a transaction that waited for a slice would show it
    const door = output(`gather-${randomUUID()}`, undefined, ended, 10_000);
    const unit = (text: string) => ({ messages: [message(topic, text)], replaceRefused: () => [] });
    const within = (settled: Promise<void>, ms: number) => Promise.race([settled.then(() => 'committed'), sleep(ms).then(() => 'still open')]);

    // B was being prepared when A's transaction opened: the transaction waits for it, and takes it
    const preparingB = door.preparing();
    const a = door.send(unit('round one A'));
    expect(await within(a, 1_000)).toBe('still open');
    const b = door.send(unit('round one B'));
    preparingB();
    await Promise.all([a, b]);
    expect(ended).toEqual(['committed']);

    // D is begun once C's transaction is open (it opens on the next turn of the loop): C commits without it
    ended.length = 0;
    const c = door.send(unit('round two C'));
    await new Promise((resolve) => setImmediate(resolve));
    const preparingD = door.preparing();
    expect(await within(c, 3_000)).toBe('committed');
    const d = door.send(unit('round two D'));
    preparingD();
    await d;
    expect(ended).toEqual(['committed', 'committed']);
  });

  it("one transaction commits every partition's offset (the client answered concurrent offset commits with the first one's)", async () => {
    const groupId = `tx-partitions-${randomUUID()}`;
    const group = new Consumer({ bootstrapBrokers: config.kafka.brokers, clientId: 'tx-partitions', groupId });
    closing.push(() => group.close(true));
    const door = output(`partitions-${randomUUID()}`, group);
    const partitions = [0, 1];
    // a group with no member takes offsets of no generation, as a consumer that assigns itself commits
    await Promise.all(
      partitions.map((partition) =>
        door.send({
          messages: [message(topic, `partition ${partition}`)],
          offsets: { generation: { groupId, memberId: '', generationId: -1 }, topic, partition, first: String(10 + partition), offset: String(10 + partition) },
          replaceRefused: () => [],
        }),
      ),
    );
    const committed = await group.listCommittedOffsets({ topics: [{ topic, partitions }] });
    expect(partitions.map((partition) => committed.get(topic)?.[partition])).toEqual([11n, 12n]);
  });
});
