import { randomUUID } from 'node:crypto';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders } from '../support/kafkajs-topics';

/**
 * The stack globalSetup provided (given, containers or local processes) really serves: a message goes
 * through Kafka, a schema through the registry's Confluent-compatible API, a value through Redis.
 */
const brokers = (process.env.KAFKA_BROKERS ?? '').split(',');
const registryUrl = process.env.SCHEMA_REGISTRY_URL ?? '';
const redisUrl = process.env.REDIS_URL ?? '';

describe('the provided stack', () => {
  it('has its three endpoints in the environment', () => {
    expect(brokers[0]).toMatch(/^[^:]+:\d+$/);
    expect(registryUrl).toMatch(/^https?:\/\//);
    expect(redisUrl).toMatch(/^rediss?:\/\//);
  });

  it('Kafka: a produced message is consumed back by a new consumer group at once', async () => {
    const kafka = new Kafka({ clientId: 'stack-test', brokers, logLevel: logLevel.NOTHING });
    const topic = `stack-test-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1 }]);
    await admin.disconnect();

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k1', value: 'hello stack', headers: { 'X-Correlation-Id': 'c-1' } }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: `stack-test-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<{ key: string; value: string; correlation: string }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => resolve({ key: String(message.key), value: String(message.value), correlation: String(message.headers?.['X-Correlation-Id']) }),
      });
    });
    await consumer.disconnect();
    expect(received).toEqual({ key: 'k1', value: 'hello stack', correlation: 'c-1' });
  });

  it('schema registry: an Avro schema registered under a TopicRecordNameStrategy subject is found again and round-trips', async () => {
    const registry = new SchemaRegistry({ host: registryUrl });
    const name = `Probe${randomUUID().replace(/-/g, '')}`;
    const schema = { type: 'record', name, namespace: 'wholesale.stacktest.v1', fields: [{ name: 'gpsi', type: 'string' }] };
    const subject = `stack-test-topic-wholesale.stacktest.v1.${name}`;
    const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schema) }, { subject });
    expect(id).toBeGreaterThan(0);
    expect(await registry.getLatestSchemaId(subject)).toBe(id);
    expect(await registry.getRegistryIdBySchema(subject, { type: SchemaType.AVRO, schema: JSON.stringify(schema) })).toBe(id);

    const encoded = await registry.encode(id, { gpsi: '447700900123' });
    expect(encoded[0]).toBe(0); // Confluent wire format: magic byte, then the 4-byte schema id
    expect(encoded.readUInt32BE(1)).toBe(id);
    expect(await new SchemaRegistry({ host: registryUrl }).decode(encoded)).toEqual({ gpsi: '447700900123' });
  });

  it('Redis: SET then GET returns the value', async () => {
    const redis = new Redis(redisUrl, { lazyConnect: true });
    await redis.connect();
    const key = `stack-test:${randomUUID()}`;
    try {
      expect(await redis.set(key, 'value-1', 'EX', 60)).toBe('OK');
      expect(await redis.get(key)).toBe('value-1');
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  });
});
