import { ListOffsetTimestamps, type Message } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { closeGroupConsumer, createGroupConsumer } from './group-consumer';
import { inbound } from './inbound-record';

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
  /** The offset after the last record taken: a record below it (fetched again) is not taken twice. */
  next: bigint;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Up to `count` records of each selected partition of `topic` from `offset` (default: the oldest kept), read
 * with a throw-away consumer group that commits nothing; ordered by partition and offset.
 */
export async function readTopicRange(connection: KafkaConnection, topic: string, selection: TopicSelection): Promise<ReadRecord[]> {
  const consumer = createGroupConsumer(connection, selection.groupId);
  try {
    const [lows, highs] = await Promise.all(
      [ListOffsetTimestamps.EARLIEST, ListOffsetTimestamps.LATEST].map(async (timestamp) => (await consumer.listOffsets({ topics: [topic], timestamp })).get(topic) ?? []),
    );
    const ranges: Range[] = highs
      .map((high, partition) => {
        const low = lows[partition] ?? 0n;
        const from = selection.offset === undefined ? low : max(BigInt(selection.offset), low);
        return { partition, from, to: min(from + BigInt(selection.count), high), next: from };
      })
      .filter((r) => (selection.partition === undefined || r.partition === selection.partition) && r.from < r.to);
    if (ranges.length === 0) return [];
    const wanted = ranges.reduce((sum, r) => sum + Number(r.to - r.from), 0);
    const records: ReadRecord[] = [];
    const stream = await consumer.consume({
      topics: [topic],
      mode: 'manual',
      offsets: ranges.map((r) => ({ topic, partition: r.partition, offset: r.from })),
      autocommit: false,
    });
    let quiet: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      // Offsets are contiguous (no transactions), so `wanted` records arrive; a quiet spell still ends the wait.
      quiet = setTimeout(resolve, IDLE_MS);
      stream.on('error', reject);
      stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => {
        const range = ranges.find((r) => r.partition === message.partition);
        if (!range || message.offset < range.next || message.offset >= range.to) return;
        range.next = message.offset + 1n;
        records.push({ partition: message.partition, record: inbound(message) });
        clearTimeout(quiet);
        quiet = setTimeout(resolve, IDLE_MS);
        if (records.length >= wanted) resolve();
      });
    }).finally(() => clearTimeout(quiet));
    return records.sort((a, b) => a.partition - b.partition || Number(BigInt(a.record.offset) - BigInt(b.record.offset)));
  } finally {
    await closeGroupConsumer(consumer, connection);
  }
}
