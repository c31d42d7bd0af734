import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';

/**
 * Every record of `topics` from the beginning, by topic: for tests that search whole topics (secrets that
 * must not be there, another partner's data). Reads until each topic's high-water mark at the call.
 */
export async function readEveryRecord(client: Kafka, topics: readonly string[]): Promise<Map<string, KafkaMessage[]>> {
  const admin = client.admin();
  await admin.connect();
  let expected = 0;
  try {
    for (const topic of topics) for (const p of await admin.fetchTopicOffsets(topic)) expected += Number(p.high) - Number(p.low);
  } finally {
    await admin.disconnect();
  }
  const records = new Map<string, KafkaMessage[]>(topics.map((t) => [t, []]));
  if (expected === 0) return records;
  const consumer = client.consumer({ maxWaitTimeInMs: 500, groupId: `dump-${randomUUID()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    let seen = 0;
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ topic, message }) => {
          records.get(topic)!.push(message);
          if (++seen >= expected) resolve();
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
