import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';

/** Reads the first `count` values of a topic with a fresh consumer group, in arrival order. */
export async function readValues(kafka: Kafka, topic: string, count: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `stack-test-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        values.push(String(message.value));
        if (values.length === count) resolve();
      },
    });
  });
  await consumer.disconnect();
  return values;
}
