import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type KafkaMessage } from 'kafkajs';
import type { ServiceConfig } from '../../../src/app/config';
import { serviceTopics } from '../../../src/app/service';
import { loadOptionalHierarchyFile } from '../../../src/security/hierarchy-file';

/** Reading whole topics and consumer-group offsets, for checking what the service produced and committed. */
export const kafkaClient = (brokers: string[], clientId = 'faults') =>
  new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 15, initialRetryTime: 200, maxRetryTime: 2000 } });

/** One admin session on the test's client (its retries outlast a broker's loss), as src/adapters/kafka/admin-session.ts's withAdmin. */
async function withTestAdmin<T>(brokers: string[], work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/** Test-side consumers rejoin quickly after a Kafka outage and see moved partition leaders soon (see KAFKA_METADATA_MAX_AGE_MS). */
export const TEST_SESSION = { sessionTimeout: 6000, heartbeatInterval: 1000, metadataMaxAge: 5000 } as const;

export type TopicRecord = KafkaMessage & { partition: number };

/** A range of offsets per partition: from (the first read) up to, not including, to. */
export interface OffsetRange {
  from: Map<number, number>;
  to: Map<number, number>;
}

/** Each partition's end offset now. */
export const endOffsets = (brokers: string[], topic: string): Promise<Map<number, number>> =>
  withTestAdmin(brokers, async (admin) => new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)])));

/**
 * Every record of the topic up to its end offsets at the time of the call, read by a fresh group — or only
 * those of `range`: the test's kafkajs has no bound on inflating a compressed batch and overflows its stack
 * on a batch of ~125,000 records, so a test that put such batches on the topic reads around them (the group
 * starts at `from`, and a partition is paused once it reaches `to`). `readUncommitted`: the records of aborted and
 * open transactions too.
 */
export async function drainTopic(brokers: string[], topic: string, timeoutMs = 60_000, range?: OffsetRange, readUncommitted = false): Promise<TopicRecord[]> {
  const kafka = kafkaClient(brokers);
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `drain-${randomUUID()}`;
  const ends = await admin.fetchTopicOffsets(topic).finally(() => (range ? undefined : admin.disconnect()));
  const startOf = (partition: number, low: string) => range?.from.get(partition) ?? Number(low);
  const endOf = (partition: number, high: string) => Math.min(Number(high), range?.to.get(partition) ?? Infinity);
  const remaining = new Map(ends.filter((e) => endOf(e.partition, e.high) > startOf(e.partition, e.low)).map((e) => [e.partition, endOf(e.partition, e.high)]));
  if (range) {
    await admin.setOffsets({ groupId, topic, partitions: ends.map((e) => ({ partition: e.partition, offset: String(startOf(e.partition, e.low)) })) }).finally(() => admin.disconnect());
  }
  const records: TopicRecord[] = [];
  if (remaining.size === 0) return records;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 500, maxBytesPerPartition: range ? 64 * 1024 : 4 * 1024 * 1024, readUncommitted, ...TEST_SESSION });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${topic}: read ${records.length} records, partitions ${[...remaining.keys()]} not finished within ${timeoutMs} ms`)), timeoutMs);
      consumer
        .run({
          eachBatchAutoResolve: true,
          eachBatch: async ({ batch }) => {
            const end = remaining.get(batch.partition);
            if (end === undefined) return;
            for (const message of batch.messages) if (Number(message.offset) < end) records.push({ ...message, partition: batch.partition });
            // An empty fetch says nothing of the end: a read_committed one stops at a transaction still open
            // (kafkajs then reports the high watermark as its last offset, and no first offset)
            if (batch.firstOffset() !== null && Number(batch.lastOffset()) + 1 >= end) {
              remaining.delete(batch.partition);
              if (range) consumer.pause([{ topic, partitions: [batch.partition] }]);
            }
            if (remaining.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

/** The sum of the topic's end offsets: how many records it holds when nothing was deleted. */
export const topicEnd = (brokers: string[], topic: string): Promise<number> =>
  withTestAdmin(brokers, async (admin) => (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0));

/** Committed offset of the group per partition (-1 when none), and the end offset of each partition. */
export const groupProgress = (brokers: string[], groupId: string, topic: string): Promise<{ committed: number; end: number }> =>
  withTestAdmin(brokers, async (admin) => {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const ends = await admin.fetchTopicOffsets(topic);
    const committed = offsets.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    const end = ends.reduce((sum, p) => sum + Number(p.high), 0);
    return { committed, end };
  });

export const headerString = (message: KafkaMessage, name: string): string | undefined => {
  const raw = message.headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
};

/** The node id of the broker leading partition 0 of `topic`: the victim of a broker-loss test (it also leads other partitions). */
export const leaderOfPartitionZero = (brokers: string[], topic: string): Promise<number> =>
  withTestAdmin(brokers, async (admin) => {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0].partitions.find((p) => p.partitionId === 0)!.leader;
  });

/**
 * Creates the configuration's topics on a cluster of any size. Not kafkajs's waitForLeaders: on several
 * brokers the one asked may not know a new topic yet (tulios/kafkajs#815); the metadata read is retried.
 */
export async function createTopicsOnCluster(config: ServiceConfig, extraTopics: string[] = []): Promise<void> {
  const { topicPartitions: numPartitions, topicReplicationFactor: replicationFactor, brokers } = config.kafka;
  await withTestAdmin(brokers, async (admin) => {
    // the service's topics and its partners' (the fault partner's replies and events go to its own topics)
    const topics = [...new Set([...serviceTopics(config, loadOptionalHierarchyFile(config.customersFile)), ...extraTopics])];
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor })), waitForLeaders: false });
    for (let attempt = 1; ; attempt++) {
      try {
        const metadata = await admin.fetchTopicMetadata({ topics });
        if (metadata.topics.every((t) => t.partitions.length === numPartitions && t.partitions.every((p) => p.leader >= 0))) return;
      } catch (error) {
        if (attempt >= 100) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
}

/** Java's String.hashCode, which Kafka uses to place a group on a partition of its offsets topic. */
const javaStringHash = (text: string): number => {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
};

/** Kafka's Utils.abs: Math.abs, with Integer.MIN_VALUE as 0 (not the producer's `& 0x7fffffff`, toPositive). */
const kafkaAbs = (n: number): number => (n === -0x80000000 ? 0 : Math.abs(n));

/**
 * The node id of the broker coordinating `groupId`: the leader of the offsets-topic partition the group
 * hashes to (Kafka's partitionFor: Utils.abs(groupId.hashCode) % offsets.topic.num.partitions).
 */
export const coordinatorOfGroup = (brokers: string[], groupId: string): Promise<number> =>
  withTestAdmin(brokers, async (admin) => {
    const { topics } = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
    const partitions = topics[0].partitions;
    const partitionId = kafkaAbs(javaStringHash(groupId)) % partitions.length;
    return partitions.find((p) => p.partitionId === partitionId)!.leader;
  });

/** The member ids of the group's members, as its coordinator knows them now. */
export const groupMembers = (brokers: string[], groupId: string): Promise<string[]> =>
  withTestAdmin(brokers, async (admin) => (await admin.describeGroups([groupId])).groups[0].members.map((member) => member.memberId).sort());
