import { ListOffsetTimestamps, type Admin, type ListedOffsetsTopic } from '@platformatic/kafka';
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

/** Every partition's offset at `timestamp` (LATEST: the next record's, EARLIEST: the oldest still in the log). */
async function offsetsAt(admin: Admin, partitionsOf: ReadonlyMap<string, number[]>, timestamp: bigint): Promise<ListedOffsetsTopic[]> {
  const topics = [...partitionsOf].map(([name, partitions]) => ({ name, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) }));
  return admin.listOffsets({ topics });
}

export async function groupLag(admin: Admin, groupId: string, topics: readonly string[]): Promise<PartitionLag[]> {
  const { topics: metadata } = await admin.metadata({ topics: [...topics] });
  const partitionsOf = new Map(topics.map((topic) => [topic, [...Array(metadata.get(topic)?.partitionsCount ?? 0).keys()]]));
  const [highs, lows, [group]] = await Promise.all([
    offsetsAt(admin, partitionsOf, ListOffsetTimestamps.LATEST),
    offsetsAt(admin, partitionsOf, ListOffsetTimestamps.EARLIEST),
    admin.listConsumerGroupOffsets({ groups: [{ groupId, topics: [...partitionsOf].map(([name, partitionIndexes]) => ({ name, partitionIndexes })) }] }),
  ]);
  const offsetOf = (listed: ListedOffsetsTopic[], topic: string, partition: number): string =>
    String(listed.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === partition)?.offset ?? 0n);
  return topics.flatMap((topic) => {
    const ends = partitionsOf.get(topic)!.map((partition) => ({ partition, high: offsetOf(highs, topic, partition), low: offsetOf(lows, topic, partition) }));
    const committed = (group?.topics.find((t) => t.name === topic)?.partitions ?? []).map((p) => ({ partition: p.partitionIndex, offset: String(p.committedOffset) }));
    return lagOf(topic, ends, committed);
  });
}
