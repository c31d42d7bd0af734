import type { InboundRecord } from '../../contract/transport';
import { createKafka, type KafkaConnection } from './kafka';
import { createConsumer } from './closable-consumer';

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

/**
 * Up to `count` records of each selected partition of `topic` from `offset` (default: the oldest kept), read
 * with a throw-away consumer group that commits nothing; ordered by partition and offset.
 */
export async function readTopicRange(connection: KafkaConnection, topic: string, selection: TopicSelection): Promise<ReadRecord[]> {
  const kafka = createKafka(connection);
  const admin = kafka.admin();
  await admin.connect();
  let ranges: { partition: number; from: bigint; to: bigint }[];
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    ranges = offsets
      .filter((o) => selection.partition === undefined || o.partition === selection.partition)
      .map((o) => {
        const from = selection.offset === undefined ? BigInt(o.low) : BigInt(selection.offset) > BigInt(o.low) ? BigInt(selection.offset) : BigInt(o.low);
        const end = from + BigInt(selection.count);
        return { partition: o.partition, from, to: end < BigInt(o.high) ? end : BigInt(o.high) };
      })
      .filter((r) => r.from < r.to);
  } finally {
    await admin.disconnect();
  }
  if (ranges.length === 0) return [];
  const wanted = ranges.reduce((sum, r) => sum + Number(r.to - r.from), 0);
  const records: ReadRecord[] = [];
  const consumer = createConsumer(kafka, { groupId: selection.groupId, allowAutoTopicCreation: false });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      // Offsets are contiguous (no transactions), so `wanted` records arrive; a quiet spell still ends the wait.
      let quiet = setTimeout(resolve, IDLE_MS);
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const range = ranges.find((r) => r.partition === partition);
            const offset = BigInt(message.offset);
            if (!range || offset < range.from || offset >= range.to) return;
            records.push({ partition, record: message });
            clearTimeout(quiet);
            quiet = setTimeout(resolve, IDLE_MS);
            if (records.length >= wanted) {
              clearTimeout(quiet);
              resolve();
            }
          },
        })
        .then(() => ranges.forEach((r) => consumer.seek({ topic, partition: r.partition, offset: r.from.toString() })), reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return records.sort((a, b) => a.partition - b.partition || Number(BigInt(a.record.offset) - BigInt(b.record.offset)));
}
