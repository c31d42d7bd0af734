import { ListOffsetTimestamps } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { createGroupConsumer } from './group-consumer';
import { PartitionStream } from './partition-stream';

/** How long the reader waits for the next record of the range before it returns what it has. */
const IDLE_MS = 15_000;

export interface TopicSelection {
  /** The throw-away consumer group it reads with. */
  groupId: string;
  partition?: number;
  offset?: string;
  count: number;
}

/** A record read, with the partition it was read from. */
export interface ReadRecord {
  partition: number;
  record: InboundRecord;
}

interface Range {
  partition: number;
  from: bigint;
  to: bigint;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Up to `count` records of each selected partition of `topic` from `offset` (default: the oldest kept), read
 * with a throw-away consumer group that commits nothing; ordered by partition and offset.
 */
export async function readTopicRange(connection: KafkaConnection, topic: string, selection: TopicSelection): Promise<ReadRecord[]> {
  const consumer = createGroupConsumer(connection, selection.groupId);
  const records: ReadRecord[] = [];
  let quiet: NodeJS.Timeout | undefined;
  let settle!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  let ranges: Range[] = [];
  let wanted = 0;
  const stream: PartitionStream = new PartitionStream({
    consumer,
    log: connection.log,
    // from the range's start, or after the last record taken (a stream consumed again after a failure)
    consumeOptions: () => ({
      topics: [topic],
      mode: 'manual',
      offsets: ranges.map((r) => ({ topic, partition: r.partition, offset: stream.nextOffset(topic, r.partition) ?? r.from })),
      autocommit: false,
    }),
    onBatch: async ({ partition, records: batch }) => {
      const range = ranges.find((r) => r.partition === partition);
      // Offsets are contiguous (no transactions), so `wanted` records arrive; a quiet spell still ends the wait.
      for (const record of batch) if (range && BigInt(record.offset) < range.to) records.push({ partition, record });
      clearTimeout(quiet);
      quiet = setTimeout(settle, IDLE_MS);
      if (records.length >= wanted) settle();
      return BigInt(batch[batch.length - 1].offset) + 1n;
    },
    assignedOnly: false,
    onFatal: settle,
  });
  try {
    const [lows, highs] = await Promise.all(
      [ListOffsetTimestamps.EARLIEST, ListOffsetTimestamps.LATEST].map(async (timestamp) => (await consumer.listOffsets({ topics: [topic], timestamp })).get(topic) ?? []),
    );
    ranges = highs
      .map((high, partition) => {
        const low = lows[partition] ?? 0n;
        const from = selection.offset === undefined ? low : max(BigInt(selection.offset), low);
        return { partition, from, to: min(from + BigInt(selection.count), high) };
      })
      .filter((r) => (selection.partition === undefined || r.partition === selection.partition) && r.from < r.to);
    if (ranges.length === 0) return [];
    wanted = ranges.reduce((sum, r) => sum + Number(r.to - r.from), 0);
    quiet = setTimeout(settle, IDLE_MS);
    await stream.start(ranges.length);
    await done;
    return records.sort((a, b) => a.partition - b.partition || Number(BigInt(a.record.offset) - BigInt(b.record.offset)));
  } finally {
    clearTimeout(quiet);
    await stream.stop();
  }
}
