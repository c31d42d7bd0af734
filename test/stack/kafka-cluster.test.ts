import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { startKafkaCluster, type KafkaCluster } from '../../dev/stack';
import { readValues } from './read-topic';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

const FAILOVER_RETRY = { retries: 15, initialRetryTime: 200, maxRetryTime: 2000 };

/** Names the step that failed: kafkajs errors carry no stack into the test. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`, { cause: error });
  }
}

/** Retries a metadata read until every broker knows the new topic (propagation takes a moment). */
async function eventually<T>(read: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await read();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** startKafkaCluster: three KRaft nodes; a replication-factor-3 topic keeps serving when one broker dies. */
describe('startKafkaCluster', () => {
  let cluster: KafkaCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    const began = Date.now();
    cluster = await startKafkaCluster({ brokers: 3 });
    console.log(`Kafka cluster of 3 nodes ready in ${((Date.now() - began) / 1000).toFixed(1)} s: ${cluster.brokers.join(',')}`);
    kafka = new Kafka({ clientId: 'cluster-test', brokers: cluster.brokers, logLevel: logLevel.NOTHING, retry: FAILOVER_RETRY });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('has three brokers and creates replication-factor-3 topics by default, min.insync.replicas 2', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { brokers } = await admin.describeCluster();
      expect(brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
      const topic = `cluster-default-${randomUUID()}`;
      await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: false });
      const { topics } = await eventually(() => admin.fetchTopicMetadata({ topics: [topic] }));
      for (const partition of topics[0].partitions) expect(partition.replicas).toHaveLength(3);
      const described = await eventually(() => admin.describeConfigs({ resources: [{ type: 2, name: topic }], includeSynonyms: false }));
      const [config] = described.resources;
      expect(config.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue).toBe('2');
    } finally {
      await admin.disconnect();
    }
  });

  it('keeps producing (acks=all) and consuming after the leader of a partition is killed, and takes the node back on start()', async () => {
    const topic = `cluster-failover-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    // Not waitForLeaders: on several brokers kafkajs' own wait can fail while the new topic's metadata propagates
    // (tulios/kafkajs#815); eventually() retries the read instead.
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: false });
    const { topics } = await eventually(() => admin.fetchTopicMetadata({ topics: [topic] }));
    await admin.disconnect();
    const victim = topics[0].partitions.find((p) => p.partitionId === 0)!.leader;

    // The producer's own retry: kafkajs gives a non-idempotent producer 5 retries whatever the client says, too
    // few to outlast the fencing of a dead leader (4 s here) with backoff.
    const producer = kafka.producer({ retry: FAILOVER_RETRY });
    await producer.connect();
    const batch = (from: number): { key: string; value: string }[] => Array.from({ length: 30 }, (_, i) => ({ key: `k${from + i}`, value: `m${String(from + i).padStart(3, '0')}` }));
    await producer.send({ topic, acks: -1, messages: batch(0) });

    const killedAt = Date.now();
    await cluster.node(victim).kill();
    await step('acks=all send after the kill', () => producer.send({ topic, acks: -1, messages: batch(30) }));
    console.log(`node ${victim} (leader of partition 0) killed; next acks=all send succeeded after ${Date.now() - killedAt} ms`);
    // Metadata read through the survivors, so the check does not depend on which broker an admin would ask.
    const survivors = cluster.nodes.filter((n) => n.nodeId !== victim).flatMap((n) => n.brokers);
    const survivorAdmin = new Kafka({ clientId: 'cluster-test-admin', brokers: survivors, logLevel: logLevel.NOTHING }).admin();
    await survivorAdmin.connect();
    const after = await survivorAdmin.fetchTopicMetadata({ topics: [topic] });
    for (const partition of after.topics[0].partitions) {
      expect(partition.leader).not.toBe(victim);
      expect(partition.isr).not.toContain(victim);
    }
    expect(await step('consume by a new group', () => readValues(kafka, topic, 60).then((values) => values.sort()))).toEqual([...batch(0), ...batch(30)].map((m) => m.value).sort());

    const restartedAt = Date.now();
    await cluster.node(victim).start();
    console.log(`node ${victim} back in ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
    const { brokers } = await survivorAdmin.describeCluster();
    expect(brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    await producer.send({ topic, acks: -1, messages: batch(60) });
    await producer.disconnect();
    await survivorAdmin.disconnect();
  });
});
