import type { Admin } from 'kafkajs';
import type { PartitionLag } from '../../contract/transport';

/**
 * Consumer lag of a group per partition, from the brokers' point of view: the partition's end offset
 * minus the group's committed offset (from the start of the log when nothing is committed yet). It is
 * the group's lag, the same on every instance, and it keeps growing when the consumer is stuck.
 */
export interface PartitionEnds {
  partition: number;
  /** Offset the next record will get. */
  high: string;
  /** Oldest offset still in the log. */
  low: string;
}

export function lagOf(topic: string, ends: readonly PartitionEnds[], committed: readonly { partition: number; offset: string }[]): PartitionLag[] {
  const committedBy = new Map(committed.map((c) => [c.partition, Number(c.offset)]));
  return ends.map((end) => {
    const high = Number(end.high);
    const done = committedBy.get(end.partition);
    // Nothing committed yet, or committed records since deleted by retention: the group starts at the log start.
    const from = Math.max(done === undefined || done < 0 ? 0 : done, Number(end.low));
    return { topic, partition: end.partition, lag: Math.max(0, high - from) };
  });
}

export async function groupLag(admin: Admin, groupId: string, topics: readonly string[]): Promise<PartitionLag[]> {
  const [ends, committed] = await Promise.all([
    Promise.all(topics.map((topic) => admin.fetchTopicOffsets(topic))),
    admin.fetchOffsets({ groupId, topics: [...topics] }),
  ]);
  return topics.flatMap((topic, i) => lagOf(topic, ends[i]!, committed.find((c) => c.topic === topic)?.partitions ?? []));
}
