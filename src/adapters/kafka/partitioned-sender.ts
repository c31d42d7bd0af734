import { murmur2 } from '@platformatic/kafka';
import { outboundBytes, TopicRefusedError, type Outbound, type OutboundSender, type PartitionCount, type Refused } from '../../contract/transport';
import { isSendRefusal, isTopicRefusal, kafkaErrorType } from './send-refusal';
import { SpanningCalls, type ProduceCall, type WireMessage } from './spanning-calls';

/**
 * How the service writes to Kafka: every message gets its partition here (the murmur2 choice of Java's and
 * kafkajs's default partitioners, so a key lands on the same partition whichever language produced it).
 *
 * - A call spanning partitions goes through a producer that does not retry (one produce request per leader,
 *   all acknowledged or the call rejects); when it fails, everything is sent again the safe way: one
 *   topic-partition per call, on a producer that retries (one leader: it succeeds or is retried whole).
 *   The client retries a failed request on the leader of the request's FIRST partition, with all its
 *   partitions (producer.js, #performSingleDestinationSend): after a broker died, partitions that moved
 *   elsewhere would be asked of the wrong broker. With kafkajs a retried call spanning brokers lost
 *   acknowledged messages (tulios/kafkajs#1303, found by the fault suite); one partition per retried call
 *   cannot. A message acknowledged by the failed call may then be written twice, which the contract allows
 *   (replies match by X-Correlation-Id, events by ce_id). One call per batch instead of one per
 *   topic-partition: docs/benchmarks.md, "one produce call per batch".
 * - The client puts everything a call has for one partition into one record batch, and the broker refuses
 *   a batch above message.max.bytes (1 MiB by default) for good. Runs are cut below MAX_SEND_BYTES; one
 *   message alone is bounded by the dead-letter limits of pipeline/outbound.ts.
 *
 * A message Kafka will never take — a topic that does not exist or may not be written, a partition the topic
 * does not have (the client would quietly write it to the partition modulo the count), a message above the
 * topic's size limit — is refused, not retried: the topic and partition are checked against the cluster's
 * metadata before the send, and a run the broker refuses for good is sent again one message at a time to
 * find the bad ones. Only the refused messages come back; every other message was acknowledged. Retriable
 * failures (a broker away, a leader moving) still reject the call, so the batch is retried and nothing is
 * committed.
 */
export const MAX_SEND_BYTES = 512 * 1024;

/** Splits messages, in order, into runs of at most `limit` bytes (a larger message makes a run of its own). */
export function chunkByBytes<T extends Outbound>(messages: T[], limit: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
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

/**
 * A refused topic, or a count read again for a partition beyond it, is trusted this long: it may be created,
 * granted or grown soon, and a burst of replies to it must not become a metadata request each.
 */
const RECHECK_MS = 5_000;

/** Reads a topic's partition count from the cluster (0 when it has none); throws the client's error otherwise. */
export type TopicPartitionsReader = (topic: string) => Promise<number>;

export function partitionCounts(readCount: TopicPartitionsReader, ttlMs = 60_000): PartitionCount {
  const known = new Map<string, { count: number; at: number } | { refused: TopicRefusedError; at: number }>();
  return async (topic, fresh = false) => {
    const cached = known.get(topic);
    const maxAgeMs = fresh || (cached && 'refused' in cached) ? RECHECK_MS : ttlMs;
    if (cached && Date.now() - cached.at < maxAgeMs) {
      if ('refused' in cached) throw cached.refused;
      return cached.count;
    }
    try {
      const count = await readCount(topic);
      if (count === 0) throw new TopicRefusedError(topic, 'UNKNOWN_TOPIC_OR_PARTITION');
      known.set(topic, { count, at: Date.now() });
      return count;
    } catch (error) {
      const refused = error instanceof TopicRefusedError ? error : isTopicRefusal(error) ? new TopicRefusedError(topic, kafkaErrorType(error)!) : undefined;
      if (!refused) throw error; // the cluster is away: retriable, the batch waits
      known.set(topic, { refused, at: Date.now() });
      throw refused;
    }
  };
}

/** A message placed on its partition, with the message it was made from (what a refusal names). */
export type Placed = Outbound & { partition: number; original: Outbound };

/** A topic's partition count, or why nothing can be sent to it. */
async function countOrRefusal(countOf: PartitionCount, topic: string, fresh?: boolean): Promise<number | string> {
  try {
    return await countOf(topic, fresh);
  } catch (error) {
    if (error instanceof TopicRefusedError) return error.message;
    throw error;
  }
}

/**
 * Java's default partitioner: a keyed message goes to murmur2(key) made positive, modulo the count; one
 * without a key to the next partition in turn.
 */
export function defaultPartitioner(): (key: Buffer | string | null, count: number) => number {
  let next = Math.floor(Math.random() * 0x7fffffff);
  return (key, count) => (key === null ? next++ : murmur2(Buffer.isBuffer(key) ? key : Buffer.from(key)) & 0x7fffffff) % count;
}

type Partitioner = ReturnType<typeof defaultPartitioner>;

/**
 * Groups messages by the topic-partition they go to, each group in the order given; those with nowhere to go
 * are refused. A topic's count is looked up once per call (a batch's messages share two or three topics),
 * and again, fresh, for a partition beyond it: the topic may have grown.
 */
export async function byPartition(
  messages: Outbound[],
  countOf: PartitionCount,
  partitioner: Partitioner = defaultPartitioner(),
): Promise<{ groups: Map<string, Placed[]>; refused: Refused<Outbound>[] }> {
  const groups = new Map<string, Placed[]>();
  const refused: Refused<Outbound>[] = [];
  const counts = new Map<string, number | string>();
  for (const message of messages) {
    const { topic } = message;
    let count = counts.get(topic);
    if (count === undefined) counts.set(topic, (count = await countOrRefusal(countOf, topic)));
    if (typeof count === 'number' && message.partition !== undefined && message.partition >= count) {
      counts.set(topic, (count = await countOrRefusal(countOf, topic, true)));
    }
    const partition = typeof count === 'string' ? count : partitionOf(message, count, partitioner);
    if (typeof partition === 'string') {
      refused.push({ message, reason: partition });
      continue;
    }
    const key = `${partition}:${topic}`;
    const placed: Placed = { topic, partition, key: message.key, value: message.value, headers: message.headers, original: message };
    const group = groups.get(key);
    if (group) group.push(placed);
    else groups.set(key, [placed]);
  }
  return { groups, refused };
}

/** Where a message goes in a topic of `count` partitions, or why it cannot go there. */
function partitionOf(message: Outbound, count: number, partitioner: Partitioner): number | string {
  if (message.partition !== undefined) {
    return message.partition < count ? message.partition : `partition ${message.partition} does not exist: topic ${message.topic} has ${count}`;
  }
  if (message.preferredPartition !== undefined) return message.preferredPartition % count;
  return partitioner(message.key, count);
}

const errorText = (error: unknown): string => (error as Error)?.message ?? String(error);

/**
 * `retrying` sends one topic-partition per call; `spanning`, when given, sends whole batches at once (those
 * of one turn of the event loop together: spanning-calls.ts) and must not retry (producer.ts's `once`).
 */
export function createPartitionedSender(retrying: ProduceCall, countOf: PartitionCount, spanning?: ProduceCall): OutboundSender {
  const partitioner = defaultPartitioner();
  const wire = (run: Placed[]): WireMessage[] => run.map(({ topic, key, value, headers, partition }) => ({ topic, key, value, headers, partition }));
  const spanningCalls = spanning && new SpanningCalls(spanning, MAX_SEND_BYTES);
  /** Every group in one call (shared with the other batches' of this turn), when each fits one run: true once acknowledged. */
  const sendSpanning = async (groups: Placed[][]): Promise<boolean> => {
    if (!spanningCalls) return false;
    const sizes = groups.map(outboundBytesOf);
    if (sizes.some((bytes) => bytes > MAX_SEND_BYTES)) return false;
    return spanningCalls.trySend(groups.map((group, i) => ({ key: `${group[0].partition}:${group[0].topic}`, topic: group[0].topic, messages: wire(group), bytes: sizes[i] })));
  };
  /** Sends a run; when the broker refuses it for good, each message alone, so only the bad ones are refused. */
  const sendRun = async (run: Placed[], refused: Refused<Outbound>[]): Promise<void> => {
    try {
      await retrying(wire(run));
    } catch (error) {
      if (!isSendRefusal(error)) throw error;
      if (run.length === 1) return void refused.push({ message: run[0].original, reason: `${kafkaErrorType(error)}: ${errorText(error)}` });
      for (const one of run) await sendRun([one], refused);
    }
  };
  return {
    async send(messages) {
      if (messages.length === 0) return [];
      const { groups, refused } = await byPartition(messages, countOf, partitioner);
      if (await sendSpanning([...groups.values()])) return refused;
      await Promise.all(
        [...groups.values()].map(async (group) => {
          for (const run of chunkByBytes(group, MAX_SEND_BYTES)) await sendRun(run, refused);
        }),
      );
      return refused;
    },
  };
}

const outboundBytesOf = (group: Outbound[]): number => group.reduce((sum, message) => sum + outboundBytes(message), 0);
