import { randomUUID } from 'node:crypto';
import { Admin, Consumer, FindCoordinatorKeyTypes } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { startKafkaCluster, type KafkaCluster } from '../../dev/stack';
import { partitionCounts } from '../../src/adapters/kafka/partitioned-sender';
import { createProducer, partitionsReader } from '../../src/adapters/kafka/producer';
import { TransactionalOutput } from '../../src/adapters/kafka/transactional-output';
import type { Outbound, OutputUnit } from '../../src/contract/transport';
import { testConfig, testConnection } from '../support/harness';
import { isCommittingEndTxn, startKafkaRelay, type KafkaRelay } from '../support/kafka-relay';
import { seconds } from './support/report';
import { drainTopic } from './support/topics';
import { createTopicsWithLeaders } from '../support/kafkajs-topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * The exactly-once door when the broker coordinating its transaction dies having completed the commit but
 * before its answer arrives: a relay in front of each broker of a three-broker cluster holds back the EndTxn
 * answer and kills that broker. The successor completes the commit; the client, whose retries of EndTxn meet a
 * dead broker and then a coordinator that has moved on, reports the commit failed. The worker handles a failed
 * slice again and sends it again, so unless the door learns that the transaction committed, a read_committed
 * reader sees its records twice.
 */
/** A group id whose coordinator is the broker coordinating `transactionalId`. */
async function groupCoordinatedWith(brokers: string[], transactionalId: string): Promise<string> {
  const admin = new Admin({ bootstrapBrokers: brokers, clientId: 'lost-answer-coordinators', retries: 20, retryDelay: 500 });
  try {
    const [transaction] = await admin.findCoordinator({ keyType: FindCoordinatorKeyTypes.TRANSACTION, keys: [transactionalId] });
    const candidates = Array.from({ length: 30 }, () => `lost-answer-${randomUUID()}`);
    const groups = await admin.findCoordinator({ keyType: FindCoordinatorKeyTypes.GROUP, keys: candidates });
    const same = groups.find((group) => group.nodeId === transaction.nodeId);
    if (!same) throw new Error(`none of 30 groups is coordinated by broker ${transaction.nodeId}`);
    return same.key;
  } finally {
    await admin.close();
  }
}

const message = (topic: string, text: string): Outbound => ({ topic, key: text, value: Buffer.from(text), headers: {} });

describe('three-broker cluster: the coordinator dies with a completed commit whose answer was not delivered', () => {
  let cluster: KafkaCluster;
  const relays: KafkaRelay[] = [];
  const closing: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    cluster = await startKafkaCluster({ brokers: 3, relayed: true });
    for (const node of cluster.nodes) relays.push(await startKafkaRelay(node.relayed!.advertisedPort, node.relayed!.port));
  });
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch(() => undefined);
    for (const relay of relays) await relay.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('the slice is settled as sent, not sent again: its record once for read_committed readers, its offset committed', async () => {
    const began = Date.now();
    const config = testConfig({ KAFKA_BROKERS: relays.map((relay) => relay.address).join(','), TOPIC_PARTITIONS: '1', TOPIC_REPLICATION_FACTOR: '3' });
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg as string) });
    const connection = { ...testConnection(config, 'lost-answer'), log };
    const topic = `lost-answer-${randomUUID().slice(0, 8)}`;
    const admin = new Kafka({ clientId: 'lost-answer', brokers: cluster.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 3 }]);
    await admin.disconnect();

    const counts = createProducer(connection, { ordered: false });
    closing.push(() => counts.close());
    // the hardest case, every run: one broker coordinates both the transaction and the group (the door's
    // offsets go to the group's coordinator, which dies too)
    const transactionalId = `lost-answer-${randomUUID()}`;
    const groupId = await groupCoordinatedWith(cluster.brokers, transactionalId);
    const group = new Consumer({ bootstrapBrokers: config.kafka.brokers, clientId: 'lost-answer-group', groupId });
    closing.push(() => group.close(true));
    const door = new TransactionalOutput(connection, {
      transactionalId,
      countOf: partitionCounts(partitionsReader(counts)),
      limitOf: async () => undefined,
      group,
      commitIntervalMs: 100,
      onSent: () => undefined,
      log,
    });
    closing.push(() => door.close());
    // a group with no member takes offsets of no generation, as a consumer that assigns itself commits
    const unitAt = (text: string, offset: number): OutputUnit => ({
      messages: [message(topic, text)],
      offsets: { generation: { groupId, memberId: '', generationId: -1 }, topic, partition: 0, first: String(offset), offset: String(offset) },
      replaceRefused: () => [],
    });
    await door.send(unitAt('before', 40)); // the transactional id has its coordinator now

    let victim = 0;
    const lost = Promise.race(
      relays.map((relay, index) =>
        relay.loseNextAnswerTo(isCommittingEndTxn, async () => {
          for (const other of relays) other.disarm(); // one coordinator dies, not the next one too
          victim = index + 1;
          await cluster.node(victim).kill();
        }),
      ),
    );
    const sentAt = Date.now();
    // as the batch worker does: a slice whose output failed is handled again, and its outputs sent again
    const first = await door.send(unitAt('once', 41)).then(
      () => 'settled as sent',
      (error: Error) => `failed (${error.message.slice(0, 200)})`,
    );
    const settledMs = Date.now() - sentAt;
    for (let attempt = 1; first !== 'settled as sent'; attempt++) {
      const again = await door.send(unitAt('once', 41)).then(
        () => true,
        (error: Error) => (attempt < 20 ? false : Promise.reject(error)),
      );
      if (again) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    await lost;

    const survivors = cluster.nodes.filter((node) => node.nodeId !== victim).flatMap((node) => node.brokers);
    const records = await drainTopic(survivors, topic);
    const copies = records.filter((record) => record.value?.toString() === 'once').length;
    const offsetsAdmin = new Kafka({ clientId: 'lost-answer-offsets', brokers: survivors, logLevel: logLevel.NOTHING }).admin();
    await offsetsAdmin.connect();
    const [committed] = await offsetsAdmin.fetchOffsets({ groupId, topics: [topic] }).finally(() => offsetsAdmin.disconnect());
    console.log(
      `faults: coordinator killed with the commit's answer held back — broker ${victim} (the transaction's coordinator) killed on its committing EndTxn answer (it coordinated the group too); the door's send: ${first} after ${(settledMs / 1000).toFixed(1)} s; ` +
        `read_committed records of the slice ${copies}; offset committed ${committed.partitions[0].offset}; the door's warnings: ${JSON.stringify([...new Set(warnings)])}; ${seconds(began)}`,
    );
    expect(victim).toBeGreaterThan(0);
    expect(first).toBe('settled as sent');
    expect(copies).toBe(1);
    expect(committed.partitions).toEqual([{ partition: 0, offset: '42', metadata: null }]);
  });
});
