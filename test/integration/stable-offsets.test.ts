import { randomUUID } from 'node:crypto';
import { Consumer, MessagesStreamFallbackModes, MessagesStreamModes, type Message } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { createTopics, testConfig } from '../support/harness';

/**
 * A group member taking a partition while another member's transaction holds offsets for it, not yet
 * committed (KIP-447): a read_committed consumer must wait for them (OffsetFetch with require_stable, retried
 * while the broker answers UNSTABLE_OFFSET_COMMIT), not start from the offset committed before. Started from
 * there, it handles again what the transaction's outputs already answered, and once that transaction commits
 * the outputs are there twice: the nemesis found 250 commands answered twice this way (seed 51, 120 s).
 */
const config = testConfig();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('group offsets read stable (require_stable)', () => {
  const topic = `stable-offsets-${randomUUID().slice(0, 8)}`;
  const kafka = new Kafka({ clientId: 'stable-offsets', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });

  beforeAll(async () => {
    await createTopics({ ...config, topics: { ...config.topics, deadLetters: topic } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: `record ${i}`, partition: 0 })) });
    await producer.disconnect();
  });

  it('a consumer starting while a transaction holds the offset 5 for its partition starts at 5 once it commits, not at 0', async () => {
    const groupId = `stable-offsets-${randomUUID()}`;
    // the previous owner's transaction: its outputs answered records 0–4, its offset 5 pending until it commits
    const previousOwner = kafka.producer({ transactionalId: `stable-offsets-${randomUUID()}`, idempotent: true, maxInFlightRequests: 1 });
    await previousOwner.connect();
    const transaction = await previousOwner.transaction();
    await transaction.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: '5' }] }] });

    const consumer = new Consumer({ clientId: 'stable-offsets', bootstrapBrokers: config.kafka.brokers, groupId, retries: 20, retryDelay: 250 });
    try {
      const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.COMMITTED, fallbackMode: MessagesStreamFallbackModes.EARLIEST, autocommit: false, maxWaitTime: 200 });
      const first = new Promise<Message<Buffer, Buffer, Buffer, Buffer>>((resolve, reject) => {
        stream.once('data', resolve);
        setTimeout(() => reject(new Error('no record within 20 s')), 20_000).unref();
      });
      // the transaction commits while the new owner is starting
      await sleep(2_000);
      await transaction.commit();
      expect((await first).offset).toBe(5n);
      await stream.close();
    } finally {
      await consumer.close(true);
      await previousOwner.disconnect();
    }
  });
});
