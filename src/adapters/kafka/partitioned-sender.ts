import { Partitioners, type Admin, type PartitionMetadata, type Producer } from 'kafkajs';
import { outboundBytes, type Outbound } from '../../worker/outbound';

/**
 * How the service writes to Kafka: every message gets its partition here (the same murmur2 choice as
 * kafkajs's and Java's default partitioner), and each send call carries ONE topic-partition, in runs below
 * the broker's batch limit. Two kafkajs 2.2.4 behaviours, both found by the fault suite, make this necessary:
 *
 * - A sendBatch that spans several brokers keeps each broker's acknowledgement across its retries. When a
 *   broker dies and its partitions move to a broker that already acknowledged its own part of the same call,
 *   the moved messages are never sent again and the call still resolves (tulios/kafkajs#1303, #1798).
 *   Measured: one of three brokers killed under load lost 14 replies and 24 billing events that had been
 *   "acknowledged". A call with one partition has one leader: it succeeds or is retried whole.
 * - kafkajs puts everything a call has for one partition into one record batch, and the broker refuses a
 *   batch above message.max.bytes (1 MiB by default) with a non-retriable error that stopped the consumer for
 *   good (a burst of large dead letters with one key was enough). Runs are cut below MAX_SEND_BYTES; one
 *   message alone is bounded by the dead-letter limits of worker/outbound.ts.
 */
export const MAX_SEND_BYTES = 512 * 1024;

export interface OutboundSender {
  /** Resolves once Kafka acknowledged every message (acks = all); per-partition order is kept. */
  send(messages: Outbound[]): Promise<void>;
}

/** Splits messages, in order, into runs of at most `limit` bytes (a larger message makes a run of its own). */
export function chunkByBytes(messages: Outbound[], limit: number): Outbound[][] {
  const chunks: Outbound[][] = [];
  let current: Outbound[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = outboundBytes(message);
    if (current.length > 0 && bytes + size > limit) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Partition counts of topics, read from the cluster and kept for a while (topics rarely grow). */
export type PartitionCount = (topic: string) => Promise<number>;

/** The cluster does not know the topic (a requester named a reply topic that does not exist). */
export class UnknownTopicError extends Error {
  constructor(readonly topic: string) {
    super(`topic ${topic} does not exist`);
    this.name = 'UnknownTopicError';
  }
}

/**
 * A missing topic is remembered too, for a shorter while: a flood of commands naming one costs one
 * metadata request per `missingTtlMs`, and a topic created meanwhile is found soon after.
 */
export function partitionCounts(admin: Pick<Admin, 'fetchTopicMetadata'>, ttlMs = 60_000, missingTtlMs = 5_000): PartitionCount {
  const known = new Map<string, { count: number; until: number }>();
  return async (topic) => {
    const cached = known.get(topic);
    if (cached && cached.until > Date.now()) {
      if (cached.count === 0) throw new UnknownTopicError(topic);
      return cached.count;
    }
    let count: number;
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      count = topics[0]?.partitions.length ?? 0;
    } catch (error) {
      if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
      count = 0;
    }
    known.set(topic, { count, until: Date.now() + (count === 0 ? missingTtlMs : ttlMs) });
    if (count === 0) throw new UnknownTopicError(topic);
    return count;
  };
}

/** Groups messages by the topic-partition they go to, each group in the order given. */
export async function byPartition(messages: Outbound[], countOf: PartitionCount, partitioner = Partitioners.DefaultPartitioner()): Promise<Map<string, Outbound[]>> {
  const groups = new Map<string, Outbound[]>();
  for (const message of messages) {
    let { partition } = message;
    if (partition === undefined && message.preferredPartition !== undefined) {
      partition = message.preferredPartition % (await countOf(message.topic));
    } else if (partition === undefined) {
      const count = await countOf(message.topic);
      const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata);
      partition = partitioner({ topic: message.topic, partitionMetadata, message: { key: message.key, value: message.value } });
    }
    const key = `${partition}:${message.topic}`;
    const group = groups.get(key);
    const placed = { ...message, partition, preferredPartition: undefined };
    if (group) group.push(placed);
    else groups.set(key, [placed]);
  }
  return groups;
}

export function createPartitionedSender(producer: Producer, countOf: PartitionCount): OutboundSender {
  const partitioner = Partitioners.DefaultPartitioner();
  return {
    async send(messages) {
      if (messages.length === 0) return;
      const groups = await byPartition(messages, countOf, partitioner);
      await Promise.all(
        [...groups.values()].map(async (group) => {
          for (const run of chunkByBytes(group, MAX_SEND_BYTES)) {
            await producer.send({
              topic: run[0]!.topic,
              acks: -1,
              messages: run.map(({ key, value, headers, partition }) => ({ key, value, headers, partition })),
            });
          }
        }),
      );
    },
  };
}
