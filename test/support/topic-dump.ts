import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';

/**
 * Every record of `topics` from the beginning, by topic: for tests that search whole topics (secrets that
 * must not be there, another partner's data). Reads each partition up to its end offset at the call, by the
 * batches' last offsets: the service writes in transactions, whose commit markers take offsets no record has.
 */
export async function readEveryRecord(client: Kafka, topics: readonly string[], timeoutMs = 60_000): Promise<Map<string, KafkaMessage[]>> {
  const admin = client.admin();
  await admin.connect();
  const remaining = new Map<string, number>();
  try {
    for (const topic of topics) for (const p of await admin.fetchTopicOffsets(topic)) if (Number(p.high) > Number(p.low)) remaining.set(`${topic}|${p.partition}`, Number(p.high));
  } finally {
    await admin.disconnect();
  }
  const records = new Map<string, KafkaMessage[]>(topics.map((t) => [t, []]));
  if (remaining.size === 0) return records;
  const consumer = client.consumer({ maxWaitTimeInMs: 500, groupId: `dump-${randomUUID()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`partitions ${[...remaining.keys()]} not read to their end within ${timeoutMs} ms`)), timeoutMs);
      void consumer.run({
        eachBatch: async ({ batch }) => {
          const key = `${batch.topic}|${batch.partition}`;
          const end = remaining.get(key);
          for (const message of batch.messages) if (end === undefined || Number(message.offset) < end) records.get(batch.topic)!.push(message);
          // an empty fetch says nothing of the end: a read_committed one stops at a transaction still open
          if (end !== undefined && batch.firstOffset() !== null && Number(batch.lastOffset()) + 1 >= end) remaining.delete(key);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

/** A record's key, header names and values, and value, as buffers (for searching them all). */
export const recordParts = (message: KafkaMessage): Buffer[] => [
  message.key ?? Buffer.alloc(0),
  message.value ?? Buffer.alloc(0),
  ...Object.entries(message.headers ?? {}).flatMap(([name, v]) => [Buffer.from(name), ...[v].flat().map((x) => Buffer.from(x ?? ''))]),
];
